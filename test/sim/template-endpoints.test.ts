import { request } from 'node:http';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, unpackTar, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, pushTemplateVersion } from './helpers';

interface TemplateJson {
  id: string;
  name: string;
  organization_id: string;
  active_version_id: string;
  provisioner: string;
}
interface VersionJson {
  id: string;
  template_id?: string;
  name: string;
  created_at: string;
  job: { status: string; file_id: string; error?: string; type: string };
}

describe('simulator: templates, versions and files', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 3, buildLatencyMs: 10 });
  });
  afterAll(async () => {
    await sim.close();
  });

  test('GET /organizations/{org}/templates/{name} finds the template by org name or id, case-insensitively', async () => {
    const byName = await api<TemplateJson>(sim, 'GET', '/organizations/coder/templates/k8s-dev');
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ id: sim.template.id, name: 'k8s-dev', organization_id: sim.orgId, active_version_id: sim.template.activeVersionId, provisioner: 'terraform' });
    const byId = await api<TemplateJson>(sim, 'GET', `/organizations/${sim.orgId}/templates/K8S-DEV`);
    expect(byId.body.id).toBe(sim.template.id);
    expect((await api(sim, 'GET', '/organizations/coder/templates/missing')).status).toBe(404);
    expect((await api(sim, 'GET', '/organizations/elsewhere/templates/k8s-dev')).status).toBe(404);
  });

  test('GET /templates/{id} and /templates/{id}/versions; the version\'s file is the tar of the real template source', async () => {
    const template = await api<TemplateJson>(sim, 'GET', `/templates/${sim.template.id}`);
    expect(template.body.active_version_id).toBe(sim.template.originalVersionId);
    const versions = await api<VersionJson[]>(sim, 'GET', `/templates/${sim.template.id}/versions`);
    expect(versions.body.map((v) => v.id)).toContain(sim.template.originalVersionId);
    const version = await api<VersionJson>(sim, 'GET', `/templateversions/${sim.template.originalVersionId}`);
    expect(version.body).toMatchObject({ id: sim.template.originalVersionId, template_id: sim.template.id, job: { status: 'succeeded', type: 'template_version_import' } });

    const file = await fetch(`${sim.url}/api/v2/files/${version.body.job.file_id}`, { headers: { 'Coder-Session-Token': sim.token } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/x-tar');
    const files = await unpackTar(Buffer.from(await file.arrayBuffer()));
    expect(files).toEqual([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    expect(K8S_TEMPLATE_MAIN_TF).toContain('resource "kubernetes_persistent_volume_claim" "home"');
    expect(K8S_TEMPLATE_MAIN_TF).toMatch(/resource "kubernetes_deployment" "main" \{\n\s+count = data\.coder_workspace\.me\.start_count/);
    expect((await api(sim, 'GET', '/files/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  test('POST /files: 201 with {hash: id} for a new archive, 200 and the same id for the same bytes', async () => {
    const tar = await packTar([{ name: 'main.tf', content: '# dedup test\n' }]);
    const first = await api<{ hash: string }>(sim, 'POST', '/files', { body: tar, contentType: 'application/x-tar' });
    expect(first.status).toBe(201);
    expect(first.body.hash).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await api<{ hash: string }>(sim, 'POST', '/files', { body: tar, contentType: 'application/x-tar' });
    expect(again.status).toBe(200);
    expect(again.body.hash).toBe(first.body.hash);
    const other = await api<{ hash: string }>(sim, 'POST', '/files', { body: await packTar([{ name: 'main.tf', content: '# other\n' }]), contentType: 'application/x-tar' });
    expect(other.status).toBe(201);
    expect(other.body.hash).not.toBe(first.body.hash);
  });

  test('POST /files refuses other content types with 400 and bodies over 100 MiB with 413', async () => {
    const wrong = await api<{ message: string }>(sim, 'POST', '/files', { body: Buffer.from('{}'), contentType: 'application/json' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain('application/json');

    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${sim.url}/api/v2/files`);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Coder-Session-Token': sim.token, 'Content-Type': 'application/x-tar', 'Content-Length': 100 * 1024 * 1024 + 1 } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
    });
    expect(status).toBe(413);
  });

  test('a new version imports asynchronously, then promotes: the template and its workspaces see it', async () => {
    const tar = await packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]);
    const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: tar, contentType: 'application/x-tar' });
    const created = await api<VersionJson>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
      json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform', name: 'v1-types', message: 'kubernetes _v1 types' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'v1-types', template_id: sim.template.id, job: { status: 'pending', file_id: upload.body.hash } });

    const early = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: created.body.id } });
    expect(early.status).toBe(403);

    let version: VersionJson;
    do {
      version = (await api<VersionJson>(sim, 'GET', `/templateversions/${created.body.id}`)).body;
    } while (version.job.status === 'pending' || version.job.status === 'running');
    expect(version.job.status).toBe('succeeded');

    const promoted = await api<{ message: string }>(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: created.body.id } });
    expect(promoted.status).toBe(200);
    expect(promoted.body.message).toBe('Updated the active template version!');
    expect(sim.template.activeVersionId).toBe(created.body.id);
    expect((await api<TemplateJson>(sim, 'GET', `/templates/${sim.template.id}`)).body.active_version_id).toBe(created.body.id);
    const ws = await api<{ outdated: boolean; template_active_version_id: string }>(sim, 'GET', `/workspaces/${sim.workspaces()[0]?.id}`);
    expect(ws.body).toMatchObject({ outdated: true, template_active_version_id: created.body.id });

    const duplicate = await api(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, { json: { template_id: sim.template.id, storage_method: 'file', file_id: upload.body.hash, name: 'v1-types' } });
    expect(duplicate.status).toBe(409);
  });

  test('a version whose HCL does not parse ends failed with the parser\'s file:line error and cannot be promoted', async () => {
    const version = await pushTemplateVersion(sim, fixtureSource('template-broken'));
    expect(version.job.status).toBe('failed');
    expect(version.job.error).toMatch(/main\.tf:\d+/);
    const promote = await api<{ message: string }>(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: version.id } });
    expect(promote.status).toBe(403);
    expect(promote.body.message).toBe('Only versions that have been built successfully can be promoted.');
    const build = await api(sim, 'POST', `/workspaces/${sim.workspaces()[0]?.id}/builds`, { json: { transition: 'start', template_version_id: version.id } });
    expect(build.status).toBe(400);
  });

  test('version creation and promotion need template admin rights; unknown ids are 404', async () => {
    const asMember = await api(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, { token: sim.memberToken, json: { template_id: sim.template.id, storage_method: 'file', file_id: '00000000-0000-4000-8000-000000000000' } });
    expect(asMember.status).toBe(403);
    const promoteAsMember = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { token: sim.memberToken, json: { id: sim.template.originalVersionId } });
    expect(promoteAsMember.status).toBe(403);
    expect((await api(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, { json: { template_id: sim.template.id, storage_method: 'file', file_id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(404);
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(404);
    expect((await api(sim, 'GET', '/templateversions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});
