// The demo's body, loaded only when `wsmigrate demo` runs (it pulls in the Temporal SDK, the worker and the simulator).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { Notification } from '../../ports/notifier';
import { createFileBlobStore } from '../../adapters/blob-store';
import { CoderClient } from '../../adapters/coder';
import { startDevServer } from '../../adapters/temporal-dev-server';
import { decide } from '../../client/approvals';
import { fleetStatus, startFleet } from '../../client/fleet';
import { templateWorkflowId } from '../../domain/migration-input';
import type { FleetResult } from '../../contracts/migrate-fleet';
import { progressBar, progressLine, summaryTable } from '../fleet-render';
import { processIo } from '../io';
import { temporalCliPath } from '../../config/tools';
import { startSimulator } from '../../sim';
import { pacingPlanText } from '../../domain/provisioner-pacing';
import { createWsmigrateWorker } from '../../worker/create-worker';
import { ensureSearchAttributes } from '../../worker/ensure-search-attributes';
import { installRuntime } from '../../worker/run-worker';
import { DEFAULTS, loadConfig } from '../../config/env';
import type { CliIo } from '../io';

/** Where `wsmigrate` connects when TEMPORAL_ADDRESS is not set (config/env.ts DEFAULTS). */
const DEFAULT_TEMPORAL_ADDRESS = DEFAULTS.TEMPORAL_ADDRESS;

const DEMO_DAEMONS = 20;
/** The fleet's share of those daemons (the fleet's default, passed so the narration says what runs). */
const DEMO_SHARE = 0.5;

export interface DemoOptions {
  workspaces: string;
  port: string;
  uiPort: string;
  simPort: string;
  dir: string;
  exitWhenDone: boolean;
  concurrency: string;
  canary: string;
  interactive: boolean;
  zeroTouch?: boolean;
}

/**
 * Follows the fleet: a progress bar on a terminal (plain lines otherwise) and every gate it meets,
 * the template's promote, the canary's `fleet-continue` and the archive: the demo approves each as
 * demo-sre, or with --interactive waits for a person (CLI or Web UI).
 */
