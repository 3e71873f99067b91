import { startSimulator, type CoderSimulator } from '../../src/sim';
import { refusesBuildsOnDeletedWorkspaces } from '../../src/sim/deleted-workspace-builds';
import { api, startBuild, type BuildJson } from './helpers';

/** The home claim of a workspace, as the seeded template names it (after the workspace's id). */
function homeClaim(sim: CoderSimulator, workspaceId: string) {
  return sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(workspaceId));
}

async function deleted(sim: CoderSimulator): Promise<{ id: string; homeUid: string }> {
  const ws = sim.workspaces()[0];
  const homeUid = homeClaim(sim, ws.id)?.uid;
  expect(homeUid).toBeDefined();
  const del = await startBuild(sim, ws.id, { transition: 'delete' });
  expect(del.job.status).toBe('succeeded');
  expect(homeClaim(sim, ws.id)).toBeUndefined();
  return { id: ws.id, homeUid: homeUid! };
}

/** coderd/workspacebuilds.go postWorkspaceBuilds; PR #20584 (see src/sim/deleted-workspace-builds.ts). */
describe('simulator: a build on a deleted workspace', () => {
  let sim: CoderSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  test('from 2.28: a start or a stop is a 409 naming the transition, nothing is queued, and a delete is still taken', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 5, buildLatencyMs: 5, version: 'v2.31.7' });
    const { id } = await deleted(sim);
    for (const transition of ['start', 'stop']) {
      const res = await api<{ message: string; detail: string }>(sim, 'POST', `/workspaces/${id}/builds`, { json: { transition } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: `Cannot ${transition} a deleted workspace!`, detail: 'This workspace has been deleted and cannot be modified.' });
    }
    const builds = await api<BuildJson[]>(sim, 'GET', `/workspaces/${id}/builds`);
    expect(builds.body.map((b) => b.transition)).toEqual(['delete', 'start']);
    expect(homeClaim(sim, id)).toBeUndefined();
    // A delete of a deleted workspace is allowed (Coder's choice in #20584): it destroys nothing more.
    expect((await startBuild(sim, id, { transition: 'delete' })).job.status).toBe('succeeded');
  });

  test('before 2.28: a start on a deleted workspace is queued and provisioned, its home claim comes back empty with a new uid, and the dashboard still shows the workspace gone', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 5, buildLatencyMs: 5, version: 'v2.27.9' });
    const { id, homeUid } = await deleted(sim);
    const start = await startBuild(sim, id, { transition: 'start' });
    expect(start).toMatchObject({ transition: 'start', build_number: 3 });
    expect(start.job.status).toBe('succeeded');
    const back = homeClaim(sim, id);
    expect(back).toBeDefined();
    expect(back!.uid).not.toBe(homeUid);
    expect(back!.data ?? '').toBe('');
    // Invisible: GET answers 410 and the listing leaves it out, as for any deleted workspace.
    expect((await api(sim, 'GET', `/workspaces/${id}`)).status).toBe(410);
    const listed = await api<{ workspaces: { id: string }[] }>(sim, 'GET', '/workspaces?q=');
    expect(listed.body.workspaces.map((w) => w.id)).not.toContain(id);
    // A stop is taken too.
    expect((await startBuild(sim, id, { transition: 'stop' })).job.status).toBe('succeeded');
  });

  test.each([
    ['v2.27.9', false],
    ['v2.24.0', false],
    ['v2.28.0', true],
    ['v2.31.7+sim0001', true],
    ['v3.0.0', true],
    ['v0.0.0-devel+deadbee', true],
  ])('%s refuses: %s', (version, refuses) => {
    expect(refusesBuildsOnDeletedWorkspaces(version)).toBe(refuses);
  });
});
