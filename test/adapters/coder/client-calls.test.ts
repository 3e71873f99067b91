import fc from 'fast-check';
import { CoderClient } from '../../../src/adapters/coder/client';
import { fixture } from './coder-fixtures';
import { FakeCoder, fakeClock } from './fake-coder';

const TOKEN = 'a1b2c3d4e5-Kq8vN3xR7tY2wZ5pL9mB4cF6';

describe('CoderClient calls', () => {
  let coder: FakeCoder;
  let client: CoderClient;

  beforeEach(async () => {
    coder = await FakeCoder.start();
    const clock = fakeClock();
    client = new CoderClient({ url: coder.url, token: TOKEN, sleep: clock.sleep, now: clock.now, userAgent: 'wsmigrate-test' });
  });
  afterEach(() => coder.close());

  it('authenticates every request with the session token header and its user agent', async () => {
    coder.on('GET', '/buildinfo', { status: 200, json: fixture('buildinfo') });
    const info = await client.buildInfo();
    expect(info.version).toBe('v2.29.2+8f1c2d4');
    const [request] = coder.received;
    expect(request?.headers['coder-session-token']).toBe(TOKEN);
    expect(request?.headers['user-agent']).toBe('wsmigrate-test');
    expect(request?.query.toString()).toBe('');
  });

  it("reads a version's parameters and a build's values; Go's null for none reads as an empty list", async () => {
    coder.on('GET', '/templateversions/v1/rich-parameters', { status: 200, json: [{ name: 'size', type: 'number', default_value: '10', required: false, ephemeral: false, mutable: true, options: [], validation_max: 50 }] });
    coder.on('GET', '/templateversions/v2/rich-parameters', { status: 200, json: null });
    coder.on('GET', '/workspacebuilds/b1/parameters', { status: 200, json: [{ name: 'size', value: '20' }] });
    coder.on('GET', '/workspacebuilds/b2/parameters', { status: 200, json: null });
    expect(await client.templateVersionRichParameters('v1')).toEqual([expect.objectContaining({ name: 'size', default_value: '10', validation_max: 50 })]);
    expect(await client.templateVersionRichParameters('v2')).toEqual([]);
    expect(await client.workspaceBuildParameters('b1')).toEqual([{ name: 'size', value: '20' }]);
    expect(await client.workspaceBuildParameters('b2')).toEqual([]);
  });

  it('tolerates a deployment URL with a trailing slash or /api/v2', async () => {
    coder.on('GET', '/buildinfo', { status: 200, json: fixture('buildinfo') });
    for (const url of [`${coder.url}/`, `${coder.url}/api/v2`, `${coder.url}/api/v2/`]) {
      await new CoderClient({ url, token: TOKEN }).buildInfo();
    }
    expect(coder.received.map((r) => r.path)).toEqual(['/api/v2/buildinfo', '/api/v2/buildinfo', '/api/v2/buildinfo']);
  });

  it('accepts a Secret-like token holder', async () => {
    coder.on('GET', '/buildinfo', { status: 200, json: fixture('buildinfo') });
    await new CoderClient({ url: coder.url, token: { reveal: () => TOKEN } }).buildInfo();
    expect(coder.received[0]?.headers['coder-session-token']).toBe(TOKEN);
  });

  it('gets a workspace by owner and name, and by id', async () => {
    const ws = fixture('workspace');
    coder.on('GET', '/users/alice/workspace/dev', { status: 200, json: ws });
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    const byName = await client.workspaceByOwnerAndName('alice', 'dev');
    const byId = await client.workspace(ws.id);
    expect(byName.latest_build.transition).toBe('stop');
    expect(byId.template_active_version_id).toBe(ws.template_active_version_id);
  });

  it('encodes path segments so a name cannot reach another endpoint', async () => {
    await expect(client.workspaceByOwnerAndName('me', '../../buildinfo')).rejects.toThrow(/not found or no access/);
    expect(coder.received[0]?.path).toBe('/api/v2/users/me/workspace/..%2F..%2Fbuildinfo');
  });

  it('pages through every workspace of a template, using count, each workspace once', async () => {
    const base = fixture('workspace');
    const all = Array.from({ length: 5 }, (_, i) => ({ ...base, id: `00000000-0000-4000-8000-00000000000${i}`, name: `ws-${i}` }));
    coder.on('GET', '/workspaces', (request) => {
      const limit = Number(request.query.get('limit'));
      const offset = Number(request.query.get('offset'));
      return { status: 200, json: { workspaces: all.slice(offset, offset + limit), count: all.length } };
    });
    const found = await client.workspacesOfTemplate('k8s-dev', { pageSize: 2 });
    expect(found.map((w) => w.name)).toEqual(['ws-0', 'ws-1', 'ws-2', 'ws-3', 'ws-4']);
    expect(coder.received.map((r) => [r.query.get('q'), r.query.get('limit'), r.query.get('offset')])).toEqual([
      ['template:k8s-dev', '2', '0'],
      ['template:k8s-dev', '2', '2'],
      ['template:k8s-dev', '2', '4'],
    ]);
  });

  it('keeps each workspace once when one appears during paging and shifts the pages', async () => {
    const base = fixture('workspace');
    const ws = (i: number) => ({ ...base, id: `10000000-0000-4000-8000-00000000000${i}`, name: `ws-${i}` });
    coder.on(
      'GET',
      '/workspaces',
      { status: 200, json: { workspaces: [ws(1), ws(2)], count: 3 } },
      // ws-0 was created meanwhile and sorts first: ws-2 comes again on the next page.
      { status: 200, json: { workspaces: [ws(2), ws(3)], count: 4 } },
      { status: 200, json: { workspaces: [], count: 4 } },
    );
    const found = await client.workspacesOfTemplate('k8s-dev', { pageSize: 2 });
    expect(found.map((w) => w.name)).toEqual(['ws-1', 'ws-2', 'ws-3']);
  });

  it('adds extra search terms and refuses a template name that would inject terms', async () => {
    coder.on('GET', '/workspaces', { status: 200, json: fixture('workspaces') });
    const found = await client.workspacesOfTemplate('k8s-dev', { extraQuery: 'owner:alice' });
    expect(found).toHaveLength(2);
    expect(coder.received[0]?.query.get('q')).toBe('template:k8s-dev owner:alice');
    await expect(client.workspacesOfTemplate('k8s-dev owner:bob')).rejects.toThrow(/not a Coder template name/);
  });

  it('gets a build and its logs after a log id', async () => {
    const build = fixture('workspace-build');
    coder.on('GET', `/workspacebuilds/${build.id}`, { status: 200, json: build });
    coder.on('GET', `/workspacebuilds/${build.id}/logs`, { status: 200, json: fixture('build-logs').slice(3) });
    expect((await client.workspaceBuild(build.id)).job.status).toBe('succeeded');
    const logs = await client.workspaceBuildLogs(build.id, { after: 4103 });
    expect(logs.map((l) => l.id)).toEqual([4104, 4105, 4106]);
    expect(coder.requestsTo('GET', `/workspacebuilds/${build.id}/logs`)[0]?.query.get('after')).toBe('4103');
  });

  it('creates a build pinned to a template version (201) and sends only the given fields', async () => {
    const ws = fixture('workspace');
    const queued = fixture('workspace-build');
    queued.job.status = 'pending';
    queued.status = 'pending';
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 201, json: queued });
    const build = await client.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: queued.template_version_id });
    expect(build.id).toBe(queued.id);
    const [post] = coder.requestsTo('POST', `/workspaces/${ws.id}/builds`);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post!.body.toString())).toEqual({ transition: 'start', template_version_id: queued.template_version_id });
  });

  it('returns the state bytes exactly as Coder sent them', async () => {
    const state = Buffer.from('{"version":4,"serial":12,"lineage":"x","resources":[]}\n\u0000\xff', 'latin1');
    coder.on('GET', '/workspacebuilds/b1/state', { status: 200, raw: state, headers: { 'content-type': 'application/json' } });
    expect((await client.getWorkspaceBuildState('b1')).equals(state)).toBe(true);
  });

  it('PUTs state as base64 in {"state"} so that Coder receives exactly the original bytes', async () => {
    const received: Buffer[] = [];
    coder.on('PUT', '/workspacebuilds/b1/state', (request) => {
      received.push(Buffer.from(JSON.parse(request.body.toString()).state, 'base64'));
      return { status: 204 };
    });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
        await client.putWorkspaceBuildState('b1', Buffer.from(bytes));
        return received.at(-1)!.equals(Buffer.from(bytes));
      }),
      { numRuns: 40 },
    );
    expect(coder.received[0]?.headers['content-type']).toBe('application/json');
  });

  it('accepts 200 as well as 204 for a state PUT', async () => {
    coder.on('PUT', '/workspacebuilds/b1/state', { status: 200, json: { message: 'ok' } });
    await expect(client.putWorkspaceBuildState('b1', Buffer.from('{}'))).resolves.toBeUndefined();
  });

  it('gets a template by organization and name, by id, and its version', async () => {
    const template = fixture('template');
    const version = fixture('template-version');
    coder.on('GET', `/organizations/${template.organization_id}/templates/k8s-dev`, { status: 200, json: template });
    coder.on('GET', `/templates/${template.id}`, { status: 200, json: template });
    coder.on('GET', `/templateversions/${version.id}`, { status: 200, json: version });
    expect((await client.templateByName(template.organization_id, 'k8s-dev')).active_version_id).toBe(version.id);
    expect((await client.template(template.id)).name).toBe('k8s-dev');
    expect((await client.templateVersion(version.id)).job.file_id).toBe(version.job.file_id);
  });

  it('resolves an organization name to its id when the sub-route does not take names', async () => {
    const template = fixture('template');
    coder.on('GET', '/organizations/coder/templates/k8s-dev', { status: 404, json: fixture('error') });
    coder.on('GET', '/organizations/coder', { status: 200, json: { id: template.organization_id, name: 'coder' } });
    coder.on('GET', `/organizations/${template.organization_id}/templates/k8s-dev`, { status: 200, json: template });
    expect((await client.templateByName('coder', 'k8s-dev')).id).toBe(template.id);
  });

  it('also works when the sub-route takes the organization name directly', async () => {
    coder.on('GET', '/organizations/coder/templates/k8s-dev', { status: 200, json: fixture('template') });
    await client.templateByName('coder', 'k8s-dev');
    expect(coder.received).toHaveLength(1);
  });

  it('downloads and uploads template archives as raw bytes', async () => {
    const tar = Buffer.alloc(4096, 7);
    coder.on('GET', '/files/f1', { status: 200, raw: tar, headers: { 'content-type': 'application/x-tar' } });
    coder.on('POST', '/files', { status: 201, json: fixture('file-upload') }, { status: 200, json: fixture('file-upload') });
    expect((await client.downloadFile('f1')).equals(tar)).toBe(true);
    const first = await client.uploadFile(tar);
    const again = await client.uploadFile(tar);
    expect(first.hash).toBe(fixture('file-upload').hash);
    expect(again.hash).toBe(first.hash);
    const [upload] = coder.requestsTo('POST', '/files');
    expect(upload?.headers['content-type']).toBe('application/x-tar');
    expect(upload?.body.equals(tar)).toBe(true);
  });

  it('creates a template version from a file with the CLI defaults, then promotes it', async () => {
    const version = fixture('template-version');
    coder.on('POST', `/organizations/${version.organization_id}/templateversions`, { status: 201, json: version });
    coder.on('PATCH', `/templates/${version.template_id}/versions`, { status: 200, json: { message: 'Updated the active template version!' } });
    const created = await client.createTemplateVersion(version.organization_id, { template_id: version.template_id, file_id: version.job.file_id, name: version.name });
    expect(created.id).toBe(version.id);
    await client.promoteTemplateVersion(version.template_id, version.id);
    const [post] = coder.requestsTo('POST', `/organizations/${version.organization_id}/templateversions`);
    expect(JSON.parse(post!.body.toString())).toEqual({
      template_id: version.template_id,
      file_id: version.job.file_id,
      name: version.name,
      storage_method: 'file',
      provisioner: 'terraform',
    });
    const [patch] = coder.requestsTo('PATCH', `/templates/${version.template_id}/versions`);
    expect(JSON.parse(patch!.body.toString())).toEqual({ id: version.id });
  });

  it('treats "name already exists" for a version made from the same file as an earlier run of the same call', async () => {
    const version = fixture('template-version');
    coder.on('POST', `/organizations/${version.organization_id}/templateversions`, { status: 409, json: { message: 'Template version name already exists' } });
    coder.on('GET', `/templates/${version.template_id}/versions/${version.name}`, { status: 200, json: version });
    const req = { template_id: version.template_id, file_id: version.job.file_id, name: version.name };
    expect((await client.createTemplateVersion(version.organization_id, req)).id).toBe(version.id);
    await expect(client.createTemplateVersion(version.organization_id, { ...req, file_id: 'another-file' })).rejects.toMatchObject({
      kind: 'conflict',
      message: expect.stringContaining('choose another name'),
    });
  });

  it("switches require_active_version by sending the template's current settings back, so nothing else is reset", async () => {
    const settings = {
      display_name: 'Kubernetes',
      description: 'dev boxes',
      default_ttl_ms: 28_800_000,
      activity_bump_ms: 3_600_000,
      autostop_requirement: { days_of_week: ['sunday'], weeks: 1 },
      allow_user_autostart: false,
      failure_ttl_ms: 604_800_000,
      deprecation_message: '',
    };
    const template = { ...fixture('template'), ...settings, require_active_version: false, active_user_count: 12 };
    coder.on('GET', `/templates/${template.id}`, { status: 200, json: template });
    coder.on('PATCH', `/templates/${template.id}`, { status: 200, json: { ...template, require_active_version: true } }, { status: 304 });
    await client.setTemplateRequireActiveVersion(template.id, true);
    await client.setTemplateRequireActiveVersion(template.id, true);
    const [patch] = coder.requestsTo('PATCH', `/templates/${template.id}`);
    const body = JSON.parse(patch!.body.toString());
    expect(body).toMatchObject({ ...settings, name: template.name, require_active_version: true, disable_everyone_group_access: false });
    // Read-only fields are not sent back.
    expect(body).not.toHaveProperty('active_user_count');
    expect(body).not.toHaveProperty('id');
  });
});
