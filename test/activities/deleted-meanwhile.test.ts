import { makeStartPinned } from '../../src/activities/start-pinned';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { stepsOf } from './fixtures/steps';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

const STEPS = { stopWorkspace: makeStopWorkspace, startPinned: makeStartPinned };

/**
 * A workspace its owner deletes in the moment between a step's read and its POST: Coder answers 409
 * (their delete is active) and the client waits for it. Coder before 2.28 then takes a start or stop on
 * the deleted workspace and provisions it (coderd/workspacebuilds.go, PR #20584): the claim comes back
 * empty, invisible in the dashboard. From 2.28 the POST is a 409. On both, nothing may be built.
 */
describe.each(['v2.27.9', 'v2.31.7'])("a workspace deleted by its owner while a step builds (Coder %s)", (version) => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    // Long enough that their delete is still pending or running when the step reads it back, on a loaded machine too.
    sim = await startSimulator({ workspaces: 4, buildLatencyMs: 250, version });
  });
  afterAll(async () => sim.close());

  const homeClaim = (workspaceId: string) => sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(workspaceId));

  /** A client whose first build POST for the workspace finds the owner's delete already queued. */
  function racingClient(workspaceId: string, owner: string) {
    let raced = false;
    const racingFetch: typeof fetch = async (url, init) => {
      if (!raced && init?.method === 'POST' && String(url).endsWith(`/workspaces/${workspaceId}/builds`)) {
        raced = true;
        await new CoderClient({ url: sim.url, token: sim.tokenOf(owner) }).createWorkspaceBuild(workspaceId, { transition: 'delete' });
      }
      return fetch(url, init);
    };
    return new CoderClient({ url: sim.url, token: sim.token, fetchImpl: racingFetch, retry: { baseDelayMs: 5, maxDelayMs: 20 }, sleep: (ms: number) => new Promise((r) => setTimeout(r, Math.min(ms, 10))) });
  }

  it.each([
    ['stopWorkspace', 0],
    ['startPinned', 1],
  ] as const)('%s: builds nothing after the delete, names it, and the claim stays gone', async (step, index) => {
    const ws = sim.workspaces()[index];
    const admin = new CoderClient({ url: sim.url, token: sim.token });
    const before = await admin.workspace(ws.id);
    const acts = stepsOf({ coder: racingClient(ws.id, ws.owner), blobs: undefined as never, notifier: { notify: async () => undefined } }, STEPS);
    const input = { workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: before.latest_build.build_number, timeoutMs: 10_000 };
    const err = (await (step === 'stopWorkspace' ? acts.stopWorkspace(input) : acts.startPinned({ ...input, templateVersionId: before.latest_build.template_version_id })).catch((e: unknown) => e)) as {
      type: string;
      nonRetryable: boolean;
      message: string;
    };
    // Their delete runs to its end; nothing of ours comes after it.
    await admin.waitForBuild((await admin.workspaceBuilds(ws.id, { limit: 1 }))[0].id);
    const builds = await admin.workspaceBuilds(ws.id, { limit: 5 });
    expect(builds[0]).toMatchObject({ build_number: before.latest_build.build_number + 1, transition: 'delete', job: { status: 'succeeded' } });
    expect(homeClaim(ws.id)).toBeUndefined();
    expect(err).toMatchObject({ type: 'WsmigrateBuiltMeanwhile', nonRetryable: true });
    expect(err.message).toMatch(new RegExp(`build #${before.latest_build.build_number + 1} \\(delete, (pending|running)\\) was started by ${ws.owner} after build #${before.latest_build.build_number}, the one this step read; nothing was written over it`));
  });
});
