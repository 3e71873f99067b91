import type { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkflowFailedError } from '@temporalio/client';
import type { Notification } from '../../activities/ports';
import type { WorkspaceMigrationResult } from '../../workflows/migrate-workspace';
import type { TemplateMigrationResult } from '../../workflows/migrate-template';
import type { CliIo } from '../io';

interface DemoOptions {
  workspaces: string;
  port: string;
  uiPort: string;
  simPort: string;
  dir: string;
  exitWhenDone: boolean;
  concurrency: string;
}

/**
 * The whole product on one machine: a Temporal dev server with its Web UI, the Coder simulator and
 * a worker; then the template is migrated, one canary workspace waits for (and gets) an approval,
 * and the rest follow, each checked for an unchanged PVC uid.
 */
async function runDemo(io: CliIo, o: DemoOptions): Promise<void> {
  // Loaded here, not at the top: `wsmigrate --help` and the offline commands must not pay for the Temporal SDK.
  const { Client, Connection } = await import('@temporalio/client');
  const { NativeConnection } = await import('@temporalio/worker');
  const { createActivities } = await import('../../activities');
  const { createFileBlobStore } = await import('../../adapters/blob-store');
  const { CoderClient } = await import('../../adapters/coder');
  const { startDevServer } = await import('../../adapters/temporal-dev-server');
  const { decide, startTemplateMigration, startWorkspaceMigration } = await import('../../client/migrations');
  const { temporalCliPath } = await import('../../config/tools');
  const { startSimulator } = await import('../../sim');
  const { createWsmigrateWorker } = await import('../../worker/create-worker');
  const { ensureSearchAttributes } = await import('../../worker/ensure-search-attributes');
  const { installRuntime } = await import('../../worker/run-worker');
  const { loadConfig } = await import('../../config/env');
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  installRuntime({ ...loadConfig({ WSMIGRATE_LOG_LEVEL: 'warn', WSMIGRATE_METRICS_PORT: '0' }) });
  io.out('starting the Temporal dev server (SQLite, Web UI) …');
  const server = await startDevServer({ temporalBin: temporalCliPath(), port: Number(o.port), uiPort: Number(o.uiPort), dbFile: join(dir, 'temporal.db') });
  const sim = await startSimulator({ workspaces: Number(o.workspaces), port: Number(o.simPort), buildLatencyMs: 150 });
  const cleanup: (() => Promise<unknown>)[] = [() => server.stop(), () => sim.close()];
  try {
    io.out(`Temporal Web UI:  ${server.uiUrl}`);
    io.out(`Temporal gRPC:    ${server.address}`);
    io.out(`Coder simulator:  ${sim.url}  (${o.workspaces} workspaces on template '${sim.template.name}')`);
    const connection = await Connection.connect({ address: server.address });
    cleanup.unshift(() => connection.close());
    await ensureSearchAttributes(connection, 'default');
    const client = new Client({ connection, namespace: 'default' });
    const native = await NativeConnection.connect({ address: server.address });
    const taskQueue = 'wsmigrate-demo';
    const notes: Notification[] = [];
    const worker = await createWsmigrateWorker({
      connection: native,
      namespace: 'default',
      taskQueue,
      activities: createActivities({
        coder: new CoderClient({ url: sim.url, token: sim.token, userAgent: 'wsmigrate-demo' }),
        blobs: createFileBlobStore({ dir: join(dir, 'blobs') }),
        notifier: { notify: async (n) => void notes.push(n) },
      }),
    });
    const running = worker.run();
    cleanup.unshift(async () => {
      worker.shutdown();
      await running;
      await native.close();
    });
    io.out(`worker polling task queue '${taskQueue}'\n`);

    io.out(`1. migrateTemplate coder/${sim.template.name}: rewrite to _v1 types + removed{} guards, push, promote`);
    const tHandle = await startTemplateMigration(client, { organization: 'coder', template: sim.template.name, approval: { policy: 'none' } }, { taskQueue });
    const t = (await tHandle.result()) as TemplateMigrationResult;
    io.out(`   ${t.outcome}: version ${t.versionName} (${t.versionId}); ${t.report.renamedCount} references renamed; guards for ${t.report.guards.join(', ')}`);

    const workspaces = sim.workspaces();
    const pvcUid = (w: (typeof workspaces)[number]) => sim.cluster.objects().find((x) => x.kind === 'PersistentVolumeClaim' && x.name.includes(w.id))?.uid;
    const pvcBefore = new Map(workspaces.map((w) => [w.id, pvcUid(w)]));
    const migrate = async (w: (typeof workspaces)[number], option: 'A' | 'B', policy: 'destructive' | 'none') =>
      startWorkspaceMigration(
        client,
        { owner: w.owner, workspace: w.name, template: sim.template.name, targetVersionId: t.versionId, option, approval: { policy, approvers: ['demo-sre'] } },
        { taskQueue },
      );
    const outcomes = new Map<string, string>();
    const record = async (w: (typeof workspaces)[number], result: Promise<unknown>) => {
      try {
        outcomes.set(w.id, ((await result) as WorkspaceMigrationResult).outcome);
      } catch (err) {
        outcomes.set(w.id, `failed: ${(err as WorkflowFailedError).cause?.message ?? (err as Error).message}`);
      }
    };

    const [canary, ...rest] = workspaces;
    io.out(`\n2. canary ${canary.owner}/${canary.name} (option A, approval required)`);
    const cHandle = await migrate(canary, 'A', 'destructive');
    for (;;) {
      const pending = notes.find((n) => n.kind === 'approval-requested' && n.workflowId === cHandle.workflowId);
      if (pending) {
        io.out(`   waiting for approval: ${pending.text}`);
        io.out(`   (the demo approves as demo-sre; by hand: wsmigrate approve ${cHandle.workflowId} --approver demo-sre)`);
        await decide(client, cHandle.workflowId, 'approve', { approver: 'demo-sre', comment: 'demo canary looks right' });
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await record(canary, cHandle.result());

    io.out(`\n3. the other ${rest.length} workspaces, ${o.concurrency} at a time, options A and B alternating, no approval`);
    const queue = rest.map((w, i) => ({ w, option: i % 2 ? ('B' as const) : ('A' as const) }));
    const lanes = Array.from({ length: Number(o.concurrency) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await record(next.w, migrate(next.w, next.option, 'none').then((h) => h.result()));
      }
    });
    await Promise.all(lanes);

    io.out('\nworkspace                         outcome    PVC uid kept');
    for (const w of workspaces) {
      io.out(`${`${w.owner}/${w.name}`.padEnd(33)} ${(outcomes.get(w.id) ?? '?').padEnd(10)} ${pvcBefore.get(w.id) === pvcUid(w) ? 'yes' : 'NO'}`);
    }
    io.out(`\nPVCs lost: ${sim.cluster.pvcLosses().length}`);
    io.out(`Browse every step, approval and compensation in the Web UI: ${server.uiUrl}`);
    if (o.exitWhenDone) return;
    io.out('Running until Ctrl-C (the simulator keeps answering at ' + sim.url + ').');
    await new Promise<void>((r) => {
      process.once('SIGINT', r);
      process.once('SIGTERM', r);
    });
  } finally {
    for (const c of cleanup) await c().catch(() => undefined);
  }
}

export function registerDemoCommands(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('run everything locally: Temporal dev server + Web UI, the Coder simulator, a worker, and a full migration of a small fleet')
    .option('--workspaces <n>', 'simulated workspaces', '6')
    .option('--port <port>', 'Temporal gRPC port', '7233')
    .option('--ui-port <port>', 'Temporal Web UI port', '8233')
    .option('--sim-port <port>', 'Coder simulator port (0 = any free port)', '0')
    .option('--concurrency <n>', 'workspaces migrated at once after the canary', '3')
    .option('--dir <path>', 'where the demo keeps its Temporal database and state backups', '.wsmigrate/demo')
    .option('--exit-when-done', 'stop everything after the migration instead of waiting for Ctrl-C', false)
    .addHelpText('after', '\nThen open http://127.0.0.1:8233 to see each workflow, its history, approvals and search attributes.')
    .action((o: DemoOptions) => runDemo(io, o));
}
