/**
 * The chaos fleet of chaos-fleet.test.ts (worker SIGKILLs, a Temporal server restart) in two more
 * settings of a real Coder:
 *  - the lifecycle executor firing (coderd/autobuild/lifecycle_executor.go): a third of the
 *    workspaces get an autostart schedule, an autostop TTL or both, and the executor runs every
 *    second on a clock ten minutes ahead, so each schedule comes round at its next run: autostarts
 *    land between a migration's stop and its build, autostops right after its start. On Premium the
 *    fleet's require_active_version makes an autostart of a workspace it has not reached yet build
 *    the new (guarded) version on the old state: the build fails and forgets the PVC, and the fleet
 *    must put it right itself (a plain repair under its policy none), not wait on nobody;
 *  - an AGPL simulator (no licence): require_active_version is accepted, ignored and read back false,
 *    so the fleet must say the lock is not held, and nothing may depend on it.
 * Each ends with 0 PVCs lost or recreated by the simulator's own record, every workspace migrated,
 * restored or needs-attention with its reason, and none reported migrated that is not.
 *
 * Normal suite: 24 workspaces, 3 kills, 1 server restart each. WSMIGRATE_CHAOS_SCALE=full (make
 * bench-reliability): 200 workspaces, 20 kills, 2 restarts. WSMIGRATE_CHAOS_SEED repeats a run.
 */
import { FULL_SCALE, reportFigures } from './fixtures/chaos-report';
import { ChaosFleet, type ChaosFleetRun } from './fixtures/chaos-fleet-run';

const SIZE = FULL_SCALE ? { workspaces: 200, kills: 20, restarts: 2, concurrency: 10 } : { workspaces: 24, kills: 3, restarts: 1, concurrency: 4 };
const TIMEOUT = (FULL_SCALE ? 60 : 12) * 60_000;

function figures(run: ChaosFleetRun): Record<string, unknown> {
  const { result, truth } = run;
  return {
    seed: run.seed,
    workspaces: SIZE.workspaces,
    workerKills: run.kills,
    workerStarts: run.spawns,
    serverRestarts: run.restarts,
    serverDowntimeMs: run.downtimesMs,
    chaosSeconds: run.chaosSeconds,
    totalSeconds: run.totalSeconds,
    summary: result.summary,
    coder: { onTarget: truth.onTarget.length, onOriginal: truth.onOriginal.length, elsewhere: truth.elsewhere.length },
    scan: truth.scan.counts,
    activeVersionLock: result.activeVersionLock?.state ?? 'not asked',
    requireActiveVersionReadBack: run.requireActiveVersionReadBack,
    ...(run.lifecycle ? { lifecycle: run.lifecycle } : {}),
    pvcLosses: truth.pvcLosses,
    pvcsReplaced: truth.pvcsReplaced,
    pvcLossDetails: run.pvcLossDetails,
    duplicatePushes: truth.duplicatePushes.length,
    duplicateBuilds: truth.duplicateBuilds.length,
    falseMigrated: run.falseMigrated,
    notMigrated: run.notMigrated.map((f) => `${f.subject} ${f.outcome}: ${f.reason}`),
    notMigratedBuilds: run.notMigratedBuilds,
  };
}

/** The truth checks every variant makes. */
function expectSafe(run: ChaosFleetRun): void {
  const { result, truth } = run;
  const s = result.summary;
  // The chaos really happened, mid-fleet.
  expect(run.kills).toBe(SIZE.kills);
  expect(run.restarts).toBe(SIZE.restarts);
  expect(result.phase).toBe('done');
  // Every workspace migrated, restored or needs-attention, each one not migrated with its reason.
  expect(s.failed + s.skipped).toBe(0);
  expect(s.migrated + s.alreadyMigrated + s.restored + s.needsAttention).toBe(SIZE.workspaces);
  expect(run.notMigrated).toHaveLength(s.restored + s.needsAttention);
  for (const f of run.notMigrated) expect(f.reason).toMatch(/\S/);
  // Never a false "migrated": each one is on the new version by Coder's record, its PVC uid kept, and the scan agrees.
  expect(run.falseMigrated).toEqual([]);
  expect(truth.onTarget.length).toBeGreaterThanOrEqual(s.migrated + s.alreadyMigrated);
  // No home volume lost or recreated (the simulator's own record), no state PUT at all.
  expect(run.pvcLossDetails).toEqual([]);
  expect(truth.pvcLosses).toBe(0);
  expect(truth.pvcsReplaced).toBe(0);
  expect(truth.duplicatePushes).toEqual([]);
  // Damaged by the simulator's own record (failed builds, volumes and uids in the cluster and the states): each one reported not migrated.
  expect(truth.simDamaged.filter((w) => !run.notMigrated.some((f) => f.subject === w))).toEqual([]);
}

describe('chaos: the fleet with the lifecycle executor firing', () => {
  const fleet = new ChaosFleet();
  afterAll(async () => fleet.close());

  it(`${SIZE.workspaces} workspaces, a third with autostart/autostop, ${SIZE.kills} worker kills, ${SIZE.restarts} server restart(s): 0 PVCs lost, every workspace migrated, restored or needs-attention with its reason, none falsely migrated`, async () => {
    const run = await fleet.run({ size: SIZE, lifecycle: { every: 3, intervalMs: 1000, aheadMs: 10 * 60_000 }, ...(FULL_SCALE ? {} : { settleMinutes: 4 }) });
    reportFigures('chaos-fleet-lifecycle', figures(run));
    // The executor really fired while workspaces migrated.
    expect(run.lifecycle?.autobuildsDuringFleet).toBeGreaterThan(0);
    expectSafe(run);
  }, TIMEOUT);
});

describe('chaos: the fleet on an AGPL Coder (require_active_version ignored)', () => {
  const fleet = new ChaosFleet();
  afterAll(async () => fleet.close());

  it(`${SIZE.workspaces} workspaces, ${SIZE.kills} worker kills, ${SIZE.restarts} server restart(s) on AGPL: the lock reported not held, 0 PVCs lost, every workspace migrated or restored, summary = Coder's count`, async () => {
    const run = await fleet.run({ size: SIZE, licence: 'agpl' });
    reportFigures('chaos-fleet-agpl', figures(run));
    const { result, truth } = run;
    const s = result.summary;
    // The fleet asked, Coder answered 200 and read back false: the fleet says so.
    expect(result.activeVersionLock?.state).toBe('not-held');
    expect(run.requireActiveVersionReadBack).toBe(false);
    expect(result.note).toMatch(/require active version does not hold/);
    expectSafe(run);
    // Nobody else builds here, so as on Premium: migrated or restored, and the summary is Coder's count.
    expect(s.needsAttention).toBe(0);
    expect(truth.elsewhere).toEqual([]);
    expect(truth.onTarget).toHaveLength(s.migrated + s.alreadyMigrated);
    expect(truth.onOriginal).toHaveLength(s.restored);
    expect(truth.duplicateBuilds).toEqual([]);
    expect(truth.simDamaged).toEqual([]);
  }, TIMEOUT);
});
