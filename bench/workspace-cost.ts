/**
 * What one migrateWorkspace costs the machine: history events per workspace and CPU seconds per
 * workspace (Temporal dev server + worker), for one workspace alone and N started at once.
 *
 *   node -r @swc-node/register bench/workspace-cost.ts [--workspaces 50] [--build-ms 500] [--option A|B]
 *
 * The Coder simulator runs in its own process (its CPU is Coder's, not ours); the worker runs in
 * this one, with the production worker options (createWsmigrateWorker), so "worker CPU" is this
 * process's CPU during the batch. Server CPU is read from /proc for the dev server's process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createFileBlobStore } from '../src/adapters/blob-store';
import { CoderClient } from '../src/adapters/coder';
import { startDevServer } from '../src/adapters/temporal-dev-server';
import { startTemplateMigration, startWorkspaceMigration } from '../src/client/migrations';
import { temporalCliPath } from '../src/config/tools';
import { createWsmigrateWorker } from '../src/worker/create-worker';
import type { TemplateMigrationResult } from '../src/contracts/migrate-template';
import type { WorkspaceMigrationResult } from '../src/contracts/migrate-workspace';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const N = Number(option('workspaces', '50'));
const BUILD_MS = Number(option('build-ms', '500'));
const OPTION = option('option', 'A') as 'A' | 'B';

/** utime + stime of a process, in seconds (clock ticks of 1/100 s on Linux). */
function processCpu(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function startSimProcess(): Promise<{ url: string; token: string; child: ChildProcess; template: string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, '..', 'src', 'cli', 'main.ts'), 'sim', '--workspaces', String(N + 1), '--port', '0', '--build-latency-ms', String(BUILD_MS), '--seed', '7', '--provisioners', 'unlimited'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)/.exec(out);
      const t = /template: (\S+)/.exec(out);
      if (m && t) resolve({ url: m[1], token: m[2], child, template: t[1] });
    });
  });
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({ temporalBin: temporalCliPath() });
  const sim = await startSimProcess();
  const blobDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bench-blobs-'));
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'bench-workspace-cost';
  const coder = new CoderClient({ url: sim.url, token: sim.token, userAgent: 'wsmigrate-bench' });
  const worker = await createWsmigrateWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    activities: createActivities({ coder, blobs: createFileBlobStore({ dir: blobDir }), notifier: { notify: async () => undefined } }),
  });
  const running = worker.run();
  try {
    const t = (await (await startTemplateMigration(client, { organization: 'coder', template: sim.template, approval: { policy: 'none' } }, { taskQueue })).result()) as TemplateMigrationResult;
    const workspaces = await coder.workspacesOfTemplate(sim.template);
    const migrate = (w: { owner_name: string; name: string }) =>
      startWorkspaceMigration(client, { owner: w.owner_name, workspace: w.name, template: sim.template, targetVersionId: t.versionId, option: OPTION, approval: { policy: 'none' } }, { taskQueue });

    const measure = async (batch: typeof workspaces) => {
      const cpu0 = { server: processCpu(server.process.pid as number), worker: ownCpu(), sim: processCpu(sim.child.pid as number) };
      const t0 = performance.now();
      const handles = await Promise.all(batch.map(migrate));
      const results = (await Promise.all(handles.map((h) => h.result()))) as WorkspaceMigrationResult[];
      const wall = (performance.now() - t0) / 1000;
      const server_ = processCpu(server.process.pid as number) - cpu0.server;
      const worker_ = ownCpu() - cpu0.worker;
      const sim_ = processCpu(sim.child.pid as number) - cpu0.sim;
      const events = await Promise.all(handles.map(async (h) => (await h.fetchHistory()).events?.length ?? 0));
      const outcomes = new Set(results.map((r) => r.outcome));
      return { n: batch.length, wall, server: server_, worker: worker_, sim: sim_, events: events.reduce((a, b) => a + b, 0) / events.length, outcomes: [...outcomes].join(',') };
    };
    const alone = await measure(workspaces.slice(0, 1));
    const batch = await measure(workspaces.slice(1, N + 1));
    console.log(`migrateWorkspace cost: option ${OPTION}, build phases of ${BUILD_MS} ms, simulator in its own process`);
    console.log(`${'run'.padEnd(10)} ${'wall s'.padStart(7)} ${'events/ws'.padStart(9)} ${'server CPU-s/ws'.padStart(15)} ${'worker CPU-s/ws'.padStart(15)} ${'total CPU-s/ws'.padStart(14)} ${'sim CPU-s/ws'.padStart(12)}  outcome`);
    for (const [name, r] of [['alone', alone], [`${batch.n} at once`, batch]] as const) {
      console.log(
        `${name.padEnd(10)} ${r.wall.toFixed(1).padStart(7)} ${r.events.toFixed(1).padStart(9)} ${(r.server / r.n).toFixed(3).padStart(15)} ${(r.worker / r.n).toFixed(3).padStart(15)} ${((r.server + r.worker) / r.n).toFixed(3).padStart(14)} ${(r.sim / r.n).toFixed(3).padStart(12)}  ${r.outcomes}`,
      );
    }
    console.log('sim CPU is the simulated Coder (it plans each build with the real HCL parser); it is not counted in the total.');
    console.log(`efficiency (alone wall ÷ batch wall × ${batch.n} ÷ ${batch.n}): ${(alone.wall / batch.wall).toFixed(2)}; target total CPU-s/ws ≤ 0.15`);
  } finally {
    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    sim.child.kill('SIGTERM');
    await server.stop();
    rmSync(blobDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
