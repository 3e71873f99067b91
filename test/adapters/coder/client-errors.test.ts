import { CoderClient } from '../../../src/adapters/coder/client';
import type { Workspace } from '../../../src/adapters/coder/schemas';
import { fixture } from './coder-fixtures';
import { FakeCoder, fakeClock } from './fake-coder';
import { failure } from './api-failure';

const TOKEN = 'f00dfeed42-Rm7Qx2Lp9Vb4Nc8Tz1Hs6Wk3';

describe('CoderClient errors', () => {
  let coder: FakeCoder;
  let clock: ReturnType<typeof fakeClock>;
  let client: CoderClient;

  beforeEach(async () => {
    coder = await FakeCoder.start();
    clock = fakeClock();
    client = new CoderClient({ url: coder.url, token: TOKEN, sleep: clock.sleep, now: clock.now, retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 } });
  });
  afterEach(() => coder.close());

  it('401: final, says the token was refused and which permission the call needs', async () => {
    coder.on('GET', '/workspacebuilds/b1/state', { status: 401, json: { message: 'You must be logged in to access this resource.' } });
    const error = await failure(client.getWorkspaceBuildState('b1'));
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, retryable: false, method: 'GET', path: '/workspacebuilds/b1/state' });
    expect(error.message).toMatch(/session token/);
    expect(error.message).toContain('template admin rights (`update` on the template)');
    expect(coder.received).toHaveLength(1);
  });

  it('403: final, names the missing permission and repeats what Coder said', async () => {
    const ws = fixture('workspace');
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 403, json: { message: 'You do not have permission to stop this workspace.' } });
    const error = await failure(client.createWorkspaceBuild(ws.id, { transition: 'stop' }));
    expect(error).toMatchObject({ kind: 'forbidden', status: 403, retryable: false, coderMessage: 'You do not have permission to stop this workspace.' });
    // wsbuilder authorizes the transition's own action.
    expect(error.message).toContain('`stop` on the workspace');
    const start = await failure(client.createWorkspaceBuild(ws.id, { transition: 'start' }));
    expect(start.message).toContain('`start` on the workspace');
    expect(start.message).toContain('any start of a dormant workspace');
    expect(error.message).toContain('alice/dev');
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(2);
  });

  it('403 on promote: says template admin and that only successful versions can be promoted', async () => {
    coder.on('PATCH', '/templates/t1/versions', { status: 403, json: { message: 'Only versions that have been built successfully can be promoted.' } });
    const error = await failure(client.promoteTemplateVersion('t1', 'v1'));
    expect(error.message).toContain('template admin rights');
    expect(error.message).toContain('Only versions that have been built successfully can be promoted');
  });

  it('404: says "not found or no access", and for state that template admin rights are needed', async () => {
    coder.on('GET', '/workspacebuilds/b1/state', { status: 404, json: fixture('error') });
    const error = await failure(client.getWorkspaceBuildState('b1'));
    expect(error).toMatchObject({ kind: 'not-found', retryable: false });
    expect(error.message).toContain('not found or no access');
    expect(error.message).toContain('template admin rights');
  });

  it('404 or 405 on a state PUT points at the Coder versions that have it', async () => {
    coder.on('PUT', '/workspacebuilds/b1/state', { status: 405 });
    const error = await failure(client.putWorkspaceBuildState('b1', Buffer.from('{}')));
    expect(error.kind).toBe('bad-request');
    expect(error.message).toMatch(/2\.27\.10, 2\.28\.7 and 2\.29\.2/);
  });

  it('409 "build already active": waits for the active build, then queues ours', async () => {
    const ws = fixture('workspace');
    const active = { ...ws.latest_build, id: 'active-build', build_number: 8, transition: 'start', status: 'starting', job: { ...ws.latest_build.job, status: 'running' } };
    const done = { ...active, status: 'running', job: { ...active.job, status: 'succeeded' } };
    const ours = { ...done, id: 'our-build', build_number: 9, transition: 'stop', status: 'pending', job: { ...done.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws }, { status: 200, json: { ...ws, latest_build: active } });
    coder.on('GET', '/workspacebuilds/active-build', { status: 200, json: active }, { status: 200, json: active }, { status: 200, json: done });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 409, json: { message: 'A workspace build is already active.' } }, { status: 201, json: ours });
    const build = await client.createWorkspaceBuild(ws.id, { transition: 'stop' });
    expect(build.id).toBe('our-build');
    expect(coder.requestsTo('GET', '/workspacebuilds/active-build')).toHaveLength(3);
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(2);
  });

  it("409 from someone's build of the very shape asked for (their stop while ours was asked): theirs is waited for, never taken for ours; ours is queued after it", async () => {
    const ws = fixture('workspace');
    const active = { ...ws.latest_build, id: 'their-stop', build_number: 8, transition: 'stop', status: 'stopping', job: { ...ws.latest_build.job, status: 'running' } };
    const done = { ...active, status: 'stopped', job: { ...active.job, status: 'succeeded' } };
    const ours = { ...done, id: 'our-build', build_number: 9, status: 'pending', job: { ...done.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws }, { status: 200, json: { ...ws, latest_build: active } });
    coder.on('GET', '/workspacebuilds/their-stop', { status: 200, json: done });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 409, json: { message: 'A workspace build is already active.' } }, { status: 201, json: ours });
    const build = await client.createWorkspaceBuild(ws.id, { transition: 'stop' });
    expect(build.id).toBe('our-build');
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(2);
  });

  it("409 from someone's delete: the 409 goes back at once, nothing waits for the delete and nothing is queued behind it", async () => {
    const ws = fixture('workspace');
    const deleting = { ...ws.latest_build, id: 'their-delete', build_number: 8, transition: 'delete', status: 'deleting', job: { ...ws.latest_build.job, status: 'running' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws }, { status: 200, json: { ...ws, latest_build: deleting } });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 409, json: { message: 'A workspace build is already active.' } });
    const error = await failure(client.createWorkspaceBuild(ws.id, { transition: 'stop' }));
    expect(error).toMatchObject({ kind: 'conflict', coderMessage: 'A workspace build is already active.' });
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(1);
    expect(coder.requestsTo('GET', '/workspacebuilds/their-delete')).toHaveLength(0);
  });

  it('409 that never clears: gives up after a bounded number of attempts', async () => {
    const ws = fixture('workspace');
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 409, json: { message: 'A workspace build is already active.' } });
    const error = await failure(client.createWorkspaceBuild(ws.id, { transition: 'stop' }));
    expect(error).toMatchObject({ kind: 'conflict', coderMessage: 'A workspace build is already active.' });
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(4); // maxAttempts
  });

  it('429: honours Retry-After in seconds, then succeeds', async () => {
    coder.on('GET', '/buildinfo', { status: 429, headers: { 'retry-after': '7' }, json: { message: 'Too many requests' } }, { status: 200, json: fixture('buildinfo') });
    await client.buildInfo();
    expect(clock.sleeps).toEqual([7000]);
  });

  it('429: honours Retry-After as an HTTP date', async () => {
    const at = new Date(clock.nowMs + 3000).toUTCString();
    coder.on('GET', '/buildinfo', { status: 429, headers: { 'retry-after': at } }, { status: 200, json: fixture('buildinfo') });
    await client.buildInfo();
    expect(clock.sleeps).toEqual([3000]);
  });

  it('429 with a Retry-After too long to wait in-process: surfaces at once as retryable, with the delay', async () => {
    coder.on('GET', '/buildinfo', { status: 429, headers: { 'retry-after': '600' } });
    const error = await failure(client.buildInfo());
    expect(error).toMatchObject({ kind: 'rate-limited', retryable: true, retryAfterMs: 600_000 });
    expect(clock.sleeps).toEqual([]);
  });

  it('500 then success: retried after a backoff delay', async () => {
    coder.on('GET', '/templates/t1', { status: 500, json: { message: 'Internal error fetching template.' } }, { status: 200, json: fixture('template') });
    expect((await client.template('t1')).name).toBe('k8s-dev');
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(50);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(100);
  });

  it('5xx that persists: surfaces as a retryable server error after maxAttempts, with growing delays', async () => {
    coder.on('GET', '/templates/t1', { status: 502, raw: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    const error = await failure(client.template('t1'));
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true, attempts: 4 });
    expect(error.message).toContain('after 4 attempts');
    expect(error.message).not.toContain('Bad gateway');
    expect(coder.received).toHaveLength(4);
    expect(clock.sleeps).toHaveLength(3);
    expect(clock.sleeps[2]!).toBeGreaterThanOrEqual(200);
  });

  it('dropped connection then success: retried', async () => {
    coder.on('GET', '/templates/t1', { drop: true }, { status: 200, json: fixture('template') });
    expect((await client.template('t1')).id).toBe(fixture('template').id);
    expect(coder.received).toHaveLength(2);
  });

  it('connection refused for good: a retryable network error naming the deployment', async () => {
    const url = coder.url;
    await coder.close();
    const offline = new CoderClient({ url, token: TOKEN, sleep: clock.sleep, now: clock.now, retry: { maxAttempts: 2 } });
    const error = await failure(offline.buildInfo());
    expect(error).toMatchObject({ kind: 'network', status: 0, retryable: true, attempts: 2 });
    expect(error.message).toContain(url);
    expect(error.message).toMatch(/ECONNREFUSED/);
    coder = await FakeCoder.start();
  });

  it('a request that gets no answer in time counts as a network failure', async () => {
    coder.on('GET', '/buildinfo', () => ({ drop: true }));
    const slowFetch: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const impatient = new CoderClient({ url: coder.url, token: TOKEN, fetchImpl: slowFetch, requestTimeoutMs: 20, retry: { maxAttempts: 1 } });
    const error = await failure(impatient.buildInfo());
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toContain('no answer within');
  });

  it('invalid JSON: a final invalid-response error that names the endpoint, not the body', async () => {
    coder.on('GET', '/templateversions/v1', { status: 200, raw: '{"id": "v1", "job": {', headers: { 'content-type': 'application/json' } });
    const error = await failure(client.templateVersion('v1'));
    expect(error).toMatchObject({ kind: 'invalid-response', retryable: false, path: '/templateversions/v1' });
    expect(error.message).toContain('GET /templateversions/v1');
    expect(error.message).toContain('not valid JSON');
    expect(error.message).not.toContain('"job"');
  });

  it('a body of the wrong shape: names the first failing field, never its value', async () => {
    const ws = fixture('workspace');
    ws.latest_build.job.status = 'secret-looking-value';
    coder.on('GET', '/users/alice/workspace/dev', { status: 200, json: ws });
    const error = await failure(client.workspaceByOwnerAndName('alice', 'dev'));
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toContain('latest_build.job.status');
    expect(error.message).not.toContain('secret-looking-value');
  });

  it('400 with validations: lists the invalid fields', async () => {
    coder.on('GET', '/workspaces', { status: 400, json: { message: 'Invalid workspace search query.', validations: [{ field: 'q', detail: 'Query param "colour" is not a valid query param' }] } });
    const error = await failure(client.workspacesOfTemplate('k8s-dev', { extraQuery: 'colour:red' }));
    expect(error).toMatchObject({ kind: 'bad-request', retryable: false });
    expect(error.message).toContain('q: Query param "colour" is not a valid query param');
  });

  it('a redirect is not followed (it would carry the token elsewhere)', async () => {
    coder.on('GET', '/buildinfo', { status: 307, headers: { location: 'https://elsewhere.example/api/v2/buildinfo?x=1' } });
    const error = await failure(client.buildInfo());
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toContain('https://elsewhere.example/api/v2/buildinfo');
    expect(error.message).not.toContain('x=1');
    expect(coder.received).toHaveLength(1);
  });

  it('a build POST whose answer was lost is not queued twice: the build it created is taken as ours', async () => {
    const ws = fixture('workspace');
    const created = { ...ws.latest_build, id: 'created-build', build_number: ws.latest_build.build_number + 1, transition: 'start', template_version_id: 'v-new', status: 'pending', job: { ...ws.latest_build.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws }, { status: 200, json: { ...ws, latest_build: created } });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { drop: true });
    const build = await client.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: 'v-new' });
    expect(build.id).toBe('created-build');
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(1);
  });

  it('given the workspace its caller just read, the build POST goes out without reading it again, and a lost answer is still found by its build number', async () => {
    const ws = fixture('workspace');
    const created = { ...ws.latest_build, id: 'created-build', build_number: ws.latest_build.build_number + 1, transition: 'start', template_version_id: 'v-new', status: 'pending', job: { ...ws.latest_build.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: { ...ws, latest_build: created } });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { drop: true });
    const build = await client.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: 'v-new' }, { before: ws as unknown as Workspace });
    expect(build.id).toBe('created-build');
    expect(coder.received.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it('a build POST that failed with 5xx before creating anything is sent again, also when the latest build has the very shape asked for (a try on top of a failed one)', async () => {
    const ws = fixture('workspace');
    const same = { transition: 'stop' as const, template_version_id: ws.latest_build.template_version_id };
    const queued = { ...ws.latest_build, id: 'queued', build_number: ws.latest_build.build_number + 1, status: 'pending', job: { ...ws.latest_build.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 503, json: { message: 'database unavailable' } }, { status: 201, json: queued });
    expect((await client.createWorkspaceBuild(ws.id, same)).id).toBe('queued');
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(2);
  });

  it('a build POST that failed with 5xx before creating anything is sent again', async () => {
    const ws = fixture('workspace');
    const queued = { ...ws.latest_build, id: 'queued', build_number: ws.latest_build.build_number + 1, transition: 'start', status: 'pending', job: { ...ws.latest_build.job, status: 'pending' } };
    coder.on('GET', `/workspaces/${ws.id}`, { status: 200, json: ws });
    coder.on('POST', `/workspaces/${ws.id}/builds`, { status: 503, json: { message: 'database unavailable' } }, { status: 201, json: queued });
    expect((await client.createWorkspaceBuild(ws.id, { transition: 'start' })).id).toBe('queued');
    expect(coder.requestsTo('POST', `/workspaces/${ws.id}/builds`)).toHaveLength(2);
  });
});
