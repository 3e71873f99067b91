import { startSimulator, type CoderSimulator } from '../../src/sim';
import {
  api,
  fixtureSource,
  homePvcName,
  latestBuildId,
  migrateStateByHand,
  pushTemplateVersion,
  putState,
  startBuild,
  waitForBuild,
} from './helpers';

/**
 * The manual runbook (seeds/000) reproduced against the simulator: after the state is renamed to
 * _v1 and pushed with PUT (no build), which follow-up builds lose the home volume and which keep it.
 */
describe('the manual runbook on the simulator', () => {
  let sim: CoderSimulator;

  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5, seed: 42 });
  });
  afterEach(async () => {
    await sim.close();
  });

  function workspace() {
    const ws = sim.workspaces()[0];
    if (!ws) throw new Error('no seeded workspace');
    return ws;
  }

  function homePvc(workspaceId: string) {
    return sim.cluster.pvc('coder', homePvcName(workspaceId));
  }

  /** Steps 3–12: pull the state, rename the types, push it with PUT, push and promote the _v1 template. */
  async function migrateByHand(workspaceId: string): Promise<string> {
    const buildId = await latestBuildId(sim, workspaceId);
    const pulled = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    expect(pulled.status).toBe(200);
    const pushed = await putState(sim, buildId, migrateStateByHand(pulled.text));
    expect(pushed.status).toBe(204);
    const version = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    expect(sim.template.activeVersionId).toBe(version.id);
    return version.id;
  }

  test('(1) Option A done with a plain start: the start runs the OLD version against the migrated state and destroys the PVC', async () => {
    const ws = workspace();
    await startBuild(sim, ws.id, { transition: 'stop' });
    const before = homePvc(ws.id);
    expect(before?.data).toBe(`home of ${ws.owner}`);
    await migrateByHand(ws.id);

    // `coder start` posts no template_version_id: the previous build's version is used.
    const start = await startBuild(sim, ws.id, { transition: 'start' });
    expect(start.template_version_id).toBe(sim.template.originalVersionId);

    const after = homePvc(ws.id);
    expect(after).toBeDefined();
    expect(after?.uid).not.toBe(before?.uid);
    expect(after?.data).toBe('');
    expect(sim.cluster.pvcLosses()).toEqual([
      { workspace: ws.id, namespace: 'coder', name: homePvcName(ws.id), oldUid: before?.uid, newUid: after?.uid, buildId: start.id },
    ]);
    const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${start.id}/logs`);
    const text = logs.body.map((l) => l.output).join('\n');
    expect(text).toContain('# kubernetes_persistent_volume_claim_v1.home will be destroyed');
    expect(text).toContain('kubernetes_persistent_volume_claim_v1.home: Destroying...');
  });

  test('(2) "Update and restart" of a RUNNING migrated workspace: the stop runs the previous version and destroys the PVC', async () => {
    const ws = workspace();
    const before = homePvc(ws.id);
    const newVersionId = await migrateByHand(ws.id);

    const { stopBuildId, startBuildId } = await sim.updateAndRestart(ws.id);
    expect(stopBuildId).toBeDefined();
    const stop = (await waitForBuild(sim, stopBuildId as string)).build;
    expect(stop.template_version_id).toBe(sim.template.originalVersionId);
    const start = (await waitForBuild(sim, startBuildId)).build;
    expect(start.template_version_id).toBe(newVersionId);

    expect(homePvc(ws.id)?.uid).not.toBe(before?.uid);
    const losses = sim.cluster.pvcLosses();
    expect(losses[0]).toMatchObject({ workspace: ws.id, oldUid: before?.uid, buildId: stopBuildId });
    // The untouched second workspace keeps its volume.
    const other = sim.workspaces()[1];
    expect(losses.every((l) => l.workspace !== other?.id)).toBe(true);
  });

  test('(3) safe: stopped first, then a start pinned to the new version keeps the PVC', async () => {
    const ws = workspace();
    await startBuild(sim, ws.id, { transition: 'stop' });
    const before = homePvc(ws.id);
    const newVersionId = await migrateByHand(ws.id);

    const start = await startBuild(sim, ws.id, { transition: 'start', template_version_id: newVersionId });
    expect(start.job.status).toBe('succeeded');
    expect(homePvc(ws.id)).toEqual(before);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    const state = JSON.parse(sim.stateOf(ws.id)) as { resources: { mode: string; type: string; instances: { attributes: { metadata?: { uid: string }[] } }[] }[] };
    const pvcEntry = state.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim_v1');
    expect(pvcEntry?.instances[0]?.attributes.metadata?.[0]?.uid).toBe(before?.uid);
    expect(state.resources.map((r) => r.type)).toContain('kubernetes_deployment_v1');
    expect(state.resources.some((r) => r.type === 'kubernetes_persistent_volume_claim' || r.type === 'kubernetes_deployment')).toBe(false);
  });

  test('(4) safe, Option B: running, a start pinned to the new version keeps the PVC and the Deployment', async () => {
    const ws = workspace();
    const pvcBefore = homePvc(ws.id);
    const deploymentBefore = sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === `coder-${ws.id}`);
    expect(deploymentBefore).toBeDefined();
    const newVersionId = await migrateByHand(ws.id);

    const start = await startBuild(sim, ws.id, { transition: 'start', template_version_id: newVersionId });
    expect(start.job.status).toBe('succeeded');
    expect(homePvc(ws.id)).toEqual(pvcBefore);
    expect(sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === `coder-${ws.id}`)?.uid).toBe(deploymentBefore?.uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    const logs = await api<{ output: string }[]>(sim, 'GET', `/workspacebuilds/${start.id}/logs`);
    expect(logs.body.map((l) => l.output)).toContain('No changes. Your infrastructure matches the configuration.');
  });

  test('(5) the guard: a version with removed{destroy=false} started on a NOT migrated workspace fails with AlreadyExists and keeps the PVC', async () => {
    const ws = workspace();
    const before = homePvc(ws.id);
    const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });
    expect(guard.job.status).toBe('succeeded');

    const res = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: guard.id } });
    expect(res.status).toBe(201);
    const { build } = await waitForBuild(sim, res.body.id);
    expect(build.job.status).toBe('failed');
    expect(build.status).toBe('failed');
    expect(build.job.error).toMatch(/persistentvolumeclaims "coder-[0-9a-f-]+-home" already exists \(AlreadyExists\)/);
    expect(homePvc(ws.id)).toEqual(before);
    expect(sim.cluster.pvcLosses()).toEqual([]);

    // The partial state is kept: the old entry was forgotten before the create failed.
    const state = JSON.parse(sim.stateOf(ws.id)) as { resources: { type: string }[] };
    expect(state.resources.map((r) => r.type)).not.toContain('kubernetes_persistent_volume_claim');
    expect(state.resources.map((r) => r.type)).not.toContain('kubernetes_persistent_volume_claim_v1');
  });

  test('the same guard version on a MIGRATED workspace is a clean start', async () => {
    const ws = workspace();
    await startBuild(sim, ws.id, { transition: 'stop' });
    const before = homePvc(ws.id);
    const buildId = await latestBuildId(sim, ws.id);
    const pulled = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    expect((await putState(sim, buildId, migrateStateByHand(pulled.text))).status).toBe(204);
    const guard = await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true });

    const start = await startBuild(sim, ws.id, { transition: 'start', template_version_id: guard.id });
    expect(start.job.status).toBe('succeeded');
    expect(homePvc(ws.id)).toEqual(before);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });

  test('a workspace delete destroys the PVC without counting it as a loss', async () => {
    const ws = workspace();
    const del = await startBuild(sim, ws.id, { transition: 'delete' });
    expect(del.status).toBe('deleted');
    expect(homePvc(ws.id)).toBeUndefined();
    expect(sim.cluster.pvcLosses()).toEqual([]);
    expect(sim.workspaces().map((w) => w.id)).not.toContain(ws.id);
  });
});
