import { CoderClient } from '../../src/adapters/coder';
import { makeReturnToPrior } from '../../src/activities/return-to-prior';
import type { ActivityDeps } from '../../src/activities/ports';
import { startSimulator, type CoderSimulator } from '../../src/sim';

describe('compensation: back to the transition and version the workspace had', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
    coder = new CoderClient({ url: sim.url, token: sim.token });
  });
  afterAll(async () => sim.close());

  const stopped = async () => {
    const [ws] = sim.workspaces();
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    return ws;
  };
  const returnToPrior = (workspaceId: string) =>
    makeReturnToPrior({ coder } as unknown as ActivityDeps)({ workspaceId, subject: 'alice/dev', prior: { transition: 'start', templateVersionId: sim.template.originalVersionId }, timeoutMs: 60_000 });

  it("tries the prior build again when the provisioner fails it (it is the build the workspace already ran), and says so when it keeps failing", async () => {
    let ws = await stopped();
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 2, message: 'node pool exhausted' } });
    const back = await returnToPrior(ws.id);
    expect(back.changed).toBe(true);
    const builds = await coder.workspaceBuilds(ws.id);
    expect(builds.filter((b) => b.transition === 'start').slice(0, 3).map((b) => b.job.status)).toEqual(['succeeded', 'failed', 'failed']);

    ws = await stopped();
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', message: 'node pool exhausted' } });
    await expect(returnToPrior(ws.id)).rejects.toMatchObject({ type: 'WsmigrateBuildFailed', message: expect.stringMatching(/node pool exhausted/) });
    const after = await coder.workspaceBuilds(ws.id);
    expect(after.filter((b) => b.job.status === 'failed' && b.transition === 'start')).toHaveLength(2 + 3);
    sim.setFaults(undefined);
  });
});
