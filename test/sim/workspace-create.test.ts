import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, homePvcName, pushTemplateVersion, waitForBuild } from './helpers';

interface WorkspaceJson {
  id: string;
  name: string;
  owner_name: string;
  latest_build: { id: string; build_number: number; transition: string; template_version_id: string };
}

/** POST /users/{user}/workspaces (coderd/workspaces.go createWorkspace). */
describe('simulator: creating a workspace', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 61, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const create = (user: string, json: Record<string, unknown>, token?: string) => api<WorkspaceJson & { message: string }>(sim, 'POST', `/users/${user}/workspaces`, { json, ...(token ? { token } : {}) });

  test("a member creates its own on the template's active version: build 1, a start from no state, and a new home volume", async () => {
    const res = await create('me', { name: 'fresh', template_id: sim.template.id }, sim.tokenOf('bob'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'fresh', owner_name: 'bob', latest_build: { build_number: 1, transition: 'start', template_version_id: sim.template.activeVersionId } });
    expect((await waitForBuild(sim, res.body.latest_build.id)).build.job.status).toBe('succeeded');
    // Planned from no state: a new lineage, serial 1.
    const state = JSON.parse(sim.stateOf(res.body.id)) as { lineage: string; serial: number };
    expect(state.serial).toBe(1);
    expect(state.lineage).not.toBe((JSON.parse(sim.stateOf(sim.workspaces()[0]!.id)) as { lineage: string }).lineage);
    expect(sim.cluster.pvc('coder', homePvcName(res.body.id))).toBeDefined();
    expect((await create('bob', { name: 'fresh', template_id: sim.template.id })).status).toBe(409);
  });

  test('creation refuses an archived version (builds do not: see version-archive.test.ts)', async () => {
    const old = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'old-one' })).id;
    expect((await api(sim, 'POST', `/templateversions/${old}/archive`, { json: {} })).status).toBe(200);
    const res = await create('alice', { name: 'on-archived', template_version_id: old });
    expect(res).toMatchObject({ status: 400, body: { message: 'Archived template versions cannot be used to make a workspace.' } });
    expect(sim.workspaces().map((w) => w.name)).not.toContain('on-archived');
  });

  test("only Owners and Organization Admins create someone else's; bad bodies are 400", async () => {
    expect((await create('carol', { name: 'x', template_id: sim.template.id }, sim.tokenOf('bob'))).status).toBe(403);
    expect((await create('carol', { name: 'x', template_id: sim.template.id }, sim.tokenFor('template-admin'))).status).toBe(403);
    expect((await create('carol', { name: 'by-org-admin', template_id: sim.template.id }, sim.tokenFor('organization-admin'))).status).toBe(201);
    const viaOrg = await api(sim, 'POST', '/organizations/coder/members/carol/workspaces', { json: { name: 'via-org', template_id: sim.template.id } });
    expect(viaOrg.status).toBe(201);
    expect((await create('carol', { template_id: sim.template.id })).status).toBe(400);
    expect((await create('carol', { name: 'both', template_id: sim.template.id, template_version_id: sim.template.activeVersionId })).status).toBe(400);
    expect((await create('carol', { name: '-bad', template_id: sim.template.id })).status).toBe(400);
  });
});
