import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild } from './helpers';

/**
 * Dormant workspaces as Coder keeps them (coderd/workspaces.go putWorkspaceDormant, coderd/rbac/roles.go:
 * a dormant workspace is a workspace_dormant object, which every role may stop and none may start).
 */
describe('simulator: dormant workspaces', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 93, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const dormant = (id: string, value: unknown, token?: string) => api<{ dormant_at: string | null }>(sim, 'PUT', `/workspaces/${id}/dormant`, { json: { dormant: value }, ...(token ? { token } : {}) });
  const build = (id: string, transition: string, token?: string) => api<{ message: string }>(sim, 'POST', `/workspaces/${id}/builds`, { json: { transition }, ...(token ? { token } : {}) });

  test('a dormant workspace can be stopped by its owner and an Owner, started by neither, until it is made active', async () => {
    const ws = sim.workspaces()[0]!;
    const made = await dormant(ws.id, true);
    expect(made.status).toBe(200);
    expect(made.body.dormant_at).toEqual(expect.any(String));
    expect((await dormant(ws.id, true)).status).toBe(304);
    expect((await api<{ dormant_at: string | null }>(sim, 'GET', `/workspaces/${ws.id}`)).body.dormant_at).toBe(made.body.dormant_at);

    await startBuild(sim, ws.id, { transition: 'stop' });
    const ownerStart = await build(ws.id, 'start');
    expect(ownerStart.status).toBe(403);
    expect(ownerStart.body.message).toBe('You do not have permission to start this workspace.');
    const theirStart = await build(ws.id, 'start', sim.tokenOf(ws.owner));
    expect(theirStart.status).toBe(403);

    expect((await dormant(ws.id, false)).body.dormant_at).toBeNull();
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job.status).toBe('succeeded');
  });

  test("the workspace list filters on dormant:true and dormant:false; a bad body is a 400 naming the field", async () => {
    const [a, b] = sim.workspaces();
    await dormant(a!.id, true);
    const list = async (q: string) => (await api<{ workspaces: { id: string }[] }>(sim, 'GET', `/workspaces?q=${encodeURIComponent(q)}`)).body.workspaces.map((w) => w.id);
    expect(await list('dormant:true')).toEqual([a!.id]);
    expect(await list('dormant:false')).toEqual([b!.id]);
    const bad = await api<{ detail: string }>(sim, 'PUT', `/workspaces/${a!.id}/dormant`, { json: { dormant: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('"dormant"');
  });

  test('a template admin may read a dormant workspace but not make one active', async () => {
    const ws = sim.workspaces()[0]!;
    await dormant(ws.id, true);
    const admin = sim.tokenFor('template-admin');
    expect((await api(sim, 'GET', `/workspaces/${ws.id}`, { token: admin })).status).toBe(200);
    expect((await dormant(ws.id, false, admin)).status).toBe(403);
    expect((await build(ws.id, 'stop', admin)).status).toBe(403);
  });
});
