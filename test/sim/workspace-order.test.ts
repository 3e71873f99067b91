import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild } from './helpers';

interface ListJson {
  workspaces: { id: string; name: string; owner_name: string; favorite: boolean }[];
  count: number;
}

/** GET /workspaces orders as GetWorkspaces in coderd/database/queries/workspaces.sql does. */
describe('simulator: the order of GET /workspaces', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    // 8 workspaces over alice, bob, carol, dave: dev-1 (alice), api-2 (bob), frontend-3 (carol), data-4 (dave), ml-5 (alice)…
    sim = await startSimulator({ workspaces: 8, seed: 41, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const list = async (query = '', token?: string) => (await api<ListJson>(sim, 'GET', `/workspaces${query}`, token ? { token } : {})).body;
  const names = (l: ListJson) => l.workspaces.map((w) => `${w.owner_name}/${w.name}`);

  test('running workspaces (latest build a successful start) first, then owner name, then workspace name', async () => {
    const all = sim.workspaces();
    const stopped = [all[0]!, all[3]!];
    for (const ws of stopped) await startBuild(sim, ws.id, { transition: 'stop' });
    const order = names(await list());
    const stoppedNames = stopped.map((w) => `${w.owner}/${w.name}`);
    expect(order.slice(-2)).toEqual([...stoppedNames].sort());
    const runningPart = order.slice(0, -2);
    expect(runningPart).toEqual([...runningPart].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    // Not only name order: a stopped "alice" sorts after a running "dave".
    expect(order.indexOf(`${all[0]!.owner}/${all[0]!.name}`)).toBeGreaterThan(order.findIndex((n) => n.startsWith('dave/')));
  });

  test("the requester's own favourites come first for that requester only; only the owner may favourite", async () => {
    const carols = sim.workspaces().find((w) => w.owner === 'carol')!;
    const carol = sim.tokenOf('carol');
    expect((await api(sim, 'PUT', `/workspaces/${carols.id}/favorite`, { token: sim.tokenOf('carol') })).status).toBe(204);
    expect((await api<{ message: string }>(sim, 'PUT', `/workspaces/${carols.id}/favorite`)).body.message).toBe('You can only favorite workspaces that you own.');
    const mine = await list('', carol);
    expect(mine.workspaces[0]).toMatchObject({ id: carols.id, favorite: true });
    // The admin sees carol's favourite in its usual place, after alice's and bob's.
    expect(names(await list())[0]).toMatch(/^alice\//);
    expect((await api(sim, 'DELETE', `/workspaces/${carols.id}/favorite`, { token: carol })).status).toBe(204);
    expect((await list('', carol)).workspaces.every((w) => !w.favorite)).toBe(true);
  });

  test('limit=0 means no limit; count is the total matching, whatever the page', async () => {
    expect((await list('?limit=0')).workspaces).toHaveLength(8);
    const page = await list('?limit=3&offset=6');
    expect(page.workspaces).toHaveLength(2);
    expect(page.count).toBe(8);
  });

  test('a workspace that stops while a client pages with offsets moves to a later page: offset paging alone skips another', async () => {
    const first = await list('?limit=4&offset=0');
    // The first running workspace stops: it sorts among the stopped ones at the end now.
    await startBuild(sim, first.workspaces[0]!.id, { transition: 'stop' });
    const second = await list('?limit=4&offset=4');
    const seen = new Set([...first.workspaces, ...second.workspaces].map((w) => w.id));
    expect(seen.size).toBeLessThan(8);
    expect(second.workspaces.map((w) => w.id)).toContain(first.workspaces[0]!.id);
  });

  test('a workspace whose start failed is not running: it sorts with the stopped ones', async () => {
    const all = sim.workspaces();
    const failing = all.find((w) => w.owner === 'alice')!;
    sim.setFaults({ failBuilds: { workspaceId: failing.id, transition: 'start', times: 1 } });
    await startBuild(sim, failing.id, { transition: 'stop' });
    expect((await startBuild(sim, failing.id, { transition: 'start' })).job.status).toBe('failed');
    sim.setFaults(undefined);
    const order = names(await list());
    expect(order[order.length - 1]).toBe(`${failing.owner}/${failing.name}`);
  });
});
