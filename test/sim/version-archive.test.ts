import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion } from './helpers';

describe('simulator: archiving template versions', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 5, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  test('a version a workspace uses, or the active one, is refused as coderd refuses it; an unused one is archived and then refuses builds', async () => {
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

    const ws = sim.workspaces()[0];
    const build = await api<{ message: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: unused } });
    expect(build.status).toBe(400);
    expect(build.body.message).toBe('The provided template version is archived.');
  });

  test('POST /templates/{id}/versions/archive {"all":true} archives every unused version, never the active or a used one', async () => {
    const a = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'unused-2' })).id;
    const r = await api<{ archived_ids: string[] }>(sim, 'POST', `/templates/${sim.template.id}/versions/archive`, { json: { all: true } });
    expect(r.status).toBe(200);
    expect(r.body.archived_ids).toEqual([a]);
    const active = await api<{ archived: boolean }>(sim, 'GET', `/templateversions/${sim.template.activeVersionId}`);
    expect(active.body.archived).toBe(false);
  });
});
