import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, waitForBuild, type BuildJson } from './helpers';

/**
 * Coder's built-in roles (coderd/rbac/roles.go) on the routes wsmigrate uses. The one that matters:
 * a Template Admin reads every workspace and its state but can neither start nor stop another
 * user's workspace (403, wsbuilder.go authorize); Owners and Organization Admins can.
 */
describe('simulator: roles', () => {
  let sim: CoderSimulator;
  let templateAdmin: string;
  let orgAdmin: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 31, buildLatencyMs: 5 });
    templateAdmin = sim.tokenFor('template-admin', 'tina');
    orgAdmin = sim.tokenFor('organization-admin', 'oscar');
  });
  afterAll(async () => sim.close());

  const build = (token: string, wsId: string, json: Record<string, unknown>) => api<BuildJson & { message: string }>(sim, 'POST', `/workspaces/${wsId}/builds`, { token, json });

  test('a Template Admin reads workspaces, builds and state, and manages templates, but gets 403 on start and stop', async () => {
    const ws = sim.workspaces()[0]!;
    const list = await api<{ count: number }>(sim, 'GET', '/workspaces', { token: templateAdmin });
    expect(list.body.count).toBe(2);
    expect((await api(sim, 'GET', `/workspaces/${ws.id}`, { token: templateAdmin })).status).toBe(200);
    expect((await api(sim, 'GET', `/workspacebuilds/${ws.latestBuildId}/state`, { token: templateAdmin })).status).toBe(200);
    expect((await api(sim, 'GET', `/templates/${sim.template.id}`, { token: templateAdmin })).status).toBe(200);

    for (const transition of ['stop', 'start'] as const) {
      const refused = await build(templateAdmin, ws.id, { transition });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(`You do not have permission to ${transition} this workspace.`);
    }
    // Not even with the migrated state: the workspace action is checked first.
    const withState = await build(templateAdmin, ws.id, { transition: 'start', state: Buffer.from('{}').toString('base64') });
    expect(withState.status).toBe(403);
    expect(sim.workspaces()[0]?.latestBuildId).toBe(ws.latestBuildId);
  });

  test('a Template Admin can push and promote a version of the template', async () => {
    const tar = await import('../../src/sim').then((m) => m.packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]));
    const upload = await api<{ hash: string }>(sim, 'POST', '/files', { token: templateAdmin, body: tar, contentType: 'application/x-tar' });
    expect([200, 201]).toContain(upload.status);
    const created = await api<{ id: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
      token: templateAdmin,
      json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform' },
    });
    expect(created.status).toBe(201);
  });

  test('an Organization Admin and an Owner start and stop any workspace, and may send state', async () => {
    const ws = sim.workspaces()[1]!;
    for (const token of [orgAdmin, sim.token]) {
      const stop = await build(token, ws.id, { transition: 'stop' });
      expect(stop.status).toBe(201);
      await waitForBuild(sim, stop.body.id);
      const start = await build(token, ws.id, { transition: 'start', state: Buffer.from(sim.stateOf(ws.id)).toString('base64') });
      expect(start.status).toBe(201);
      expect((await waitForBuild(sim, start.body.id)).build.job.status).toBe('succeeded');
    }
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });

  test('only an Owner may send a custom log level (the deployment config is site-wide, outside the org admin\'s reach)', async () => {
    const ws = sim.workspaces()[1]!;
    const byOrgAdmin = await build(orgAdmin, ws.id, { transition: 'stop', log_level: 'debug' });
    expect(byOrgAdmin.status).toBe(400);
    expect(byOrgAdmin.body.message).toBe('Workspace builds with a custom log level are restricted to administrators only.');
  });

  test('a member cannot read another member\'s workspace (404), nor the template\'s state or files', async () => {
    const [mine, theirs] = sim.workspaces();
    const member = sim.tokenOf(mine!.owner);
    expect((await api(sim, 'GET', `/workspaces/${theirs!.id}`, { token: member })).status).toBe(404);
    expect((await api(sim, 'GET', `/workspacebuilds/${mine!.latestBuildId}/state`, { token: member })).status).toBe(404);
    const version = await api<{ job: { file_id: string } }>(sim, 'GET', `/templateversions/${sim.template.originalVersionId}`, { token: member });
    expect(version.status).toBe(200);
    expect((await api(sim, 'GET', `/files/${version.body.job.file_id}`, { token: member })).status).toBe(404);
    expect((await api(sim, 'GET', `/files/${version.body.job.file_id}`, { token: orgAdmin })).status).toBe(200);
  });

  test('POST /api/v2/sim/tokens mints a token per role for an Owner only; bad roles and names are 400, a taken name 409', async () => {
    const minted = await api<{ token: string; role: string; username: string }>(sim, 'POST', '/sim/tokens', { json: { role: 'template-admin', username: 'tam' } });
    expect(minted).toMatchObject({ status: 201, body: { role: 'template-admin', username: 'tam' } });
    expect((await api(sim, 'GET', '/workspaces', { token: minted.body.token })).status).toBe(200);
    expect((await api(sim, 'POST', '/sim/tokens', { token: templateAdmin, json: { role: 'owner' } })).status).toBe(403);
    expect((await api(sim, 'POST', '/sim/tokens', { json: { role: 'root' } })).status).toBe(400);
    expect((await api(sim, 'POST', '/sim/tokens', { json: { role: 'member', username: '-bad' } })).status).toBe(400);
    expect((await api(sim, 'POST', '/sim/tokens', { json: { role: 'member', username: 'tam' } })).status).toBe(409);
    expect(() => sim.tokenFor('root' as never)).toThrow(/Unknown role "root"/);
  });
});

