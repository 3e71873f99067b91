import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion, startBuild, waitForBuild, type BuildJson } from './helpers';

const PREBUILDS_USER_ID = 'c42fdf75-3097-471c-8c33-fb52454d81c0';

interface WorkspaceJson {
  id: string;
  name: string;
  owner_id: string;
  owner_name: string;
  is_prebuild: boolean;
  latest_build: BuildJson & { initiator_name: string };
}

async function listed(sim: CoderSimulator): Promise<WorkspaceJson[]> {
  return (await api<{ workspaces: WorkspaceJson[] }>(sim, 'GET', `/workspaces?q=template:${sim.template.name}`)).body.workspaces;
}

async function prebuilt(sim: CoderSimulator): Promise<WorkspaceJson[]> {
  return (await listed(sim)).filter((w) => w.owner_id === PREBUILDS_USER_ID);
}

/** Waits until every build of every listed workspace has ended. */
async function settled(sim: CoderSimulator): Promise<void> {
  for (const w of await listed(sim)) await waitForBuild(sim, w.latest_build.id);
}

/** enterprise/coderd/prebuilds/reconcile.go, coderd/prebuilds/preset_snapshot.go; see src/sim/prebuilds.ts. */
describe("simulator: prebuilt workspaces and Coder's reconciler", () => {
  let sim: CoderSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  test('prebuilt workspaces are listed with the template, owned by the prebuilds system user, is_prebuild true; people\'s are not', async () => {
    sim = await startSimulator({ workspaces: 2, prebuilds: 2, seed: 3, buildLatencyMs: 5 });
    const all = await listed(sim);
    expect(all).toHaveLength(4);
    const pre = all.filter((w) => w.is_prebuild);
    expect(pre.map((w) => [w.owner_id, w.owner_name, w.latest_build.transition, w.latest_build.job.status])).toEqual([
      [PREBUILDS_USER_ID, 'prebuilds', 'start', 'succeeded'],
      [PREBUILDS_USER_ID, 'prebuilds', 'start', 'succeeded'],
    ]);
    for (const w of pre) expect(w.name).toMatch(/^prebuild-[a-z2-7]{15}$/);
    expect(all.filter((w) => !w.is_prebuild).every((w) => w.owner_id !== PREBUILDS_USER_ID)).toBe(true);
    // Nothing to do while their version is the active one.
    expect(sim.reconcilePrebuilds()).toEqual({ deleted: [], created: [], errors: {} });
  });

  test('once another version is active: each old prebuild gets a delete pinned to the ACTIVE version, by prebuilds, and as many are made on the active version; starts in progress are counted', async () => {
    sim = await startSimulator({ workspaces: 1, prebuilds: 2, seed: 3, buildLatencyMs: 20 });
    const old = await prebuilt(sim);
    const v2 = await pushTemplateVersion(sim, `${K8S_TEMPLATE_MAIN_TF}\n# v2\n`, { promote: true });
    const run = sim.reconcilePrebuilds();
    expect(run.deleted.sort()).toEqual(old.map((w) => w.id).sort());
    expect(run.created).toHaveLength(2);
    expect(run.errors).toEqual({});
    for (const w of old) {
      const del = (await api<(BuildJson & { initiator_name: string })[]>(sim, 'GET', `/workspaces/${w.id}/builds`)).body[0];
      expect(del).toMatchObject({ transition: 'delete', template_version_id: v2.id, initiator_name: 'prebuilds' });
    }
    // The new ones are still starting: a second run makes no more.
    expect(sim.reconcilePrebuilds()).toEqual({ deleted: [], created: [], errors: {} });
    await settled(sim);
    const now = await prebuilt(sim);
    expect(now.map((w) => w.id).sort()).toEqual([...run.created].sort());
    expect(now.every((w) => w.latest_build.template_version_id === v2.id && w.latest_build.transition === 'start')).toBe(true);
    expect(sim.reconcilePrebuilds()).toEqual({ deleted: [], created: [], errors: {} });
  });

  test('a prebuild someone else built onto the active version keeps its old preset and is still deleted; one with a build running, or stopped, is left until it runs again', async () => {
    sim = await startSimulator({ workspaces: 1, prebuilds: 2, seed: 3, buildLatencyMs: 20 });
    const [moved, busy] = await prebuilt(sim);
    const v2 = await pushTemplateVersion(sim, `${K8S_TEMPLATE_MAIN_TF}\n# v2\n`, { promote: true });
    // As a migration would: a stop, then a start pinned to the new version.
    await startBuild(sim, moved.id, { transition: 'stop' });
    expect((await startBuild(sim, moved.id, { transition: 'start', template_version_id: v2.id })).job.status).toBe('succeeded');
    const running = await api<BuildJson>(sim, 'POST', `/workspaces/${busy.id}/builds`, { json: { transition: 'stop' } });
    // Its latest build is not a succeeded start: not a running prebuild, left alone (GetRunningPrebuiltWorkspaces).
    const first = sim.reconcilePrebuilds();
    expect(first.deleted).toEqual([moved.id]);
    expect(first.errors).toEqual({});
    // None of the active version's preset runs: two more are made.
    expect(first.created).toHaveLength(2);
    await waitForBuild(sim, running.body.id);
    // A stopped prebuild is not running: the reconciler leaves it (and it counts for nothing).
    expect(sim.reconcilePrebuilds().deleted).toEqual([]);
    await startBuild(sim, busy.id, { transition: 'start' });
    expect(sim.reconcilePrebuilds().deleted).toEqual([busy.id]);
  });

  test('without Premium the reconciler does nothing', async () => {
    sim = await startSimulator({ workspaces: 1, prebuilds: 1, seed: 3, buildLatencyMs: 5, licence: 'agpl' });
    await pushTemplateVersion(sim, `${K8S_TEMPLATE_MAIN_TF}\n# v2\n`, { promote: true });
    expect(sim.reconcilePrebuilds()).toMatchObject({ deleted: [], created: [], skipped: expect.stringMatching(/Premium/) });
  });

  test('the lifecycle executor never builds a prebuilt workspace', async () => {
    sim = await startSimulator({ workspaces: 1, prebuilds: 1, seed: 3, buildLatencyMs: 5 });
    const [p] = await prebuilt(sim);
    const tick = sim.lifecycleTick(new Date(), { force: true });
    expect(Object.keys(tick.transitions)).not.toContain(p.id);
  });
});
