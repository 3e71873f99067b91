/**
 * Chaos on a real Temporal dev server (its own, with a SQLite file, so it can be stopped and started
 * again on the same port and database) and the Coder simulator: a fleet runs on two worker processes
 * sharing one blob store; workers are SIGKILLed at random moments and replaced, and the server is
 * stopped and restarted. Afterwards Coder's own state must show every workspace migrated or
 * restored, no PVC lost, nothing pushed or built twice, and the fleet's summary must match.
 *
 * Normal suite: 24 workspaces, 3 kills, 1 server restart. WSMIGRATE_CHAOS_SCALE=full (make
 * bench-reliability): 200 workspaces, 20 kills, 2 restarts. WSMIGRATE_CHAOS_SEED repeats a run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { CoderClient } from '../../src/adapters/coder';
import { freeLoopbackPort, startDevServer, type DevServer } from '../../src/adapters/temporal-dev-server';
import { startFleet } from '../../src/client/fleet';
import { temporalCliPath } from '../../src/config/tools';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { defaultWorkflowsPath } from '../../src/worker/create-worker';
import { migrationStatus } from '../../src/client/migrations';
import type { FleetProgress, FleetResult } from '../../src/workflows/migrate-fleet';
import { chaosSeed, FULL_SCALE, reportFigures, seededRandom } from './fixtures/chaos-report';
import { fleetTruth, pvcUids } from './fixtures/fleet-checks';
import { WorkerPool } from './fixtures/worker-pool';

const SIZE = FULL_SCALE ? { workspaces: 200, kills: 20, restarts: 2, concurrency: 10 } : { workspaces: 24, kills: 3, restarts: 1, concurrency: 4 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('chaos: a fleet through worker SIGKILLs and Temporal server restarts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-chaos-'));
  const dbFile = join(dir, 'temporal.db');
  const blobDir = join(dir, 'blobs');
  let port: number;
  let server: DevServer | undefined;
  let sim: CoderSimulator;
  let pool: WorkerPool | undefined;
  let connection: Connection | undefined;

  afterAll(async () => {
    await pool?.stop();
    await connection?.close().catch(() => undefined);
    await server?.stop();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${SIZE.workspaces} workspaces, ${SIZE.kills} worker kills, ${SIZE.restarts} server restart(s): every workspace migrated or restored, 0 PVCs lost, nothing twice, summary = Coder's count`, async () => {
    const seed = chaosSeed();
    const rnd = seededRandom(seed);
    const started = Date.now();
    port = await freeLoopbackPort();
    server = await startDevServer({ temporalBin: temporalCliPath(), port, dbFile });
    // Builds of ~1 s each, so kills land while workers wait on builds as well as between steps.
    sim = await startSimulator({ workspaces: SIZE.workspaces, buildLatencyMs: 300, seed });
    const coder = new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    const originalVersionId = sim.template.activeVersionId;
    const uidsBefore = pvcUids(sim);

    const bundlePath = join(dir, 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflowCode({ workflowsPath: defaultWorkflowsPath(), logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } })).code);
    const taskQueue = 'chaos';
    pool = new WorkerPool({
      size: 2,
      env: { TASK_QUEUE: taskQueue, SIM_URL: sim.url, SIM_TOKEN: sim.token, BLOB_DIR: blobDir, TEMPORAL_ADDRESS: server.address, WORKFLOW_BUNDLE: bundlePath },
    });
    pool.start();
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    const handle = await startFleet(
      client,
      {
        organization: 'coder',
        template: sim.template.name,
        canary: 0,
        concurrency: SIZE.concurrency,
        archiveOldVersions: false,
        approval: { policy: 'none' },
        failureBudget: { percent: 100, min: 10_000 },
        heartbeatTimeout: '10s',
      },
      { taskQueue },
    );

    // The chaos: a kill every 2–6 s while the fleet runs; the server restarts spread among the kills.
    const restartAfterKill = Array.from({ length: SIZE.restarts }, (_, i) => Math.ceil(((i + 1) * SIZE.kills) / (SIZE.restarts + 1)));
    let restarts = 0;
    const downtimesMs: number[] = [];
    const closed = async () => {
      try {
        const d = await handle.describe();
        return d.status.name !== 'RUNNING';
      } catch {
        return false; // the server is restarting
      }
    };
    // Only while workspaces migrate (not during the template child), so every kill hits the fleet.
    const migrating = async () => {
      try {
        const p = (await migrationStatus(client, handle.workflowId)) as FleetProgress;
        return p.stage === 'rolling' && p.running.length > 0;
      } catch {
        return false;
      }
    };
    while (pool.kills < SIZE.kills || restarts < SIZE.restarts) {
      if (await closed()) break;
      await sleep(1500 + rnd() * 3000);
      if (!(await migrating())) continue;
      if (!(await pool.killOne(rnd))) continue; // both workers still starting
      if (restartAfterKill[restarts] === pool.kills) {
        const down = Date.now();
        await server.stop();
        await sleep(1000 + rnd() * 2000);
        server = await startDevServer({ temporalBin: temporalCliPath(), port, dbFile });
        downtimesMs.push(Date.now() - down);
        restarts++;
      }
    }
    const chaosEndedAt = Date.now();
    const deadline = Date.now() + (FULL_SCALE ? 40 : 8) * 60_000;
    while (!(await closed())) {
      if (Date.now() > deadline) throw new Error(`fleet still running after the chaos; recent worker output:\n${pool.recentOutput()}`);
      await sleep(1000);
    }
    const result = (await handle.result()) as FleetResult;
    const targetVersionId = result.targetVersionId as string;
    const truth = await fleetTruth(sim, coder, { targetVersionId, originalVersionId, uidsBefore });
    const s = result.summary;
    reportFigures('chaos-fleet', {
      seed,
      workspaces: SIZE.workspaces,
      workerKills: pool.kills,
      workerStarts: pool.spawns,
      serverRestarts: restarts,
      serverDowntimeMs: downtimesMs,
      chaosSeconds: Math.round((chaosEndedAt - started) / 1000),
      totalSeconds: Math.round((Date.now() - started) / 1000),
      summary: s,
      coder: { onTarget: truth.onTarget.length, onOriginal: truth.onOriginal.length, elsewhere: truth.elsewhere.length },
      scan: truth.scan.counts,
      pvcLosses: truth.pvcLosses,
      pvcsReplaced: truth.pvcsReplaced,
      duplicatePushes: truth.duplicatePushes.length,
      duplicateBuilds: truth.duplicateBuilds.length,
    });

    // The chaos really happened, mid-fleet.
    expect(pool.kills).toBe(SIZE.kills);
    expect(restarts).toBe(SIZE.restarts);
    // Every workspace migrated or restored; the fleet's summary is Coder's own count.
    expect(result.phase).toBe('done');
    expect(s.failed + s.needsAttention + s.skipped).toBe(0);
    expect(s.migrated + s.alreadyMigrated + s.restored).toBe(SIZE.workspaces);
    expect(truth.elsewhere).toEqual([]);
    expect(truth.onTarget).toHaveLength(s.migrated + s.alreadyMigrated);
    expect(truth.onOriginal).toHaveLength(s.restored);
    expect(truth.scan.counts.migrated).toBe(s.migrated + s.alreadyMigrated);
    expect(truth.scan.counts.damaged).toBe(0);
    // No home volume lost or recreated; nothing pushed or built twice.
    expect(truth.pvcLosses).toBe(0);
    expect(truth.pvcsReplaced).toBe(0);
    expect(truth.duplicatePushes).toEqual([]);
    expect(truth.duplicateBuilds).toEqual([]);
  }, (FULL_SCALE ? 60 : 12) * 60_000);
});
