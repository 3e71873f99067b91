import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild, waitForBuild, type BuildJson } from './helpers';

interface FaultsAnswer {
  faults: Record<string, unknown>;
  injected: { http500: number; buildFailed: number };
}
interface ClusterAnswer {
  objects: { kind: string; namespace: string; name: string; uid: string }[];
  pvc_losses: { workspace_id: string; name: string; old_uid: string; new_uid?: string; build_id: string }[];
}

/**
 * The simulator's switches over HTTP: a hazard scenario driven only through the REST API (curl, a
 * script) meets the same faults, daemons and users' builds a test sets in process.
 */
describe('the simulator driven through /api/v2/sim', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, buildLatencyMs: 5, provisioners: 2, moreTemplates: [{ name: 'team-tools', workspaces: 2, versioned: true }] });
  });
  afterAll(async () => sim?.close());
  afterEach(async () => {
    await api(sim, 'DELETE', '/sim/faults');
  });

  const k8s = () => sim.workspaces().filter((w) => !w.name.startsWith('team-tools'));

  it('only an Owner may switch them', async () => {
    for (const [method, path] of [['GET', '/sim/faults'], ['PUT', '/sim/faults'], ['GET', '/sim/cluster'], ['PUT', '/sim/user-builds'], ['PATCH', '/sim/provisionerdaemons/sim-provisioner-1']]) {
      const res = await api(sim, method, path, { token: sim.memberToken, ...(method === 'GET' ? {} : { json: {} }) });
      expect([path, res.status]).toEqual([path, 403]);
    }
  });

  it("a wrong method on the simulator's own routes says which methods they take (POST /sim/faults: PUT replaces them); Coder's routes answer as Coder", async () => {
    const wrong = await api<{ message: string }>(sim, 'POST', '/sim/faults', { json: { failBuilds: { transition: 'start', times: 1 } } });
    expect(wrong.status).toBe(405);
    expect(wrong.body.message).toBe('Method not allowed: /api/v2/sim/faults takes GET, PUT, DELETE (README, "The simulator\'s own controls").');
    expect((await api<FaultsAnswer>(sim, 'GET', '/sim/faults')).body.faults).toEqual({});
    expect((await api<{ message: string }>(sim, 'DELETE', '/buildinfo')).body.message).toBe('Method not allowed.');
  });

  it('a fault set with a typo or a value out of range is refused naming each field, and nothing changes', async () => {
    await api(sim, 'PUT', '/sim/faults', { json: { rate429: 0.5 } });
    const bad = await api<{ detail: string; validations: { field: string; detail: string }[] }>(sim, 'PUT', '/sim/faults', {
      json: { error500Rate: 2, failBuild: { transition: 'start' }, lossyBuild: { how: 'lose', address: 'x.y' }, wrongStoredState: {} },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.validations.map((v) => v.field)).toEqual(['error500Rate', 'failBuild', 'lossyBuild.how', 'wrongStoredState.how']);
    expect(bad.body.validations[0].detail).toBe('Must be a number from 0 to 1 (a share of requests or builds), got 2.');
    expect(bad.body.validations[1].detail).toMatch(/^Unknown field; the fields are error500Rate, rate429, .*failBuilds, lossyBuild, wrongStoredState\.$/);
    expect(bad.body.detail).toMatch(/Nothing was changed/);
    expect((await api<FaultsAnswer>(sim, 'GET', '/sim/faults')).body.faults).toEqual({ rate429: 0.5 });
  });

  it("a failed build for one workspace's next start, counted; the next start succeeds", async () => {
    const ws = k8s()[0];
    await startBuild(sim, ws.id, { transition: 'stop' });
    const set = await api<FaultsAnswer>(sim, 'PUT', '/sim/faults', { json: { failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'node pool exhausted' } } });
    expect(set.status).toBe(200);
    expect(set.body.faults).toEqual({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'node pool exhausted' } });
    const failed = await startBuild(sim, ws.id, { transition: 'start' });
    expect(failed.job).toMatchObject({ status: 'failed', error: expect.stringContaining('node pool exhausted') });
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job.status).toBe('succeeded');
    const after = (await api<FaultsAnswer>(sim, 'GET', '/sim/faults')).body;
    expect(after.injected.buildFailed).toBe(1);
    // What is left of it: used up.
    expect(after.faults).toEqual({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 0, message: 'node pool exhausted' } });
  });

  it('failBuilds scoped to a template version fails only builds of that version (a version that does not build)', async () => {
    const ws = k8s()[2];
    const { body } = await api<{ latest_build: { template_version_id: string } }>(sim, 'GET', `/workspaces/${ws.id}`);
    const version = body.latest_build.template_version_id;
    await startBuild(sim, ws.id, { transition: 'stop' });
    expect((await api(sim, 'PUT', '/sim/faults', { json: { failBuilds: { templateVersionId: '00000000-0000-4000-8000-000000000000', transition: 'start' } } })).status).toBe(200);
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job.status).toBe('succeeded');
    await startBuild(sim, ws.id, { transition: 'stop' });
    expect((await api(sim, 'PUT', '/sim/faults', { json: { failBuilds: { templateVersionId: version, transition: 'start', message: 'webhook denied' } } })).status).toBe(200);
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job).toMatchObject({ status: 'failed', error: expect.stringContaining('webhook denied') });
    expect((await api(sim, 'DELETE', '/sim/faults')).status).toBe(204);
  });

  it("every Coder route failing with 500 leaves the simulator's own switches answering, so the fault can be switched off", async () => {
    expect((await api(sim, 'PUT', '/sim/faults', { json: { error500Rate: 1 } })).status).toBe(200);
    expect((await api(sim, 'GET', `/workspaces/${k8s()[0].id}`)).status).toBe(500);
    expect((await api(sim, 'GET', '/sim/faults')).status).toBe(200);
    expect((await api(sim, 'DELETE', '/sim/faults')).status).toBe(204);
    expect((await api(sim, 'GET', `/workspaces/${k8s()[0].id}`)).status).toBe(200);
  });

  it('a build that replaces the claim shows in the cluster as a lost PVC with both uids', async () => {
    const ws = k8s()[1];
    const before = (await api<ClusterAnswer>(sim, 'GET', '/sim/cluster')).body;
    const claim = before.objects.find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id));
    expect(claim?.uid).toBeTruthy();
    expect(before.pvc_losses).toEqual([]);
    await api(sim, 'PUT', '/sim/faults', { json: { lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim.home', workspaceId: ws.id, times: 1 } } });
    const built = await startBuild(sim, ws.id, { transition: 'start' });
    const after = (await api<ClusterAnswer>(sim, 'GET', '/sim/cluster')).body;
    expect(after.pvc_losses).toEqual([{ workspace_id: ws.id, namespace: 'coder', name: claim?.name, old_uid: claim?.uid, new_uid: expect.any(String), build_id: built.id }]);
    expect(after.objects.find((o) => o.name === claim?.name)?.uid).toBe(after.pvc_losses[0].new_uid);
  });

  it("a daemon taken offline, then both: a build waits in the queue until one comes back", async () => {
    const refused = await api<{ message: string; detail: string }>(sim, 'PATCH', '/sim/provisionerdaemons/nope', { json: { offline: true } });
    expect(refused.status).toBe(404);
    expect(refused.body.detail).toBe('The daemons are sim-provisioner-1, sim-provisioner-2.');
    expect((await api(sim, 'PATCH', '/sim/provisionerdaemons/sim-provisioner-1', { json: { offline: 'yes' } })).status).toBe(400);
    for (const name of ['sim-provisioner-1', 'sim-provisioner-2']) {
      expect((await api(sim, 'PATCH', `/sim/provisionerdaemons/${name}`, { json: { offline: true } })).body).toEqual({ name, status: 'offline' });
    }
    const ws = k8s()[2];
    const queued = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } });
    await new Promise((r) => setTimeout(r, 100));
    expect((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${queued.body.id}`)).body.job.status).toBe('pending');
    await api(sim, 'PATCH', '/sim/provisionerdaemons/sim-provisioner-2', { json: { offline: false } });
    expect((await waitForBuild(sim, queued.body.id)).build.job.status).toBe('succeeded');
    await api(sim, 'PATCH', '/sim/provisionerdaemons/sim-provisioner-1', { json: { offline: false } });
  });

  it("users' own builds on another template, started and stopped over HTTP, with their figures", async () => {
    expect((await api(sim, 'PUT', '/sim/user-builds', { json: { interval_ms: 5, templates: ['nope'] } })).status).toBe(400);
    const started = await api<{ builds: number }>(sim, 'PUT', '/sim/user-builds', { json: { interval_ms: 20 } });
    expect(started.status).toBe(200);
    const k8sBuilds = async () => Promise.all(k8s().map(async (w) => (await api<{ latest_build: { build_number: number } }>(sim, 'GET', `/workspaces/${w.id}`)).body.latest_build.build_number));
    const k8sBefore = await k8sBuilds();
    const teamTools = sim.workspaces().filter((w) => w.name.startsWith('team-tools'));
    const buildsOf = async () => (await Promise.all(teamTools.map(async (w) => (await api<{ latest_build: { build_number: number } }>(sim, 'GET', `/workspaces/${w.id}`)).body.latest_build.build_number))).reduce((a, b) => a + b, 0);
    const at = await buildsOf();
    for (let i = 0; i < 200 && (await buildsOf()) < at + 2; i++) await new Promise((r) => setTimeout(r, 20));
    const stopped = await api<{ builds: number; still_queued: number; queue_waits_ms: number[] }>(sim, 'DELETE', '/sim/user-builds');
    expect(stopped.body.builds).toBeGreaterThanOrEqual(2);
    expect((await buildsOf()) - at).toBeGreaterThanOrEqual(2);
    // Only the other template's workspaces: the seeded template's are left to the migration.
    expect(await k8sBuilds()).toEqual(k8sBefore);
  });
});
