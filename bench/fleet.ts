/**
 * The fleet against the manual runbook, on the real dev server and the simulator (in its own process).
 *
 *   node -r @swc-node/register bench/fleet.ts [--workspaces 1000] [--concurrency 50] [--api-ms 20] [--phases 500,3000] [--sample 3]
 *
 * For each build-phase time: a few workspaces are migrated by the manual runbook's calls in one
 * sequential loop (the same activities, no Temporal), which gives the unavoidable latency of one
 * workspace; then migrateFleet (option B, no gates) migrates the rest at the given concurrency.
 * Printed side by side: ideal time (latency × N ÷ C), wall time, efficiency, the sequential loop's
 * time for N, speedup, CPU seconds per workspace (dev server + worker), worker peak RSS, the fleet's
 * longest run history and history events per workspace.
 *
 * The worker is the product's own, run as production runs it: `node dist/cli/main.js worker` in its
 * own process, with the prebuilt workflow bundle and the NODE_OPTIONS and MALLOC_ARENA_MAX of the
 * Kubernetes Deployment, so its CPU and peak RSS (the kernel's high-water mark) are the worker's alone.
 * Needs `make build` (make bench runs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, Connection } from '@temporalio/client';
import { createActivities } from '../src/activities';
import { createFileBlobStore } from '../src/adapters/blob-store';
import { CoderClient } from '../src/adapters/coder';
import { startDevServer, type DevServer } from '../src/adapters/temporal-dev-server';
import { startFleet } from '../src/client/fleet';
import { startTemplateMigration } from '../src/client/migrations';
import { temporalCliPath } from '../src/config/tools';
import { ensureSearchAttributes } from '../src/worker/ensure-search-attributes';
import { prebuiltWorkflowBundle } from '../src/worker/workflow-bundle';
import type { FleetResult } from '../src/contracts/migrate-fleet';
import type { TemplateMigrationResult } from '../src/contracts/migrate-template';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg('workspaces', '1000'));
const C = Number(arg('concurrency', '50'));
const API_MS = Number(arg('api-ms', '20'));
const PHASES = arg('phases', '500,3000').split(',').map(Number);
const SAMPLE = Number(arg('sample', '3'));

const TICK = 100; // clock ticks per second on Linux, for /proc/<pid>/stat
function procCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime + stime
}

async function startSimProcess(phaseMs: number): Promise<{ child: ChildProcess; url: string; token: string; template: string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'fleet-sim.ts'), '--workspaces', String(N), '--phase-ms', String(phaseMs), '--api-ms', String(API_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { url: string; token: string; template: string }) };
}

const root = join(__dirname, '..');

/** The environment the worker container gets: the image's MALLOC_ARENA_MAX (Dockerfile) and the Deployment's NODE_OPTIONS. */
function deploymentEnv(): Record<string, string> {
  const manifest = readFileSync(join(root, 'deploy', 'kubernetes', 'worker-deployment.yaml'), 'utf8');
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const nodeOptions = /- name: NODE_OPTIONS\n\s+value: ([^\n]+)/.exec(manifest)?.[1];
  const arenas = /^ENV .*\bMALLOC_ARENA_MAX=(\d+)/m.exec(dockerfile)?.[1];
  if (!nodeOptions || !arenas) throw new Error('bench/fleet: NODE_OPTIONS (deploy/kubernetes/worker-deployment.yaml) or MALLOC_ARENA_MAX (Dockerfile) not found');
  return { NODE_OPTIONS: nodeOptions, MALLOC_ARENA_MAX: arenas };
}

