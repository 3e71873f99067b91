import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild, waitForBuild, type BuildJson } from './helpers';

/**
 * `state` in POST /workspaces/{id}/builds (codersdk CreateWorkspaceBuildRequest.ProvisionerState):
 * the new build runs on exactly those bytes (coderd/wsbuilder/wsbuilder.go getState), so a migrated
 * state and the version that declares its types travel in one request.
 */
describe('simulator: a build that carries its own state', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 3, seed: 21, buildLatencyMs: 20 });
  });
  afterEach(async () => {
    await sim.close();
  });

  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const pvcUid = (wsId: string): string | undefined => sim.cluster.pvc('coder', homePvcName(wsId))?.uid;

  async function stateOfBuild(buildId: string): Promise<string> {
    const res = await api(sim, 'GET', `/workspacebuilds/${buildId}/state`);
    expect(res.status).toBe(200);
    return res.text;
  }

  test('a start pinned to the _v1 version with the migrated state: the build holds exactly those bytes and keeps the PVC', async () => {
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    const uid = pvcUid(ws.id);
    const migrated = migrateStateByHand(sim.stateOf(ws.id));
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: v1.id, state: b64(migrated) } });
    expect(res.status).toBe(201);
    expect(res.body.template_version_id).toBe(v1.id);
    // Inserted with the build: never a moment where the workspace holds the migrated state under the old version.
    expect(await stateOfBuild(res.body.id)).toBe(migrated);
    const { build } = await waitForBuild(sim, res.body.id);
    expect(build.job.status).toBe('succeeded');
    expect(pvcUid(ws.id)).toBe(uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    expect(sim.stateOf(ws.id)).toContain('kubernetes_persistent_volume_claim_v1');
  });

  test('the state is really what the build plans from: the same migrated bytes on the OLD version destroy the PVC', async () => {
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    const uid = pvcUid(ws.id);
    const migrated = migrateStateByHand(sim.stateOf(ws.id));
    const start = await startBuild(sim, ws.id, { transition: 'start', state: b64(migrated) });
    expect(start.template_version_id).toBe(sim.template.originalVersionId);
    expect(pvcUid(ws.id)).not.toBe(uid);
    expect(sim.cluster.pvcLosses()).toEqual([expect.objectContaining({ workspace: ws.id, oldUid: uid, buildId: start.id })]);
  });

  test('Option B (running) and a stop on the new version for a workspace that stays stopped both keep the PVC', async () => {
    const [running, stopped] = sim.workspaces();
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    const runningUid = pvcUid(running!.id);
    const start = await startBuild(sim, running!.id, { transition: 'start', template_version_id: v1.id, state: b64(migrateStateByHand(sim.stateOf(running!.id))) });
    expect(start.job.status).toBe('succeeded');
    expect(pvcUid(running!.id)).toBe(runningUid);

    await startBuild(sim, stopped!.id, { transition: 'stop' });
    const stoppedUid = pvcUid(stopped!.id);
    const stop = await startBuild(sim, stopped!.id, { transition: 'stop', template_version_id: v1.id, state: b64(migrateStateByHand(sim.stateOf(stopped!.id))) });
    expect(stop.job.status).toBe('succeeded');
    expect(stop.template_version_id).toBe(v1.id);
    expect(pvcUid(stopped!.id)).toBe(stoppedUid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });

  // coderd/provisionerdserver/provisionerdserver.go FailJob writes the job's state only when the
  // provisioner sent one (a plan that fails sends none): the failed build keeps the bytes it was
  // created with, the sent migrated state on the new version, and the next build inherits them.
  test('a build carrying the migrated state that fails before any apply keeps those bytes, on its version; the next build inherits them', async () => {
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    const stopped = sim.stateOf(ws.id);
    const migrated = migrateStateByHand(stopped);
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'plan: node pool exhausted' } });
    const failed = await startBuild(sim, ws.id, { transition: 'start', template_version_id: v1.id, state: b64(migrated) });
    sim.setFaults(undefined);
    expect(failed).toMatchObject({ template_version_id: v1.id, job: { status: 'failed' } });
    expect(await stateOfBuild(failed.id)).toBe(migrated);
    const next = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } });
    expect(next.body.template_version_id).toBe(v1.id);
    expect(await stateOfBuild(next.body.id)).toBe(migrated);
    await waitForBuild(sim, next.body.id);
  });

  test('an empty state is no state: the build inherits the previous build\'s bytes', async () => {
    const ws = sim.workspaces()[0]!;
    const before = sim.stateOf(ws.id);
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop', state: '' } });
    expect(res.status).toBe(201);
    expect(await stateOfBuild(res.body.id)).toBe(before);
    await waitForBuild(sim, res.body.id);
  });

  test('only template managers may send state (403, nothing built); state with orphan is 400', async () => {
    const [mine] = sim.workspaces();
    const before = mine!.latestBuildId;
    const member = await api<{ message: string }>(sim, 'POST', `/workspaces/${mine!.id}/builds`, {
      token: sim.memberToken,
      json: { transition: 'start', state: b64('{"version":4}') },
    });
    expect(member.status).toBe(403);
    expect(member.body.message).toBe('Only template managers may provide custom state');
    expect(sim.workspaces()[0]?.latestBuildId).toBe(before);

    const both = await api<{ message: string }>(sim, 'POST', `/workspaces/${mine!.id}/builds`, { json: { transition: 'delete', orphan: true, state: b64('{}') } });
    expect(both.status).toBe(400);
    expect(both.body.message).toBe('ProvisionerState cannot be set alongside Orphan since state intent is unclear.');
    const orphanStart = await api<{ message: string }>(sim, 'POST', `/workspaces/${mine!.id}/builds`, { json: { transition: 'start', orphan: true } });
    expect(orphanStart.status).toBe(400);
    expect(orphanStart.body.message).toBe('Orphan is only permitted when deleting a workspace.');
    expect(sim.workspaces()[0]?.latestBuildId).toBe(before);
  });
});
