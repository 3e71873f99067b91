import { startSimulator, type CoderSimulator } from '../../src/sim';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { api, pushTemplateVersion, startBuild, waitForBuild, fixtureSource, type BuildJson } from './helpers';

interface LogJson {
  id: number;
  created_at: string;
  log_source: string;
  log_level: string;
  stage: string;
  output: string;
}

/** Long enough that a poll every 5 ms sees each phase even on a busy machine. */
const LATENCY = 120;

describe('simulator: workspace builds', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 3, seed: 11, buildLatencyMs: LATENCY });
  });
  afterEach(async () => {
    await sim.close();
  });

  test('a build is asynchronous: 201 pending, then running, then succeeded, each phase taking about the latency', async () => {
    const ws = sim.workspaces()[0];
    const began = Date.now();
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'stop' } });
    expect(res.status).toBe(201);
    expect(res.body.job.status).toBe('pending');
    expect(res.body.status).toBe('pending');
    expect(res.body.build_number).toBe(2);
    const { build, seen } = await waitForBuild(sim, res.body.id);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2 * LATENCY - 10);
    expect([...new Set([res.body.job.status, ...seen])]).toEqual(['pending', 'running', 'succeeded']);
    expect(build.status).toBe('stopped');
    expect(build.job.started_at).toBeDefined();
    expect(build.job.completed_at).toBeDefined();
    const workspace = await api<{ latest_build: { id: string; status: string } }>(sim, 'GET', `/workspaces/${ws?.id}`);
    expect(workspace.body.latest_build).toMatchObject({ id: res.body.id, status: 'stopped' });
  });

  test('the workspace status reads stopping while a stop runs', async () => {
    const ws = sim.workspaces()[0];
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'stop' } });
    const statuses = new Set<string>([res.body.status]);
    for (;;) {
      const b = await api<BuildJson>(sim, 'GET', `/workspacebuilds/${res.body.id}`);
      statuses.add(b.body.status);
      if (b.body.job.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect([...statuses]).toEqual(['pending', 'stopping', 'stopped']);
  });

  test('logs read like Terraform, with increasing ids, and ?after= returns only newer lines', async () => {
    const ws = sim.workspaces()[0];
    const stop = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    const logs = (await api<LogJson[]>(sim, 'GET', `/workspacebuilds/${stop.id}/logs`)).body;
    const text = logs.map((l) => l.output).join('\n');
    expect(text).toContain('# kubernetes_deployment.main[0] will be destroyed');
    expect(text).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
    expect(text).toContain('kubernetes_deployment.main[0]: Destroying...');
    expect(text).toContain('Apply complete! Resources: 0 added, 0 changed, 1 destroyed.');
    const ids = logs.map((l) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(logs[0]).toEqual(expect.objectContaining({ log_source: expect.any(String), log_level: expect.any(String), stage: 'Setting up', created_at: expect.any(String) }));
    const cut = ids[3] as number;
    const after = (await api<LogJson[]>(sim, 'GET', `/workspacebuilds/${stop.id}/logs?after=${cut}`)).body;
    expect(after.map((l) => l.id)).toEqual(ids.filter((id) => id > cut));

    const start = await startBuild(sim, ws?.id as string, { transition: 'start' });
    const startText = (await api<LogJson[]>(sim, 'GET', `/workspacebuilds/${start.id}/logs`)).body.map((l) => l.output).join('\n');
    expect(startText).toContain('# kubernetes_deployment.main[0] will be created');
    expect(startText).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });

  test('409 "A workspace build is already active." while the latest job is pending or running', async () => {
    const ws = sim.workspaces()[0];
    const first = await api<BuildJson>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'stop' } });
    expect(first.status).toBe(201);
    const second = await api<{ message: string }>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'start' } });
    expect(second.status).toBe(409);
    expect(second.body.message).toBe('A workspace build is already active.');
    await waitForBuild(sim, first.body.id);
    const third = await api(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'start' } });
    expect(third.status).toBe(201);
    expect(sim.requestLog().filter((e) => e.method === 'POST' && e.path.endsWith('/builds')).map((e) => e.status)).toEqual([201, 409, 201]);
  });

  test('a build without template_version_id uses the previous build\'s version; a pinned one uses the given version', async () => {
    const ws = sim.workspaces()[0];
    const next = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    const stop = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    expect(stop.template_version_id).toBe(sim.template.originalVersionId);
    const start = await startBuild(sim, ws?.id as string, { transition: 'start', template_version_id: next.id });
    expect(start.template_version_id).toBe(next.id);
    const after = await api<{ outdated: boolean }>(sim, 'GET', `/workspaces/${ws?.id}`);
    expect(after.body.outdated).toBe(false);
  });

  test('invalid requests: a bad transition, a version of another template, orphan on start, custom state as a member', async () => {
    const ws = sim.workspaces()[0];
    const badTransition = await api<{ validations: { field: string }[] }>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'reboot' } });
    expect(badTransition.status).toBe(400);
    expect(badTransition.body.validations[0]?.field).toBe('transition');

    // A version created without template_id belongs to no template: not this workspace's.
    const { packTar } = await import('../../src/sim');
    const tar = await packTar([{ name: 'main.tf', content: fixtureSource('template-v1') }]);
    const upload = await api<{ hash: string }>(sim, 'POST', '/files', { body: tar, contentType: 'application/x-tar' });
    const loose = await api<{ id: string }>(sim, 'POST', `/organizations/${sim.orgId}/templateversions`, { json: { storage_method: 'file', file_id: upload.body.hash, provisioner: 'terraform' } });
    expect(loose.status).toBe(201);
    for (;;) {
      const v = await api<{ job: { status: string } }>(sim, 'GET', `/templateversions/${loose.body.id}`);
      if (v.body.job.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const other = await api<{ message: string }>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'start', template_version_id: loose.body.id } });
    expect(other.status).toBe(400);
    expect(other.body.message).toContain("doesn't match template");

    const orphan = await api(sim, 'POST', `/workspaces/${ws?.id}/builds`, { json: { transition: 'start', orphan: true } });
    expect(orphan.status).toBe(400);
    const memberState = await api<{ message: string }>(sim, 'POST', `/workspaces/${ws?.id}/builds`, { token: sim.memberToken, json: { transition: 'stop', state: Buffer.from('{}').toString('base64') } });
    expect(memberState.status).toBe(403);
    expect(memberState.body.message).toBe('Only template managers may provide custom state');
  });

  test("a member may build their own workspace; someone else's, which it cannot read, is 404 (wsbuilder.go authorize)", async () => {
    const [mine, ...rest] = sim.workspaces();
    const theirs = rest.find((w) => w.owner !== mine?.owner);
    const own = await api<BuildJson>(sim, 'POST', `/workspaces/${mine?.id}/builds`, { token: sim.memberToken, json: { transition: 'stop' } });
    expect(own.status).toBe(201);
    const denied = await api<{ message: string }>(sim, 'POST', `/workspaces/${theirs?.id}/builds`, { token: sim.memberToken, json: { transition: 'stop' } });
    expect(denied.status).toBe(404);
    expect(denied.body.message).toMatch(/^Resource not found or you do not have access to this resource/);
    await waitForBuild(sim, own.body.id);
  });

  test('failBuilds ends matching builds failed without touching state or cluster, `times` times', async () => {
    const ws = sim.workspaces()[0];
    const stateBefore = sim.stateOf(ws?.id as string);
    const objectsBefore = sim.cluster.objects();
    sim.setFaults({ failBuilds: { workspaceId: ws?.id, transition: 'stop', times: 1, message: 'provisioner exploded' } });

    const other = sim.workspaces()[1];
    const unaffected = await startBuild(sim, other?.id as string, { transition: 'stop' });
    expect(unaffected.job.status).toBe('succeeded');

    const failed = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    expect(failed.job.status).toBe('failed');
    expect(failed.status).toBe('failed');
    expect(failed.job.error).toBe('provisioner exploded');
    expect(sim.stateOf(ws?.id as string)).toBe(stateBefore);
    expect(sim.cluster.objects().filter((o) => o.name.includes(ws?.id as string))).toEqual(objectsBefore.filter((o) => o.name.includes(ws?.id as string)));
    const logs = (await api<LogJson[]>(sim, 'GET', `/workspacebuilds/${failed.id}/logs`)).body;
    expect(logs.some((l) => l.log_level === 'error' && l.output.includes('provisioner exploded'))).toBe(true);

    const retried = await startBuild(sim, ws?.id as string, { transition: 'stop' });
    expect(retried.job.status).toBe('succeeded');
  });

  test('a version that renames the namespace replaces the PVC: the log says "must be replaced" and the loss is recorded', async () => {
    const ws = sim.workspaces()[0];
    const moved = await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF.replace('default     = "coder"', 'default     = "workspaces"'));
    const before = sim.cluster.pvc('coder', `coder-${ws?.id}-home`);
    const start = await startBuild(sim, ws?.id as string, { transition: 'start', template_version_id: moved.id });
    expect(start.job.status).toBe('succeeded');
    const text = (await api<LogJson[]>(sim, 'GET', `/workspacebuilds/${start.id}/logs`)).body.map((l) => l.output).join('\n');
    expect(text).toContain('# kubernetes_persistent_volume_claim.home must be replaced');
    expect(text).toContain('Plan: 2 to add, 0 to change, 2 to destroy.');
    expect(sim.cluster.pvc('coder', `coder-${ws?.id}-home`)).toBeUndefined();
    expect(sim.cluster.pvc('workspaces', `coder-${ws?.id}-home`)?.data).toBe('');
    expect(sim.cluster.pvcLosses()).toEqual([expect.objectContaining({ workspace: ws?.id, namespace: 'coder', oldUid: before?.uid, buildId: start.id })]);
  });

  test('updateAndRestart skips the stop when the workspace is not running', async () => {
    const ws = sim.workspaces()[0];
    await startBuild(sim, ws?.id as string, { transition: 'stop' });
    const { stopBuildId, startBuildId } = await sim.updateAndRestart(ws?.id as string);
    expect(stopBuildId).toBeUndefined();
    const start = (await waitForBuild(sim, startBuildId)).build;
    expect(start).toMatchObject({ transition: 'start', template_version_id: sim.template.activeVersionId, status: 'running' });
  });

  test('a delete build marks the workspace deleted: GET answers 410 and the list drops it', async () => {
    const ws = sim.workspaces()[0];
    const del = await startBuild(sim, ws?.id as string, { transition: 'delete' });
    expect(del.status).toBe('deleted');
    expect((await api(sim, 'GET', `/workspaces/${ws?.id}`)).status).toBe(410);
    expect((await api(sim, 'GET', `/workspaces/${ws?.id}?include_deleted=true`)).status).toBe(200);
    const list = await api<{ count: number }>(sim, 'GET', '/workspaces');
    expect(list.body.count).toBe(2);
    expect(JSON.parse(sim.stateOf(ws?.id as string)).resources).toEqual([]);
  });
});