/** `wsmigrate worker` from the build, as the Deployment runs it; resolves when it polls. */
async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main) || !prebuiltWorkflowBundle(join(root, 'dist'))) {
    throw new Error('bench/fleet runs the built worker: run `make build` first (make bench does)');
  }
  const child = spawn(process.execPath, [main, 'worker'], { env: { ...process.env, ...deploymentEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (b: Buffer) => {
      log = (log + b.toString()).slice(-4000);
      if (log.includes('polling task queue')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code} before polling:\n${log}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

/** The process's peak resident set so far (VmHWM), in bytes. */
function peakRssBytes(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

interface Row {
  phaseMs: number;
  perWorkspaceS: number;
  idealS: number;
  wallS: number;
  sequentialS: number;
  cpuPerWs: number;
  serverCpuPerWs: number;
  workerCpuPerWs: number;
  peakRssMb: number;
  runs: number;
  longestHistory: number;
  eventsPerWs: number;
  migrated: number;
  failed: number;
}

async function scenario(phaseMs: number): Promise<Row> {
  const server: DevServer = await startDevServer({ temporalBin: temporalCliPath() });
  const sim = await startSimProcess(phaseMs);
  const blobDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bench-blobs-'));
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = 'bench-fleet';
  let worker: ChildProcess | undefined;
  try {
    await ensureSearchAttributes(connection, 'default');
    const client = new Client({ connection, namespace: 'default' });
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const activities = createActivities({ coder, blobs: createFileBlobStore({ dir: blobDir }), notifier: { notify: async () => undefined } });
    worker = await startWorkerProcess({
      CODER_URL: sim.url,
      CODER_SESSION_TOKEN: sim.token,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      WSMIGRATE_TASK_QUEUE: taskQueue,
      WSMIGRATE_BLOB_DIR: blobDir,
      WSMIGRATE_METRICS_PORT: '0',
    });
    const workerPid = worker.pid as number;
    const t = (await (await startTemplateMigration(client, { organization: 'coder', template: sim.template, approval: { policy: 'none' } }, { taskQueue })).result()) as TemplateMigrationResult;

    // The manual runbook: the same calls, one workspace after the other, no Temporal.
    const all = await coder.workspacesOfTemplate(sim.template);
    const sample = all.slice(0, SAMPLE);
    const seqStart = Date.now();
    for (const ws of sample) {
      const subject = `${ws.owner_name}/${ws.name}`;
      const pf = await activities.preflightWorkspace({ owner: ws.owner_name, workspace: ws.name, template: sim.template, targetVersionId: t.versionId, strategy: 'rename' });
      const backup = await activities.backupState({ workspaceId: pf.workspaceId, subject });
      const rewrite = await activities.rewriteState({ subject, backupRef: backup.blob.ref, strategy: 'rename', targetVersionId: t.versionId });
      await activities.verifyMigration({ subject, migratedRef: rewrite.migrated.ref, targetVersionId: t.versionId });
      const start = await activities.buildWithState({
        purpose: 'migrate',
        workspaceId: pf.workspaceId,
        subject,
        transition: pf.prior.transition,
        templateVersionId: t.versionId,
        state: { ref: rewrite.migrated.ref, sha256: rewrite.migrated.sha256 },
        read: { id: backup.buildId, buildNumber: backup.buildNumber, stateSha256: backup.blob.sha256 },
        timeoutMs: 600_000,
      });
      await activities.postBuildCheck({ subject, buildId: start.buildId, backupRef: backup.blob.ref });
    }
    const perWorkspaceS = (Date.now() - seqStart) / 1000 / sample.length;

    const fleetN = N - sample.length;
    const cpu0 = { server: procCpuSeconds(server.process.pid!), worker: procCpuSeconds(workerPid) };
    const t0 = Date.now();
    const handle = await startFleet(
      client,
      { organization: 'coder', template: sim.template, targetVersionId: t.versionId, option: 'B', canary: 0, concurrency: C, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    const wallS = (Date.now() - t0) / 1000;
    const serverCpu = procCpuSeconds(server.process.pid!) - cpu0.server;
    const workerCpu = procCpuSeconds(workerPid) - cpu0.worker;
    const peakRss = peakRssBytes(workerPid);
    let runs = 0;
    let longest = 0;
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) {
      runs++;
      longest = Math.max(longest, (await client.workflow.getHandle(handle.workflowId, wf.runId).fetchHistory()).events?.length ?? 0);
    }
    let childEvents = 0;
    const probe = all.slice(sample.length, sample.length + 20);
    for (const ws of probe) childEvents += (await client.workflow.getHandle(`wsmigrate/${sim.template}/${ws.owner_name}/${ws.name}`).describe()).historyLength;
    const parentEvents = longest * runs; // an upper bound of the fleet's own events

    return {
      phaseMs,
      perWorkspaceS,
      idealS: (perWorkspaceS * fleetN) / C,
      wallS,
      sequentialS: perWorkspaceS * fleetN,
      cpuPerWs: (serverCpu + workerCpu) / fleetN,
      serverCpuPerWs: serverCpu / fleetN,
      workerCpuPerWs: workerCpu / fleetN,
      peakRssMb: peakRss / 1024 / 1024,
      runs,
      longestHistory: longest,
      eventsPerWs: childEvents / Math.max(1, probe.length) + parentEvents / fleetN,
      migrated: result.summary.migrated,
      failed: result.summary.failed + result.summary.needsAttention + result.summary.restored,
    };
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await connection.close();
    sim.child.kill('SIGTERM');
    await server.stop();
    rmSync(blobDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  process.stdout.write(`fleet bench: ${N} workspaces, concurrency ${C}, ${API_MS} ms per Coder call, sequential sample of ${SAMPLE}\n`);
  const rows: Row[] = [];
  for (const phase of PHASES) {
    rows.push(await scenario(phase));
    process.stdout.write(`  build phase ${phase} ms done\n`);
  }
  const f = (n: number, d = 1) => n.toFixed(d);
  const head = ['build phase', 'per ws (seq)', 'ideal', 'fleet wall', 'efficiency', 'sequential', 'speedup', 'CPU-s/ws (srv+wrk)', 'peak RSS', 'runs', 'longest history', 'events/ws', 'migrated', 'not ok'];
  const lines = rows.map((r) => [
    `${r.phaseMs} ms`,
    `${f(r.perWorkspaceS, 2)} s`,
    `${f(r.idealS)} s`,
    `${f(r.wallS)} s`,
    f(r.idealS / r.wallS, 2),
    `${f(r.sequentialS)} s`,
    `${f(r.sequentialS / r.wallS)}×`,
    `${f(r.cpuPerWs, 3)} (${f(r.serverCpuPerWs, 3)}+${f(r.workerCpuPerWs, 3)})`,
    `${f(r.peakRssMb, 0)} MB`,
    String(r.runs),
    String(r.longestHistory),
    f(r.eventsPerWs, 1),
    String(r.migrated),
    String(r.failed),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  for (const l of [head, ...lines]) process.stdout.write(`${l.map((c, i) => c.padEnd(widths[i])).join('  ')}\n`);
  process.stdout.write('targets: efficiency ≥ 0.8, speedup ≥ 40×, peak RSS ≤ 400 MB, CPU ≤ 0.15 s per workspace, every run\'s history < 10,000 events\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
