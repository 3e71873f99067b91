import { makeWiredPreflight } from './fixtures/preflight-step';
import { stepsOf } from './fixtures/steps';
import type { WorkspacePreflightInput } from '../../src/activities/preflight-workspace';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild, waitForBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { preflightWorkspace: makeWiredPreflight };

/**
 * preflightWorkspace, the workspaces that are not what a migration expects: one its owner deleted while
 * the migration waited, one already migrated that a target older than its state would damage.
 */
describe('preflightWorkspace: a deleted workspace, and a migrated one on an old version', () => {
  let sim: CoderSimulator;
  let v1: string;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 5, buildLatencyMs: 5 });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
  });
  afterAll(async () => sim.close());

  const coder = (token = sim.token) => new CoderClient({ url: sim.url, token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  const acts = () => stepsOf({ coder: coder(), blobs: undefined as never, notifier: { notify: async () => undefined } }, STEPS);
  const ws = (i: number) => sim.workspaces()[i];
  const inputFor = (i: number, over: Partial<WorkspacePreflightInput> = {}): WorkspacePreflightInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: sim.template.name,
    targetVersionId: v1,
    strategy: 'rename',
    ...over,
  });
  async function failure(p: Promise<unknown>): Promise<{ type: string; nonRetryable: boolean; message: string }> {
    return p.then(
      () => {
        throw new Error('preflight passed where it must refuse');
      },
      (e: unknown) => e as { type: string; nonRetryable: boolean; message: string },
    );
  }

  it('a workspace its owner deleted is refused naming the delete, who made it and how it ended; nothing is built', async () => {
    const w = ws(0);
    const input = inputFor(0); // sim.workspaces() lists no deleted workspace
    const del = await coder(sim.tokenOf(w.owner)).createWorkspaceBuild(w.id, { transition: 'delete' });
    expect((await waitForBuild(sim, del.id)).build.job.status).toBe('succeeded');
    const err = await failure(acts().preflightWorkspace(input));
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err.message).toBe(`preflight refused for ${w.owner}/${w.name}: the workspace was deleted (build #2, delete by ${w.owner}, succeeded); nothing to migrate, nothing was built`);
    const builds = await coder().workspaceBuilds(w.id, { limit: 10 });
    expect(builds.map((b) => b.build_number)).toEqual([2, 1]);
  });

  it('a name Coder never knew stays its 404 (a usage error to correct), not a refusal and not a crash', async () => {
    const err = await failure(acts().preflightWorkspace(inputFor(2, { workspace: 'never-was' })));
    expect(err).toMatchObject({ type: 'CoderApi.not-found', nonRetryable: true });
    expect(err.message).toMatch(new RegExp(`^preflight failed for ${ws(2).owner}/never-was: `));
  });

  it('a migrated workspace whose target is the pre-migration version is refused before anything stops, naming the volume', async () => {
    const w = ws(1);
    const buildId = await latestBuildId(sim, w.id);
    expect((await putState(sim, buildId, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text))).status).toBe(204);
    await startBuild(sim, w.id, { transition: 'start', template_version_id: v1 });
    const before = (await coder().workspace(w.id)).latest_build.build_number;
    const err = await failure(acts().preflightWorkspace(inputFor(1, { targetVersionId: sim.template.originalVersionId })));
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    const hazard = (type: string, name: string) => `${type}_v1.${name} is migrated, but this version declares the old ${type}.${name}: the build would destroy it and re-create it empty`;
    expect(err.message).toBe(
      `preflight refused for ${w.owner}/${w.name}: template version ${(await coder().templateVersion(sim.template.originalVersionId)).name} is older than this workspace's migrated state (` +
        `${hazard('kubernetes_persistent_volume_claim', 'home')}; ${hazard('kubernetes_deployment', 'main')}), so it is not a migrated version; nothing was stopped. ` +
        `Pass --version the id 'wsmigrate migrate template' printed (its result's versionId)`,
    );
    expect((await coder().workspace(w.id)).latest_build.build_number).toBe(before);
    // On the migrated version itself it passes: nothing to rename, nothing older.
    await expect(acts().preflightWorkspace(inputFor(1))).resolves.toMatchObject({ alreadyMigrated: true, renameable: 0, onTargetVersion: true });
  });

  it('a migrated workspace stopped on the migrated version (its state: the home PVC alone) is refused the pre-migration version too: one hazard is enough', async () => {
    // The last one seeded: the others' indexes shift once one is deleted, and none of them is this one.
    const last = sim.workspaces().length - 1;
    const w = ws(last);
    const buildId = await latestBuildId(sim, w.id);
    expect((await putState(sim, buildId, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text))).status).toBe(204);
    await startBuild(sim, w.id, { transition: 'stop', template_version_id: v1 });
    const before = (await coder().workspace(w.id)).latest_build.build_number;
    const err = await failure(acts().preflightWorkspace(inputFor(last, { targetVersionId: sim.template.originalVersionId })));
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err.message).toContain(
      `is older than this workspace's migrated state (kubernetes_persistent_volume_claim_v1.home is migrated, but this version declares the old kubernetes_persistent_volume_claim.home: the build would destroy it and re-create it empty), so it is not a migrated version; nothing was stopped.`,
    );
    expect((await coder().workspace(w.id)).latest_build.build_number).toBe(before);
  });
});
