import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, latestBuildId, pushTemplateVersion, startBuild, waitForBuild, type BuildJson } from './helpers';

/**
 * The simulator's users run `coder start` as cli/start.go does: a start on the previous build's version,
 * and when the template requires its active version (Premium, a 403), at once again with the ACTIVE
 * version (WorkspaceUpdate). A user who gave up at the 403 would be kinder than Coder: the start on the
 * active version carries the old state onto a new version.
 */
describe('simulator: users\' own starts (coder start)', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 61, buildLatencyMs: 5, licence: 'premium' });
  });
  afterAll(async () => sim.close());

  it('a start refused by require_active_version is made again on the active version, carrying the latest state', async () => {
    const ws = sim.workspaces()[0]!;
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    await waitForBuild(sim, stop.id);
    const active = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
    const t = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...t, require_active_version: true } })).status).toBe(200);
    // The member's own start on the previous version: refused.
    expect((await api(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: sim.tokenOf(ws.owner), json: { transition: 'start' } })).status).toBe(403);

    expect((await api(sim, 'PUT', '/sim/user-builds', { json: { interval_ms: 20, templates: [sim.template.name] } })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    let latest = stop.id;
    while (latest === stop.id && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      latest = await latestBuildId(sim, ws.id);
    }
    await api(sim, 'DELETE', '/sim/user-builds');
    const { build } = await waitForBuild(sim, latest);
    expect([build.transition, build.template_version_id, (build as BuildJson & { reason: string }).reason]).toEqual(['start', active.id, 'cli']);
    // Old state on the guarded _v1 version: the guard forgets the old PVC, creating the _v1 one fails, the data stays.
    expect(build.job.status).toBe('failed');
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });
});
