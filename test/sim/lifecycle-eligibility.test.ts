import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, latestBuildId, startBuild, waitForBuild, type BuildJson } from './helpers';

/**
 * What the lifecycle executor may build, held to coderd/autobuild/lifecycle_executor.go
 * (isEligibleForAutostart, isEligibleForFailedStop): a simulator that builds where Coder would not
 * hides from a test what an SRE's workspace would really go through.
 */
describe('simulator: what the lifecycle executor builds', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 53, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  /** PATCH /templates/{id} sends every field (they are non-pointers): the current ones with `changes` over them. */
  async function patchTemplate(templateId: string, changes: Record<string, unknown>): Promise<void> {
    const current = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${templateId}`)).body;
    const res = await api(sim, 'PATCH', `/templates/${templateId}`, { json: { ...current, ...changes } });
    expect(res.status).toBe(200);
  }
  const templateOf = async (wsId: string) => (await api<{ template_id: string }>(sim, 'GET', `/workspaces/${wsId}`)).body.template_id;
  const latest = async (wsId: string) => (await api<BuildJson & { reason: string }>(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, wsId)}`)).body;

  test("failure_ttl stops a workspace whose start failed, never one whose stop failed (isEligibleForFailedStop: build.Transition == start)", async () => {
    const [a, b] = sim.workspaces();
    await patchTemplate(await templateOf(a!.id), { failure_ttl_ms: 3_600_000 });
    sim.setFaults({ failBuilds: { workspaceId: a!.id, transition: 'start', times: 1 } });
    await startBuild(sim, a!.id, { transition: 'stop' });
    expect((await startBuild(sim, a!.id, { transition: 'start' })).job.status).toBe('failed');
    sim.setFaults({ failBuilds: { workspaceId: b!.id, transition: 'stop', times: 1 } });
    expect((await startBuild(sim, b!.id, { transition: 'stop' })).job.status).toBe('failed');
    sim.setFaults(undefined);

    expect(sim.lifecycleTick(new Date(Date.now() + 30 * 60_000)).transitions).toEqual({});
    const fired = sim.lifecycleTick(new Date(Date.now() + 2 * 3_600_000));
    expect(fired.transitions).toEqual({ [a!.id]: 'stop' });
    expect(await latest(a!.id)).toMatchObject({ transition: 'stop', reason: 'autostop' });
    expect(await latest(b!.id)).toMatchObject({ transition: 'stop', job: { status: 'failed' } });
    await waitForBuild(sim, (await latest(a!.id)).id);
  });

  test('autostart starts nothing on a template that does not allow user autostart (templateSchedule.UserAutostartEnabled)', async () => {
    const ws = sim.workspaces()[0]!;
    await startBuild(sim, ws.id, { transition: 'stop' });
    expect((await api(sim, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * *' }, token: sim.tokenOf(ws.owner) })).status).toBe(204);
    await patchTemplate(await templateOf(ws.id), { allow_user_autostart: false });
    expect(sim.lifecycleTick(new Date(Date.now() + 25 * 3_600_000)).transitions).toEqual({});
    expect(await latest(ws.id)).toMatchObject({ transition: 'stop', reason: 'initiator' });
  });
});

describe('simulator: the lifecycle executor and prebuilt workspaces', () => {
  let sim: CoderSimulator | undefined;
  afterEach(async () => sim?.close());

  test('never builds a prebuilt workspace, even when dormancy would stop every idle workspace (GetWorkspacesEligibleForTransition skips the prebuilds user)', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 54, buildLatencyMs: 5, prebuilds: 2, dormancy: { timeTilDormantMs: 24 * 3_600_000 } });
    const prebuilt = (await api<{ workspaces: { id: string; is_prebuild: boolean; latest_build: BuildJson }[] }>(sim, 'GET', '/workspaces')).body.workspaces.filter((w) => w.is_prebuild);
    expect(prebuilt).toHaveLength(2);
    for (const w of prebuilt) await waitForBuild(sim, w.latest_build.id);
    const fired = sim.lifecycleTick(new Date(Date.now() + 3 * 24 * 3_600_000));
    expect(Object.keys(fired.transitions)).toEqual([sim.workspaces()[0]!.id]);
  });
});
