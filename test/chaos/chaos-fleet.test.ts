/**
 * Chaos on a real Temporal dev server (its own, with a SQLite file, so it can be stopped and started
 * again on the same port and database) and the Coder simulator: a fleet runs on two worker processes
 * sharing one blob store; workers are SIGKILLed at random moments and replaced, and the server is
 * stopped and restarted. Afterwards Coder's own state must show every workspace migrated or
 * restored, no PVC lost, nothing pushed or built twice, and the fleet's summary must match.
 *
 * Normal suite: 24 workspaces, 3 kills, 1 server restart. WSMIGRATE_CHAOS_SCALE=full (make
 * bench-reliability): 200 workspaces, 20 kills, 2 restarts. WSMIGRATE_CHAOS_SEED repeats a run.
 * The same fleet with the lifecycle executor firing and on AGPL: chaos-fleet-variants.test.ts.
 */
import { FULL_SCALE, reportFigures } from './fixtures/chaos-report';
import { ChaosFleet } from './fixtures/chaos-fleet-run';

const SIZE = FULL_SCALE ? { workspaces: 200, kills: 20, restarts: 2, concurrency: 10 } : { workspaces: 24, kills: 3, restarts: 1, concurrency: 4 };

describe('chaos: a fleet through worker SIGKILLs and Temporal server restarts', () => {
  const fleet = new ChaosFleet();
  afterAll(async () => fleet.close());

  it(`${SIZE.workspaces} workspaces, ${SIZE.kills} worker kills, ${SIZE.restarts} server restart(s): every workspace migrated or restored, 0 PVCs lost, nothing twice, summary = Coder's count`, async () => {
    const run = await fleet.run({ size: SIZE });
    const { result, truth } = run;
    const s = result.summary;
    reportFigures('chaos-fleet', {
      seed: run.seed,
      workspaces: SIZE.workspaces,
      workerKills: run.kills,
      workerStarts: run.spawns,
      serverRestarts: run.restarts,
      serverDowntimeMs: run.downtimesMs,
      chaosSeconds: run.chaosSeconds,
      totalSeconds: run.totalSeconds,
      summary: s,
      coder: { onTarget: truth.onTarget.length, onOriginal: truth.onOriginal.length, elsewhere: truth.elsewhere.length },
      scan: truth.scan.counts,
      pvcLosses: truth.pvcLosses,
      pvcsReplaced: truth.pvcsReplaced,
      duplicatePushes: truth.duplicatePushes.length,
      duplicateBuilds: truth.duplicateBuilds.length,
    });

    // The chaos really happened, mid-fleet.
    expect(run.kills).toBe(SIZE.kills);
    expect(run.restarts).toBe(SIZE.restarts);
    // Every workspace migrated or restored; the fleet's summary is Coder's own count.
    expect(result.phase).toBe('done');
    expect(s.failed + s.needsAttention + s.skipped).toBe(0);
    expect(s.migrated + s.alreadyMigrated + s.restored).toBe(SIZE.workspaces);
    expect(truth.elsewhere).toEqual([]);
    expect(truth.onTarget).toHaveLength(s.migrated + s.alreadyMigrated);
    expect(truth.onOriginal).toHaveLength(s.restored);
    expect(truth.scan.counts.migrated).toBe(s.migrated + s.alreadyMigrated);
    expect(truth.scan.counts.damaged).toBe(0);
    // The same by the simulator's own record (failed builds, the cluster's volumes and uids, the states), not the scan's reading.
    expect(truth.simDamaged).toEqual([]);
    expect(run.falseMigrated).toEqual([]);
    // No home volume lost or recreated; nothing pushed or built twice.
    expect(truth.pvcLosses).toBe(0);
    expect(truth.pvcsReplaced).toBe(0);
    expect(truth.duplicatePushes).toEqual([]);
    expect(truth.duplicateBuilds).toEqual([]);
  }, (FULL_SCALE ? 60 : 12) * 60_000);
});
