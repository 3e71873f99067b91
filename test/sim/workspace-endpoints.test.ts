import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api } from './helpers';

interface WorkspaceJson {
  id: string;
  name: string;
  owner_name: string;
  owner_id: string;
  template_name: string;
  template_active_version_id: string;
  outdated: boolean;
  latest_build: { id: string; status: string; transition: string; build_number: number; workspace_id: string; template_version_id: string; job: { status: string } };
}

describe('simulator: auth, buildinfo and workspace endpoints', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 10, seed: 7, buildLatencyMs: 5 });
  });
  afterAll(async () => {
    await sim.close();
  });

  test('GET /buildinfo needs no token and reports the configured version with every documented field', async () => {
    const res = await api<Record<string, unknown>>(sim, 'GET', '/buildinfo', { token: null });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('v2.31.7+sim0001');
    for (const field of ['external_url', 'dashboard_url', 'workspace_proxy', 'agent_api_version', 'provisioner_api_version', 'upgrade_message', 'deployment_id', 'telemetry', 'webpush_public_key']) {
      expect(res.body).toHaveProperty(field);
    }
  });

  test('a missing or unknown token is 401 with a codersdk.Response body', async () => {
    const missing = await api<{ message: string }>(sim, 'GET', '/workspaces', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.body.message).toContain('coder_session_token');
    const bad = await api<{ message: string }>(sim, 'GET', '/workspaces', { token: 'abcdefghij-0123456789012345678901' });
    expect(bad.status).toBe(401);
    expect(typeof bad.body.message).toBe('string');
  });

  test('the session token is also accepted as the coder_session_token query parameter', async () => {
    const res = await fetch(`${sim.url}/api/v2/workspaces?coder_session_token=${encodeURIComponent(sim.token)}`);
    expect(res.status).toBe(200);
  });

  test('an unknown route is 404 "Route not found."; a known path with the wrong method is 405', async () => {
    const unknown = await api<{ message: string }>(sim, 'GET', '/nope/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Route not found.');
    expect((await api(sim, 'DELETE', '/buildinfo')).status).toBe(405);
  });

  test('GET /workspaces/{id} answers the Workspace shape; unknown id 404, malformed id 400', async () => {
    const seeded = sim.workspaces()[0];
    const res = await api<WorkspaceJson>(sim, 'GET', `/workspaces/${seeded?.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: seeded?.id, name: seeded?.name, owner_name: seeded?.owner, template_name: 'k8s-dev', outdated: false });
    expect(res.body.template_active_version_id).toBe(sim.template.activeVersionId);
    expect(res.body.latest_build).toMatchObject({ id: seeded?.latestBuildId, status: 'running', transition: 'start', build_number: 1, workspace_id: seeded?.id });
    for (const field of ['organization_id', 'organization_name', 'template_id', 'automatic_updates', 'health', 'created_at', 'updated_at', 'last_used_at']) {
      expect(res.body).toHaveProperty(field);
    }
    expect((await api(sim, 'GET', '/workspaces/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api(sim, 'GET', '/workspaces/not-a-uuid')).status).toBe(400);
  });

  test('GET /users/{user}/workspace/{name} resolves the user by username, id and me', async () => {
    const seeded = sim.workspaces()[0];
    const byName = await api<WorkspaceJson>(sim, 'GET', `/users/${seeded?.owner}/workspace/${seeded?.name}`);
    expect(byName.status).toBe(200);
    expect(byName.body.id).toBe(seeded?.id);
    const byId = await api<WorkspaceJson>(sim, 'GET', `/users/${byName.body.owner_id}/workspace/${seeded?.name}`);
    expect(byId.body.id).toBe(seeded?.id);
    // The member token belongs to the owner of the first seeded workspace.
    const asMe = await api<WorkspaceJson>(sim, 'GET', `/users/me/workspace/${seeded?.name}`, { token: sim.memberToken });
    expect(asMe.status).toBe(200);
    expect(asMe.body.id).toBe(seeded?.id);
    expect((await api(sim, 'GET', `/users/${seeded?.owner}/workspace/no-such-workspace`)).status).toBe(404);
    expect((await api(sim, 'GET', `/users/nobody/workspace/${seeded?.name}`)).status).toBe(404);
  });

  test('GET /users/{user} answers a user by name, id or me; an unknown one is 400 with Coder\'s own words (coderd/httpmw/userparam.go)', async () => {
    const owner = sim.workspaces()[0]?.owner as string;
    const byName = await api<{ id: string; username: string }>(sim, 'GET', `/users/${owner}`);
    expect(byName.status).toBe(200);
    expect(byName.body.username).toBe(owner);
    expect((await api<{ username: string }>(sim, 'GET', `/users/${byName.body.id}`)).body.username).toBe(owner);
    expect((await api<{ username: string }>(sim, 'GET', '/users/me', { token: sim.memberToken })).body.username).toBe(owner);
    const unknown = await api<{ message: string }>(sim, 'GET', '/users/nobody');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('"user" must be an existing uuid or username.');
  });

  test("a member cannot see someone else's workspace (404) and lists only their own", async () => {
    const mine = sim.workspaces()[0];
    const theirs = sim.workspaces().find((w) => w.owner !== mine?.owner);
    const res = await api<{ message: string }>(sim, 'GET', `/workspaces/${theirs?.id}`, { token: sim.memberToken });
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/^Resource not found or you do not have access to this resource/);
    const list = await api<{ workspaces: WorkspaceJson[]; count: number }>(sim, 'GET', '/workspaces', { token: sim.memberToken });
    expect(list.body.count).toBe(sim.workspaces().filter((w) => w.owner === mine?.owner).length);
    expect(list.body.workspaces.every((w) => w.owner_name === mine?.owner)).toBe(true);
  });

  test('GET /workspaces pages with limit/offset while count stays the total', async () => {
    const all = await api<{ workspaces: WorkspaceJson[]; count: number }>(sim, 'GET', '/workspaces');
    expect(all.body.count).toBe(10);
    expect(all.body.workspaces).toHaveLength(10);
    const pages: string[] = [];
    for (let offset = 0; offset < 10; offset += 4) {
      const page = await api<{ workspaces: WorkspaceJson[]; count: number }>(sim, 'GET', `/workspaces?limit=4&offset=${offset}`);
      expect(page.body.count).toBe(10);
      pages.push(...page.body.workspaces.map((w) => w.id));
    }
    expect(pages).toEqual(all.body.workspaces.map((w) => w.id));
    expect((await api(sim, 'GET', '/workspaces?limit=-1')).status).toBe(400);
  });

  test('GET /workspaces?q= filters by template:, owner:, a bare name and owner/name', async () => {
    const seeded = sim.workspaces();
    const first = seeded[0];
    const q = async (query: string) => (await api<{ workspaces: WorkspaceJson[]; count: number }>(sim, 'GET', `/workspaces?q=${encodeURIComponent(query)}`)).body;
    expect((await q('template:k8s-dev')).count).toBe(10);
    expect((await q('template:"K8S-DEV"')).count).toBe(10);
    expect((await q('template:other')).count).toBe(0);
    expect((await q(`owner:${first?.owner}`)).workspaces.map((w) => w.name).sort()).toEqual(seeded.filter((w) => w.owner === first?.owner).map((w) => w.name).sort());
    expect((await q(`user:${first?.owner}`)).count).toBe(seeded.filter((w) => w.owner === first?.owner).length);
    expect((await q(`${first?.name}`)).workspaces.map((w) => w.id)).toContain(first?.id);
    const exact = await q(`${first?.owner}/${first?.name}`);
    expect(exact.workspaces.map((w) => w.id)).toEqual([first?.id]);
    expect((await q(`template:k8s-dev owner:${first?.owner} status:running`)).count).toBe(seeded.filter((w) => w.owner === first?.owner).length);
    expect((await q('status:stopped')).count).toBe(0);
  });

  test('an unknown q key is 400 with a validation on field "q"', async () => {
    const res = await api<{ message: string; validations: { field: string; detail: string }[] }>(sim, 'GET', `/workspaces?q=${encodeURIComponent('colour:blue')}`);
    expect(res.status).toBe(400);
    expect(res.body.validations[0]?.field).toBe('q');
    expect(res.body.validations[0]?.detail).toContain('colour');
  });
});
