import { CoderClient } from '../../src/adapters/coder';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion, startBuild } from './helpers';

/**
 * The second round of the audit of the simulator against Coder's Go source (docs/sim-audit.md, "Second
 * round"): template versions, workspace listing and reads. Each test names the coder/coder file and
 * function whose behaviour it holds the simulator to.
 */
describe("simulator: the second audit against Coder's source", () => {
  let sim: CoderSimulator;
  afterEach(async () => {
    await sim?.close();
  });

  async function upload(source = K8S_TEMPLATE_MAIN_TF): Promise<string> {
    const res = await api<{ hash: string }>(sim, 'POST', '/files', { body: await packTar([{ name: 'main.tf', content: source }]), contentType: 'application/x-tar' });
    return res.body.hash;
  }

  function create(json: Record<string, unknown>) {
    return api<{ id: string; name: string; template_id?: string; message: string; job: { status: string } }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, {
      json: { storage_method: 'file', provisioner: 'terraform', ...json },
    });
  }

  describe('templateversions.go postTemplateVersionsByOrganization', () => {
    test('a version created without a template carries the nil UUID as template_id (convertTemplateVersion), not an omitted field', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 401, buildLatencyMs: 5 });
      const created = await create({ file_id: await upload() });
      expect(created.status).toBe(201);
      expect(created.body.template_id).toBe('00000000-0000-0000-0000-000000000000');
      const read = await api<{ template_id: string }>(sim, 'GET', `/templateversions/${created.body.id}`);
      expect(read.body.template_id).toBe('00000000-0000-0000-0000-000000000000');
    });

    test('`name` must be a template_version_name (codersdk TemplateVersionNameValid): 400 naming the field; `message` is stored as given', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 402, buildLatencyMs: 5 });
      const fileId = await upload();
      for (const bad of ['with space', 'trailing-', 'a..b', 'x'.repeat(65), 'ünïcode']) {
        const res = await create({ template_id: sim.template.id, file_id: fileId, name: bad });
        expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
        expect(res.body).toMatchObject({ message: 'Validation failed.', validations: [{ field: 'name' }] });
      }
      for (const good of ['wsmigrate-0123456789ab', 'v1.2_3', 'x'.repeat(64)]) {
        expect((await create({ template_id: sim.template.id, file_id: fileId, name: good })).status).toBe(201);
      }
      const withMessage = await create({ template_id: sim.template.id, file_id: fileId, message: 'kubernetes _v1 types' });
      expect(withMessage.body.message).toBe('kubernetes _v1 types');
      // An omitted name gets a generated one (namesgenerator), as before.
      expect(withMessage.body.name).toMatch(/^[a-z]+_[a-z]+/);
    });

    test('the same name twice for one template is 409 with the validation; for versions without a template it is not (a NULL template_id is never unique-violated)', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 403, buildLatencyMs: 5 });
      const fileId = await upload();
      expect((await create({ template_id: sim.template.id, file_id: fileId, name: 'twice' })).status).toBe(201);
      const again = await create({ template_id: sim.template.id, file_id: fileId, name: 'twice' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ message: 'A template version with name "twice" already exists for this template.', validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }] });
      expect((await create({ file_id: fileId, name: 'loose' })).status).toBe(201);
      expect((await create({ file_id: fileId, name: 'loose' })).status).toBe(201);
    });
  });

  describe('templateversions.go templateVersionByName: GET /templates/{id}/versions/{name}', () => {
    test('finds a version by exact name, archived ones too; 404 `No template version found by name` otherwise', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 404, buildLatencyMs: 5 });
      const v = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'by-name' });
      expect((await api(sim, 'POST', `/templateversions/${v.id}/archive`)).status).toBe(200);
      const found = await api<{ id: string; archived: boolean }>(sim, 'GET', `/templates/${sim.template.id}/versions/by-name`);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ id: v.id, archived: true });
      const missing = await api(sim, 'GET', `/templates/${sim.template.id}/versions/By-Name`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ message: 'No template version found by name "By-Name".' });
    });

    test("the product's createTemplateVersion takes a 409 for a name made from the same file as its own earlier call (client.ts), through this route", async () => {
      sim = await startSimulator({ workspaces: 0, seed: 405, buildLatencyMs: 5 });
      const coder = new CoderClient({ url: sim.url, token: sim.token });
      const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]));
      const req = { template_id: sim.template.id, file_id: file.hash, name: 'wsmigrate-0123456789ab', storage_method: 'file' as const, provisioner: 'terraform' as const };
      const first = await coder.createTemplateVersion(sim.orgId, req);
      const second = await coder.createTemplateVersion(sim.orgId, req);
      expect(second.id).toBe(first.id);
      const other = await coder.uploadFile(await packTar([{ name: 'main.tf', content: `${K8S_TEMPLATE_MAIN_TF}\n# other\n` }]));
      await expect(coder.createTemplateVersion(sim.orgId, { ...req, file_id: other.hash })).rejects.toMatchObject({ kind: 'conflict' });
    });
  });

  describe('templateversions.go patchActiveTemplateVersion (PATCH /templates/{id}/versions)', () => {
    test('the import status is checked before `archived`: an archived version whose import failed answers 403 with the status in the detail', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 406, buildLatencyMs: 5 });
      const failed = await pushTemplateVersion(sim, 'resource "nope" {', { name: 'broken' });
      expect(failed.job.status).toBe('failed');
      expect((await api(sim, 'POST', `/templateversions/${failed.id}/archive`)).status).toBe(200);
      const res = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: failed.id } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ message: 'Only versions that have been built successfully can be promoted.', detail: 'Attempted to promote a version with a failed build' });
    });

    test('an archived version that imported: 400 `The provided template version is archived.`; another template\'s version: 400; unknown: 404', async () => {
      sim = await startSimulator({ workspaces: 0, seed: 407, buildLatencyMs: 5 });
      const ok = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'good' });
      expect((await api(sim, 'POST', `/templateversions/${ok.id}/archive`)).status).toBe(200);
      const archived = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: ok.id } });
      expect(archived).toMatchObject({ status: 400, body: { message: 'The provided template version is archived.' } });
      const loose = await create({ file_id: await upload() });
      const notOurs = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: loose.body.id } });
      expect(notOurs).toMatchObject({ status: 400, body: { message: "The provided template version doesn't belong to the specified template." } });
      const unknown = await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: '00000000-0000-4000-8000-000000000001' } });
      expect(unknown).toMatchObject({ status: 404, body: { message: 'Template version not found.' } });
    });
  });

  describe('templateversions.go postArchiveTemplateVersions + ArchiveUnusedTemplateVersions', () => {
    test('without `all` only unused versions whose import FAILED are archived; with `all` every unused, non-active, finished one', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 408, buildLatencyMs: 5 });
      const failed = await pushTemplateVersion(sim, 'resource "nope" {', { name: 'broken' });
      const unused = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'unused' });
      const onlyFailed = await api<{ archived_ids: string[] }>(sim, 'POST', `/templates/${sim.template.id}/versions/archive`, { json: {} });
      expect(onlyFailed.status).toBe(200);
      expect(onlyFailed.body.archived_ids).toEqual([failed.id]);
      const all = await api<{ archived_ids: string[] }>(sim, 'POST', `/templates/${sim.template.id}/versions/archive`, { json: { all: true } });
      // The active version is the one the workspace uses: never archived.
      expect(all.body.archived_ids).toEqual([unused.id]);
    });

    test('a version a workspace\'s latest build uses is in use (500); once that build is a delete it is not', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 409, buildLatencyMs: 5 });
      const ws = sim.workspaces()[0]!;
      const next = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'next', promote: true });
      expect((await api(sim, 'POST', `/templateversions/${sim.template.originalVersionId}/archive`)).status).toBe(500);
      await startBuild(sim, ws.id, { transition: 'delete' });
      expect((await api(sim, 'POST', `/templateversions/${sim.template.originalVersionId}/archive`)).status).toBe(200);
      expect(next.id).toBeTruthy();
    });
  });

  describe('searchquery/search.go Workspaces: the q the product sends (template:, organization:, outdated:)', () => {
    type ListJson = { workspaces: { id: string; outdated: boolean }[]; count: number };
    const list = (q: string, extra = '') => api<ListJson>(sim, 'GET', `/workspaces?q=${encodeURIComponent(q)}${extra}`);

    test('organization: a name no organization has is a 400 (parseOrganization), not an empty list; an unknown UUID filters to nothing', async () => {
      sim = await startSimulator({ workspaces: 2, seed: 410, buildLatencyMs: 5 });
      const unknown = await list(`template:${sim.template.name} organization:no-such-org`);
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ validations: [{ field: 'organization' }] });
      expect((await list(`template:${sim.template.name} organization:00000000-0000-4000-8000-0000000000aa`)).body.count).toBe(0);
      expect((await list(`template:${sim.template.name} organization:${sim.orgId}`)).body.count).toBe(2);
      const coder = new CoderClient({ url: sim.url, token: sim.token });
      await expect(coder.workspacesOfTemplate(sim.template.name, { extraQuery: 'organization:no-such-org' })).rejects.toMatchObject({ kind: 'bad-request' });
    });

    test('status: must be a database.WorkspaceStatus (ParseEnum): 400 otherwise', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 411, buildLatencyMs: 5 });
      expect((await list('status:running')).status).toBe(200);
      const bad = await list('status:up');
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ validations: [{ field: 'status' }] });
    });

    test('outdated:true lists workspaces whose latest build is not on the active version; count is every match, whatever the limit', async () => {
      sim = await startSimulator({ workspaces: 3, seed: 412, buildLatencyMs: 5 });
      expect((await list(`template:${sim.template.name} outdated:true`)).body.count).toBe(0);
      await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'newer', promote: true });
      const outdated = await list(`template:${sim.template.name} outdated:true`, '&limit=1');
      expect(outdated.body.count).toBe(3);
      expect(outdated.body.workspaces).toHaveLength(1);
      expect(outdated.body.workspaces[0]?.outdated).toBe(true);
      expect((await list(`template:${sim.template.name} outdated:false`)).body.count).toBe(0);
    });
  });

  describe('workspaces.go workspace / workspaceByOwnerAndName: a deleted workspace', () => {
    test('by id: 410 naming the workspace by its id; with include_deleted 200. By owner and name: 404; with include_deleted 200', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 413, buildLatencyMs: 5 });
      const ws = sim.workspaces()[0]!;
      const owner = (await api<{ owner_name: string; name: string }>(sim, 'GET', `/workspaces/${ws.id}`)).body;
      await startBuild(sim, ws.id, { transition: 'delete' });
      const gone = await api(sim, 'GET', `/workspaces/${ws.id}`);
      expect(gone.status).toBe(410);
      expect(gone.body).toMatchObject({ message: `Workspace "${ws.id}" was deleted, you can view this workspace by specifying '?deleted=true' and trying again.` });
      expect((await api(sim, 'GET', `/workspaces/${ws.id}?include_deleted=true`)).status).toBe(200);
      expect((await api(sim, 'GET', `/users/${owner.owner_name}/workspace/${owner.name}`)).status).toBe(404);
      expect((await api(sim, 'GET', `/users/${owner.owner_name}/workspace/${owner.name}?include_deleted=true`)).status).toBe(200);
      // Listing never shows it (GetWorkspaces: deleted = false).
      expect((await api<{ count: number }>(sim, 'GET', `/workspaces?q=${encodeURIComponent(`template:${sim.template.name}`)}`)).body.count).toBe(0);
    });
  });
});