async function followDemoFleet(client: Client, io: CliIo, fleetId: string, templateId: string, interactive: boolean, temporalAddress: string): Promise<FleetResult> {
  // The command a person pastes into another shell must reach this demo's Temporal, not whatever the default address serves.
  const reach = temporalAddress === DEFAULT_TEMPORAL_ADDRESS ? '' : `TEMPORAL_ADDRESS=${temporalAddress} `;
  const tty = io === processIo && Boolean(process.stdout.isTTY);
  const seen = new Set<string>();
  let lastLine = '';
  for (;;) {
    const s = await fleetStatus(client, fleetId);
    if (s.unanswered) {
      // Its in-process worker has not polled yet: the fleet has not ended, it waits for it.
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    if (!s.progress) {
      if (tty) process.stdout.write('\n');
      if (!s.result) throw new Error(`the fleet ended ${s.phase}: ${s.error ?? ''}`);
      return s.result;
    }
    const p = s.progress;
    const gates = [
      ...(p.pendingApproval ? [{ id: fleetId, gate: p.pendingApproval.gateId, key: `${fleetId}:${p.pendingApproval.planHash}`, summary: p.pendingApproval.summary }] : []),
      ...p.childApprovals.filter((a) => a.workflowId === templateId).map((a) => ({ id: a.workflowId, gate: a.gateId, key: `${a.workflowId}:${a.gateId}:${a.since}`, summary: a.summary ?? '' })),
    ];
    for (const g of gates) {
      if (seen.has(g.key)) continue;
      seen.add(g.key);
      if (tty) process.stdout.write('\n');
      io.out(`waiting for approval of '${g.gate}': ${g.summary}`);
      io.out(`   by hand: ${reach}wsmigrate approve ${g.id} --approver demo-sre   (or in the Web UI: signal 'approval')`);
      if (!interactive) {
        await decide(client, g.id, 'approve', { approver: 'demo-sre', comment: 'approved by the demo' });
        io.out(`   approved '${g.gate}' as demo-sre`);
      }
    }
    if (tty) process.stdout.write(`\r\x1b[2K${progressBar(p, undefined, s.waitingOn ?? [])}`);
    else {
      const line = progressLine(p, s.waitingOn ?? []);
      if (line !== lastLine) io.out(`   ${line}`);
      lastLine = line;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The whole product on one machine: a Temporal dev server with its Web UI, the Coder simulator and
 * a worker; then the product's own migrateFleet migrates the template and every workspace (canary,
 * gate, sliding window), and the demo shows each PVC uid kept.
 */
export async function runDemo(io: CliIo, o: DemoOptions): Promise<void> {
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  installRuntime({ ...loadConfig({ WSMIGRATE_LOG_LEVEL: 'warn', WSMIGRATE_METRICS_PORT: '0' }) });
  io.out('starting the Temporal dev server (SQLite, Web UI) …');
  const server = await startDevServer({ temporalBin: temporalCliPath(), port: Number(o.port), uiPort: Number(o.uiPort), dbFile: join(dir, 'temporal.db') });
  // Provisioner daemons as a real Coder has them, so the fleet paces itself by them (half of 20: a window of 10).
  const sim = await startSimulator({ workspaces: Number(o.workspaces), port: Number(o.simPort), buildLatencyMs: 150, provisioners: DEMO_DAEMONS });
  const cleanup: (() => Promise<unknown>)[] = [() => server.stop(), () => sim.close()];
  try {
    io.out(`Temporal Web UI:  ${server.uiUrl}`);
    io.out(`Temporal gRPC:    ${server.address}`);
    io.out(`Coder simulator:  ${sim.url}  (${o.workspaces} workspaces on template '${sim.template.name}', ${DEMO_DAEMONS} provisioner daemons)`);
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

    const template = sim.template.name;
    const workspaces = sim.workspaces();
    const pvcUid = (w: (typeof workspaces)[number]) => sim.cluster.objects().find((x) => x.kind === 'PersistentVolumeClaim' && x.name.includes(w.id))?.uid;
    const pvcBefore = new Map(workspaces.map((w) => [w.id, pvcUid(w)]));

    const coder = new CoderClient({ url: sim.url, token: sim.token, userAgent: 'wsmigrate-demo' });
    // Zero-touch: a third of the fleet is stopped, to show workspaces migrating themselves at their owner's next start.
    const stoppedByOwners = o.zeroTouch ? workspaces.filter((_, i) => i % 3 === 2) : [];
    for (const w of stoppedByOwners) await coder.waitForBuild((await coder.createWorkspaceBuild(w.id, { transition: 'stop' })).id, { timeoutMs: 60_000 });
    if (o.zeroTouch) {
      io.out(`migrateFleet coder/${template} --zero-touch: the template first (rewrite to _v1 + removed{destroy=false} + an import per resource`);
      io.out(`driven by a kubernetes_resources lookup, push, promote); then only a pinned start per running workspace and its health check.`);
      io.out(`${stoppedByOwners.length} stopped workspace(s) are left alone: they migrate themselves when their owners start them.`);
    } else {
      io.out(`migrateFleet coder/${template}: the template first (rewrite to _v1 + removed{} guards, push, promote),`);
      io.out(`then a canary of ${o.canary}, the 'fleet-continue' gate, and the rest ${pacingPlanText({ daemons: DEMO_DAEMONS, share: DEMO_SHARE, concurrency: Number(o.concurrency) })};`);
      io.out(`at the end the old version is archived.`);
    }
    const fleet = await startFleet(
      client,
      {
        organization: 'coder',
        template,
        canary: Number(o.canary),
        concurrency: Number(o.concurrency),
        provisionerShare: DEMO_SHARE,
        approval: { policy: 'destructive', approvers: ['demo-sre'] },
        ...(o.zeroTouch ? { zeroTouch: true } : {}),
      },
      { taskQueue },
    );
    io.out(`   ${fleet.workflowId}  (Web UI: ${server.uiUrl}/namespaces/default/workflows)\n`);
    const result = await followDemoFleet(client, io, fleet.workflowId, templateWorkflowId('coder', template), Boolean(o.interactive), server.address);

    io.out('');
    io.out(summaryTable(result));
    const outcomes = new Map<string, string>(result.failures.map((f) => [f.subject, f.outcome]));
    if (result.zeroTouch) {
      for (const s of result.zeroTouch.migratedByRunbook) outcomes.set(s, 'pinned start');
      const waiting = workspaces.filter((w) => result.zeroTouch?.waitingForBuild.includes(`${w.owner}/${w.name}`));
      if (waiting.length) io.out(`\nthe owners of the ${waiting.length} stopped workspace(s) start them on the active (zero-touch) version: each imports its own objects`);
      const active = (await coder.template(sim.template.id)).active_version_id;
      for (const w of waiting) {
        const build = await coder.waitForBuild((await coder.createWorkspaceBuild(w.id, { transition: 'start', template_version_id: active })).id, { timeoutMs: 60_000 });
        outcomes.set(`${w.owner}/${w.name}`, build.job.status === 'succeeded' ? 'migrated itself' : `build ${build.job.status}`);
      }
    }
    io.out('\nworkspace                         outcome           PVC uid before -> after');
    const failedBy = outcomes;
    for (const w of workspaces) {
      const before = pvcBefore.get(w.id);
      const after = pvcUid(w);
      // Only a workspace on the target version is migrated; a cancel or a limit leaves the rest untouched.
      const onTarget = result.targetVersionId !== undefined && (await coder.workspace(w.id)).latest_build.template_version_id === result.targetVersionId;
      const outcome = failedBy.get(`${w.owner}/${w.name}`) ?? (onTarget ? 'migrated' : 'not started');
      io.out(`${`${w.owner}/${w.name}`.padEnd(33)} ${outcome.padEnd(17)} ${before ?? '?'} -> ${after === before ? 'kept' : (after ?? 'LOST')}`);
    }
    io.out(`\nPVCs lost: ${sim.cluster.pvcLosses().length}`);
    const statePuts = sim.requestLog().filter((r) => r.method === 'PUT' && /\/workspacebuilds\/[^/]+\/state$/.test(r.path)).length;
    // The no-window flow, checked on Coder's own request log: never a state written apart from the build that pins the new version.
    io.out(`State PUTs: ${statePuts} (each migrated state travelled inside the one build that pinned the new version: Coder never held a _v1 state under an old version)`);
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