describe('simulator: POST /api/v2/authcheck', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 32, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  /** What the preflight asks: read and update the template, read the workspaces, start and stop them. */
  function checks(wsId: string, ownerId: string) {
    const template = { resource_type: 'template', resource_id: sim.template.id };
    const workspace = { resource_type: 'workspace', owner_id: ownerId, organization_id: sim.orgId };
    return {
      readTemplate: { object: template, action: 'read' },
      updateTemplate: { object: template, action: 'update' },
      readWorkspace: { object: workspace, action: 'read' },
      startWorkspace: { object: workspace, action: 'start' },
      stopThatWorkspace: { object: { resource_type: 'workspace', resource_id: wsId }, action: 'stop' },
    };
  }

  async function authcheck(token: string): Promise<Record<string, boolean>> {
    const ws = sim.workspaces()[0]!;
    const owner = (await api<{ owner_id: string }>(sim, 'GET', `/workspaces/${ws.id}`)).body.owner_id;
    const res = await api<Record<string, boolean>>(sim, 'POST', '/authcheck', { token, json: { checks: checks(ws.id, owner) } });
    expect(res.status).toBe(200);
    return res.body;
  }

  test('answers each named check for the caller: Owner and Org Admin may do all, a Template Admin may not start or stop', async () => {
    expect(await authcheck(sim.token)).toEqual({ readTemplate: true, updateTemplate: true, readWorkspace: true, startWorkspace: true, stopThatWorkspace: true });
    expect(await authcheck(sim.tokenFor('organization-admin'))).toEqual({ readTemplate: true, updateTemplate: true, readWorkspace: true, startWorkspace: true, stopThatWorkspace: true });
    expect(await authcheck(sim.tokenFor('template-admin'))).toEqual({ readTemplate: true, updateTemplate: true, readWorkspace: true, startWorkspace: false, stopThatWorkspace: false });
  });

  test("a member: its own workspace yes (owner_id me), another's no, the template read but not update", async () => {
    const [mine, theirs] = sim.workspaces();
    const member = sim.tokenOf(mine!.owner);
    const res = await api<Record<string, boolean>>(sim, 'POST', '/authcheck', {
      token: member,
      json: {
        checks: {
          ownStop: { object: { resource_type: 'workspace', owner_id: 'me', organization_id: sim.orgId }, action: 'stop' },
          theirsById: { object: { resource_type: 'workspace', resource_id: theirs!.id }, action: 'read' },
          readTemplate: { object: { resource_type: 'template', resource_id: sim.template.id }, action: 'read' },
          updateTemplate: { object: { resource_type: 'template', resource_id: sim.template.id }, action: 'update' },
        },
      },
    });
    expect(res.body).toEqual({ ownStop: true, theirsById: false, readTemplate: true, updateTemplate: false });
  });

  test('bad checks are 400 naming the problem: no resource_type, a bad uuid, an unsupported resource_id type', async () => {
    const post = (checks: unknown) => api<{ message: string }>(sim, 'POST', '/authcheck', { json: { checks } });
    expect(await post({ a: { object: {}, action: 'read' } })).toMatchObject({ status: 400, body: { message: 'Object\'s "resource_type" field must be defined for key "a".' } });
    expect(await post({ a: { object: { resource_type: 'workspace', resource_id: 'nope' }, action: 'read' } })).toMatchObject({ status: 400, body: { message: 'Object "nope" id is not a valid uuid.' } });
    const file = await post({ a: { object: { resource_type: 'file', resource_id: sim.template.id }, action: 'read' } });
    expect(file).toMatchObject({ status: 400, body: { message: 'Object type "file" does not support "resource_id" field.' } });
  });
});
