import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion, waitForBuild, type BuildJson } from './helpers';

describe('simulator: archiving template versions', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 5, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  test('a version a workspace uses, or the active one, is refused as coderd refuses it; an unused one is archived', async () => {
    const original = sim.template.activeVersionId;
    const inUse = await api<{ message: string; detail: string }>(sim, 'POST', `/templateversions/${original}/archive`, { json: {} });
    expect(inUse.status).toBe(500);
    expect(inUse.body.detail).toMatch(/likely in use by a workspace or currently set to the active version/);

    const unused = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'unused-1' })).id;
    const archived = await api<string>(sim, 'POST', `/templateversions/${unused}/archive`, { json: {} });
    expect(archived.status).toBe(200);
    expect(archived.body).toBe(`template version "${unused}" archived`);
    const again = await api<{ message: string }>(sim, 'POST', `/templateversions/${unused}/archive`, { json: {} });
    expect(again).toMatchObject({ status: 400, body: { message: 'Template version already archived' } });
    const version = await api<{ archived: boolean }>(sim, 'GET', `/templateversions/${unused}`);
    expect(version.body.archived).toBe(true);
  });

  test('archiving is no barrier: a workspace build pinned to an archived version is accepted and runs (coderd/wsbuilder/wsbuilder.go has no archived check)', async () => {
    const old = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'archived-but-buildable' })).id;
    expect((await api(sim, 'POST', `/templateversions/${old}/archive`, { json: {} })).status).toBe(200);
    const ws = sim.workspaces()[0]!;
    const build = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop', template_version_id: old } });
    expect(build.status).toBe(201);
    const done = await waitForBuild(sim, build.body.id);
    expect(done.build).toMatchObject({ template_version_id: old, job: { status: 'succeeded' } });
    // Promote still refuses it (coderd/templateversions.go patchActiveTemplateVersion).
    const promote = await api<{ message: string }>(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: old } });
    expect(promote).toMatchObject({ status: 400, body: { message: 'The provided template version is archived.' } });
  });

  test('POST /templateversions/{id}/unarchive gives an archived version back; twice is 400; a member is refused', async () => {
    const v = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'unarchive-me' })).id;
    expect((await api(sim, 'POST', `/templateversions/${v}/archive`, { json: {} })).status).toBe(200);
    expect((await api(sim, 'POST', `/templateversions/${v}/unarchive`, { token: sim.memberToken, json: {} })).status).toBe(403);
    const back = await api<string>(sim, 'POST', `/templateversions/${v}/unarchive`, { json: {} });
    expect(back).toMatchObject({ status: 200, body: `template version "${v}" unarchived` });
    expect((await api<{ archived: boolean }>(sim, 'GET', `/templateversions/${v}`)).body.archived).toBe(false);
    const again = await api<{ message: string }>(sim, 'POST', `/templateversions/${v}/unarchive`, { json: {} });
    expect(again).toMatchObject({ status: 400, body: { message: 'Template version already unarchived' } });
  });

  test("a version whose only workspace's latest build is a delete, even a failed one, is unused (coderd's query skips delete builds)", async () => {
    const v = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'under-a-failed-delete' })).id;
    const ws = sim.workspaces()[1]!;
    const start = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: v } });
    expect((await waitForBuild(sim, start.body.id)).build.job.status).toBe('succeeded');
    expect((await api(sim, 'POST', `/templateversions/${v}/archive`, { json: {} })).status).toBe(500);
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'delete', times: 1 } });
    try {
      const del = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'delete' } });
      expect((await waitForBuild(sim, del.body.id)).build).toMatchObject({ transition: 'delete', template_version_id: v, job: { status: 'failed' } });
    } finally {
      sim.setFaults(undefined);
    }
    expect((await api(sim, 'POST', `/templateversions/${v}/archive`, { json: {} })).status).toBe(200);
    // A start again on the archived version is still accepted (no barrier) and brings the workspace back.
    const back = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: v } });
    expect((await waitForBuild(sim, back.body.id)).build.job.status).toBe('succeeded');
  });

  test('POST /templates/{id}/versions/archive {"all":true} archives every unused version, never the active or a used one', async () => {
    const a = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'unused-2' })).id;
    const r = await api<{ archived_ids: string[] }>(sim, 'POST', `/templates/${sim.template.id}/versions/archive`, { json: { all: true } });
    expect(r.status).toBe(200);
    expect(r.body.archived_ids).toContain(a);
    expect(r.body.archived_ids).not.toContain(sim.template.activeVersionId);
    const used = (await api<{ latest_build: { template_version_id: string } }>(sim, 'GET', `/workspaces/${sim.workspaces()[1]!.id}`)).body.latest_build.template_version_id;
    expect(r.body.archived_ids).not.toContain(used);
    const active = await api<{ archived: boolean }>(sim, 'GET', `/templateversions/${sim.template.activeVersionId}`);
    expect(active.body.archived).toBe(false);
  });
});
