import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api } from './helpers';

/** coderd/workspaces.go patchWorkspace: renames only with CODER_ALLOW_WORKSPACE_RENAMES (off by default). */
describe('simulator: renaming a workspace', () => {
  let sim: CoderSimulator | undefined;
  afterEach(async () => sim?.close());

  const rename = (s: CoderSimulator, id: string, name: string, token?: string) => api<{ message: string }>(s, 'PATCH', `/workspaces/${id}`, { json: { name }, ...(token ? { token } : {}) });

  test('refused by default, as a fresh Coder refuses it; the same name or none is a no-op', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 94, buildLatencyMs: 5 });
    const ws = sim.workspaces()[0]!;
    const refused = await rename(sim, ws.id, 'renamed');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Workspace renames are not allowed.');
    expect((await rename(sim, ws.id, ws.name)).status).toBe(204);
    expect((await api<{ allow_renames: boolean; name: string }>(sim, 'GET', `/workspaces/${ws.id}`)).body).toMatchObject({ allow_renames: false, name: ws.name });
  });

  test('allowed: the workspace is found by its new name only; a name its owner uses already is a 409; a stranger gets 404', async () => {
    sim = await startSimulator({ workspaces: 5, seed: 94, buildLatencyMs: 5, allowWorkspaceRenames: true });
    const [ws, other] = [sim.workspaces()[0]!, sim.workspaces().find((w, i) => i > 0 && w.owner === sim!.workspaces()[0]!.owner)];
    expect((await rename(sim, ws.id, 'renamed')).status).toBe(204);
    expect((await api(sim, 'GET', `/users/${ws.owner}/workspace/renamed`)).status).toBe(200);
    expect((await api(sim, 'GET', `/users/${ws.owner}/workspace/${ws.name}`)).status).toBe(404);
    expect(other).toBeDefined();
    expect((await rename(sim, ws.id, other!.name)).status).toBe(409);
    const stranger = sim.workspaces().find((w) => w.owner !== ws.owner)!;
    expect((await rename(sim, ws.id, 'again', sim.tokenOf(stranger.owner))).status).toBe(404);
  });
});
