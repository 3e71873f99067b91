import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, pushTemplateVersion, startBuild, type BuildJson } from './helpers';

type Listed = { workspaces: { id: string; name: string; owner_name: string }[]; count: number };

/**
 * The list endpoints the product pages through, held to coderd: template versions
 * (coderd/templateversions.go templateVersionsByTemplate: archived ones only with include_archived,
 * oldest first), their archive (POST …/versions/archive archives failed imports only unless `all`),
 * import logs after an id, provisioner jobs (newest first), builds by number (404 to whom cannot read
 * the workspace), and the workspace search (coderd/searchquery: name is a partial match, owner:me is
 * the requester, outdated:true the workspaces not on the active version).
 */
describe('simulator: list endpoints and their filters', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 4, seed: 43, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const versions = async (query = '') => (await api<{ id: string; archived: boolean }[]>(sim, 'GET', `/templates/${sim.template.id}/versions${query}`)).body.map((v) => v.id);

  test('template versions: oldest first; an archived one only with include_archived; archive without all archives nothing', async () => {
    const original = sim.template.activeVersionId;
    const a = await pushTemplateVersion(sim, fixtureSource('template-v1'));
    const b = await pushTemplateVersion(sim, fixtureSource('template-v1'));
    expect(await versions()).toEqual([original, a.id, b.id]);
    const none = await api<{ archived_ids: string[] }>(sim, 'POST', `/templates/${sim.template.id}/versions/archive`, { json: {} });
    expect(none.body.archived_ids).toEqual([]);
    expect((await api(sim, 'POST', `/templateversions/${a.id}/archive`, { json: {} })).status).toBe(200);
    expect(await versions()).toEqual([original, b.id]);
    expect(await versions('?include_archived=true')).toEqual([original, a.id, b.id]);
  });

  test('import logs after the last id seen are empty: a poll never repeats a line', async () => {
    const v = await pushTemplateVersion(sim, fixtureSource('template-v1'));
    const logs = (await api<{ id: number }[]>(sim, 'GET', `/templateversions/${v.id}/logs`)).body;
    expect(logs.length).toBeGreaterThan(0);
    expect((await api<unknown[]>(sim, 'GET', `/templateversions/${v.id}/logs?after=${logs[logs.length - 1]!.id}`)).body).toEqual([]);
  });

  test('provisioner jobs: newest first, and ids= narrows to those jobs', async () => {
    const ws = sim.workspaces()[0]!;
    const stop = (await startBuild(sim, ws.id, { transition: 'stop' })) as BuildJson & { job: { id: string } };
    const start = (await startBuild(sim, ws.id, { transition: 'start' })) as BuildJson & { job: { id: string } };
    const jobs = (await api<{ id: string; created_at: string }[]>(sim, 'GET', `/organizations/${sim.orgId}/provisionerjobs?limit=50`)).body;
    expect(jobs.map((j) => j.created_at)).toEqual([...jobs.map((j) => j.created_at)].sort().reverse());
    expect(jobs[0]!.id).toBe(start.job.id);
    const picked = (await api<{ id: string }[]>(sim, 'GET', `/organizations/${sim.orgId}/provisionerjobs?ids=${stop.job.id}`)).body;
    expect(picked.map((j) => j.id)).toEqual([stop.job.id]);
  });

  test("a build by owner, name and number is a 404 to a member who cannot read the workspace", async () => {
    const ws = sim.workspaces().find((w) => w.owner !== 'alice')!;
    const path = `/users/${ws.owner}/workspace/${ws.name}/builds/1`;
    expect((await api<BuildJson>(sim, 'GET', path)).status).toBe(200);
    expect((await api(sim, 'GET', path, { token: sim.tokenOf('alice') })).status).toBe(404);
  });

  test('workspace search: name: matches part of the name, owner:me is the requester, outdated:true those not on the active version', async () => {
    const all = sim.workspaces();
    const first = all[0]!;
    const part = first.name.slice(0, 3);
    const byName = (await api<Listed>(sim, 'GET', `/workspaces?q=${encodeURIComponent(`name:${part}`)}`)).body.workspaces.map((w) => w.id);
    expect(byName).toContain(first.id);
    const mine = (await api<Listed>(sim, 'GET', '/workspaces?q=owner:me', { token: sim.tokenOf(first.owner) })).body.workspaces;
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine.map((w) => w.owner_name))).toEqual(new Set([first.owner]));
    expect((await api<Listed>(sim, 'GET', '/workspaces?q=outdated:true')).body.workspaces).toEqual([]);
    await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    const outdated = (await api<Listed>(sim, 'GET', '/workspaces?q=outdated:true')).body.workspaces.map((w) => w.id).sort();
    expect(outdated).toEqual(all.map((w) => w.id).sort());
  });

  test("a workspace's builds: newest first (coderd orders by build_number DESC), so limit=N is the latest N", async () => {
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    await startBuild(sim, ws.id, { transition: 'start' });
    const numbers = (await api<{ build_number: number }[]>(sim, 'GET', `/workspaces/${ws.id}/builds?limit=2`)).body.map((b) => b.build_number);
    const all = (await api<{ build_number: number }[]>(sim, 'GET', `/workspaces/${ws.id}/builds`)).body.map((b) => b.build_number);
    expect(all).toEqual([...all].sort((a, b) => b - a));
    expect(numbers).toEqual(all.slice(0, 2));
  });
});
