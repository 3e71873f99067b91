/**
 * Paced fleets against Coder's provisioners, side by side in one run:
 *   (a) --concurrency C without pacing, (b) paced with share 1, (c) paced with share 0.5,
 * each on a fresh dev server and simulator with D daemons, N workspaces, build phases of P ms and
 * a stream of users' builds (one every U ms) on another template sharing the daemons.
 *
 *   node -r @swc-node/register bench/fleet-paced.ts [--workspaces 200] [--daemons 5] [--phase-ms 500] [--user-every-ms 2000] [--concurrency 50] [--build-timeout 30s]
 *     [--scenarios a,b,c] [--show-history]
 *
 * Printed per scenario: wall time ÷ the provisioner-bound limit (the fleet's total build run time ÷
 * D; and ÷ the same bound counting the users' builds run during the fleet, which no fleet can beat), the users' queue wait p50/p95 in build-times, build timeouts, history events and billable
 * actions per migrated workspace (as Temporal Cloud counts them: workflow and child starts,
 * activities including local ones, signals, timers, search-attribute upserts, updates; heartbeats
 * are not in histories and are left out), and the CPU (dev server + worker) per workspace as a
 * ratio to a bare Temporal workflow per workspace making the same number of no-op activity calls
 * and child starts, measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { createFileBlobStore } from '../src/adapters/blob-store';
import { CoderClient, type WorkspaceBuild } from '../src/adapters/coder';
import { startDevServer, type DevServer } from '../src/adapters/temporal-dev-server';
import { startFleet } from '../src/client/fleet';
import { startTemplateMigration } from '../src/client/migrations';
import { temporalCliPath } from '../src/config/tools';
import { createWsmigrateWorker } from '../src/worker/create-worker';
import { ensureSearchAttributes } from '../src/worker/ensure-search-attributes';
import type { FleetResult } from '../src/contracts/migrate-fleet';
import type { TemplateMigrationResult } from '../src/contracts/migrate-template';

const USAGE = `usage: node -r @swc-node/register bench/fleet-paced.ts [--workspaces 200] [--daemons 5] [--phase-ms 500] [--user-every-ms 2000]
    [--concurrency 50] [--build-timeout 30s] [--scenarios a,b,c] [--show-history]
  --scenarios b      one scenario (a: --concurrency unpaced, b: paced share 1, c: paced share 0.5)
  --show-history     also one migrated workspace's events, Coder requests by route, idle daemons, CPU by thread
  --workspaces 40    a smaller fleet (the ramp-up and tail weigh more in its figures)
To profile the worker over the fleet's window: WSMIGRATE_BENCH_MARKS=1 node --cpu-prof --cpu-prof-dir DIR -r @swc-node/register
bench/fleet-paced.ts --scenarios b; the marks it prints (fleet-start/-end, floor-start/-end) are the profile's clock (µs).
`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] as string) : fallback;
};
const N = Number(arg('workspaces', '200'));
const DAEMONS = Number(arg('daemons', '5'));
const PHASE_MS = Number(arg('phase-ms', '500'));
const USER_EVERY_MS = Number(arg('user-every-ms', '2000'));
const C = Number(arg('concurrency', '50'));
const BUILD_TIMEOUT = arg('build-timeout', '30s');
/** Which of a, b, c to run (default all); `--show-history` prints one migrated workspace's events by kind. */
const SCENARIOS = arg('scenarios', 'a,b,c').split(',');
const SHOW_HISTORY = process.argv.includes('--show-history');

function processCpu(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] as string).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
/** CPU seconds of each of this process's threads, summed by thread name (the JS main thread, workflow threads, Temporal core's, libuv's…). */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '#');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}
/** The CPU milliseconds each thread name spent since `before` (threads that ended meanwhile are not listed). */
function threadCpuSince(before: Map<string, number>): string {
  return [...threadCpu()]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
    .filter(([, v]) => v > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${(v * 1000).toFixed(0)}`)
    .join(', ');
}
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function startSim(): Promise<{ url: string; token: string; child: ChildProcess; template: string }> {
  const args = ['sim', '--workspaces', String(N), '--port', '0', '--build-latency-ms', String(PHASE_MS), '--seed', '7', '--provisioners', String(DAEMONS), '--more-template', 'team-tools:12:v1', '--user-builds-ms', String(USER_EVERY_MS)];
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, '..', 'src', 'cli', 'main.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /export CODER_URL=(\S+) CODER_SESSION_TOKEN=(\S+)/.exec(out);
      const t = /template: (\S+)/.exec(out);
      if (m && t) resolve({ url: m[1] as string, token: m[2] as string, child, template: t[1] as string });
    });
  });
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Billable actions in one history, as Temporal Cloud counts them (heartbeats are not in it). */
function actionsOf(events: HistoryEvent[]): number {
  let n = 0;
  for (const e of events) {
    if (e.workflowExecutionStartedEventAttributes) n++;
    if (e.activityTaskScheduledEventAttributes) n++;
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') n++;
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) n++;
    if (e.timerStartedEventAttributes) n++;
    if (e.workflowExecutionSignaledEventAttributes) n++;
    if (e.signalExternalWorkflowExecutionInitiatedEventAttributes) n++;
    if (e.upsertWorkflowSearchAttributesEventAttributes) n++;
    if (e.workflowExecutionUpdateAcceptedEventAttributes) n++;
    if (e.workflowExecutionContinuedAsNewEventAttributes) n++;
  }
  return n;
}

/** One history as a list of steps: which activity, local activity, timer, upsert… each event belongs to. */
function describeHistory(events: HistoryEvent[]): string[] {
  const scheduled = new Map<string, string>();
  const lines: string[] = [];
  for (const e of events) {
    const kind = String(temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, '');
    let what = '';
    const sched = e.activityTaskScheduledEventAttributes;
    if (sched) {
      what = sched.activityType?.name ?? '';
      scheduled.set(String(e.eventId), what);
    }
    const ref = e.activityTaskStartedEventAttributes?.scheduledEventId ?? e.activityTaskCompletedEventAttributes?.scheduledEventId ?? e.activityTaskFailedEventAttributes?.scheduledEventId;
    if (ref !== undefined && ref !== null) what = scheduled.get(String(ref)) ?? '';
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = marker.details?.data?.payloads?.[0]?.data;
      what = data ? String((JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type ?? '') : '';
    }
    const upsert = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    if (upsert) what = Object.keys(upsert).join(',');
    lines.push(`${kind}${what ? ` ${what}` : ''}`);
  }
  return lines;
}

const ms = (t: string | null | undefined) => (t ? Date.parse(t) : NaN);

/** What each of the fleet's readings of the daemons decided: users' builds queued (hold), our builds fill the share (full), or room. */
function pacingReadings(events: HistoryEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const m = e.markerRecordedEventAttributes;
    const data = m?.details?.data?.payloads?.[0]?.data;
    if (m?.markerName !== 'core_local_activity' || !data || !/readProvisionerCapacity/.test(Buffer.from(data).toString('utf8'))) continue;
    const result = m.details?.result?.payloads?.[0]?.data;
    const r = result ? (JSON.parse(Buffer.from(result).toString('utf8')) as { known?: boolean; decision?: { hold?: string; full?: boolean } }) : undefined;
    out.push(!r?.known ? 'unknown' : r.decision?.hold ? (/users/.test(r.decision.hold) ? "users' builds queued" : 'no daemon') : r.decision?.full ? 'our builds fill the share' : 'room');
  }
  return out;
}

/**
 * Where the daemons stood idle during the fleet (daemon-seconds): before they first all ran at once
 * (ramp-up), after the last build started (tail), and between, split by whether a job was queued
 * meanwhile (a daemon never idles then) or none was (a freed daemon waiting for the next build).
 */
function idleDaemonsText(builds: WorkspaceBuild[], t0: number, t1: number): string {
  const edges: { at: number; running: number; queued: number }[] = [];
  for (const b of builds) {
    const created = ms(b.job.created_at);
    const started = ms(b.job.started_at);
    const ended = Math.min(t1, ms(b.job.completed_at) || t1);
    if (Number.isNaN(started)) continue;
    edges.push({ at: Math.max(t0, created), running: 0, queued: 1 }, { at: Math.max(t0, started), running: 1, queued: -1 }, { at: ended, running: -1, queued: 0 });
  }
  edges.sort((a, b) => a.at - b.at);
  const lastStart = Math.max(...builds.map((b) => ms(b.job.started_at)).filter((x) => !Number.isNaN(x)));
  let running = 0;
  let queued = 0;
  let at = t0;
  let allBusyYet = false;
  const idle = { ramp: 0, tail: 0, withQueue: 0, noQueue: 0 };
  for (const e of edges) {
    const span = (Math.min(e.at, t1) - at) / 1000;
    if (span > 0) {
      const free = Math.max(0, DAEMONS - running) * span;
      if (!allBusyYet) idle.ramp += free;
      else if (at >= lastStart) idle.tail += free;
      else if (queued > 0) idle.withQueue += free;
      else idle.noQueue += free;
    }
    at = Math.max(at, e.at);
    running += e.running;
    queued += e.queued;
    if (running >= DAEMONS) allBusyYet = true;
  }
  const f = (x: number) => x.toFixed(1);
  return `idle daemon-seconds: ramp-up ${f(idle.ramp)}, tail ${f(idle.tail)}, between with a job queued ${f(idle.withQueue)}, with none queued ${f(idle.noQueue)} (of ${f((DAEMONS * (t1 - t0)) / 1000)})`;
}
/**
 * A migration's life outside its two builds, from its history and its builds' jobs: start → the first
 * build queued, a build's end → the next queued, the last build's end → the run's end; and how long
 * each build waited in the queue.
 */
function migrationSpans(events: HistoryEvent[], builds: WorkspaceBuild[]): [string, number][] {
  const time = (e: HistoryEvent | undefined) => (e?.eventTime ? Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6) : NaN);
  const sorted = [...builds].sort((a, b) => a.build_number - b.build_number);
  const spans: [string, number][] = [];
  let last = time(events[0]);
  sorted.forEach((b, i) => {
    spans.push([i === 0 ? 'start → 1st build queued' : `build ${i} ended → build ${i + 1} queued`, ms(b.job.created_at) - last]);
    spans.push([`build ${i + 1} queued`, ms(b.job.started_at) - ms(b.job.created_at)]);
    last = ms(b.job.completed_at);
  });
  spans.push(['last build ended → run ended', time(events[events.length - 1]) - last]);
  return spans.filter(([, v]) => Number.isFinite(v));
}
function spansText(spans: [string, number][]): string {
  const byName = new Map<string, number[]>();
  for (const [k, v] of spans) byName.set(k, [...(byName.get(k) ?? []), v]);
  return [...byName].map(([k, xs]) => `${k} ${pct(xs, 50).toFixed(0)} / ${pct(xs, 90).toFixed(0)}`).join(', ');
}
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

interface Row {
  name: string;
  wallS: number;
  boundS: number;
  /** The same bound counting the users' builds too: they share the daemons, so no fleet can do better than this. */
  boundWithUsersS: number;
  userP50: number;
  userP95: number;
  userBuilds: number;
  timeouts: number;
  eventsPerWs: number;
  actionsPerWs: number;
  activitiesPerWs: number;
  localsPerWs: number;
  cpuPerWs: number;
  baselineCpuPerWs: number;
  migrated: number;
  notOk: number;
}

async function scenario(name: string, fleet: { pacing: 'off' | 'provisioners'; share: number }): Promise<Row> {
  const server: DevServer = await startDevServer({ temporalBin: temporalCliPath() });
  const sim = await startSim();
  const blobDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bench-blobs-'));
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'bench-fleet-paced';
  // With --show-history, the worker's Coder requests per migrated workspace, by route (retries included).
  const routes = new Map<string, number>();
  const countCall = ({ method, route }: { method: string; route: string }) => {
    const key = `${method} ${route}`;
    routes.set(key, (routes.get(key) ?? 0) + 1);
  };
  const coder = new CoderClient({ url: sim.url, token: sim.token, userAgent: 'wsmigrate-bench', ...(SHOW_HISTORY ? { observer: countCall } : {}) });
  await ensureSearchAttributes(connection, 'default');
  const worker = await createWsmigrateWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    activities: createActivities({ coder, blobs: createFileBlobStore({ dir: blobDir }), notifier: { notify: async () => undefined } }),
  });
  const baselineWorker = await Worker.create({ connection: native, taskQueue: 'bench-baseline', workflowsPath: require.resolve('./paced/baseline-workflows'), activities: { noop: async () => undefined } });
  const running = [worker.run(), baselineWorker.run()];
  try {
    const t = (await (await startTemplateMigration(client, { organization: 'coder', template: sim.template, approval: { policy: 'none' } }, { taskQueue })).result()) as TemplateMigrationResult;
    const cpu0 = { server: processCpu(server.process.pid as number), worker: ownCpu() };
    const threads0 = threadCpu();
    // For a --cpu-prof run: the monotonic clock the profile's timestamps use (µs), to cut it to the fleet's window.
    if (process.env.WSMIGRATE_BENCH_MARKS) process.stdout.write(`  mark fleet-start ${process.hrtime.bigint() / 1000n}\n`);
    const t0 = Date.now();
    const handle = await startFleet(
      client,
      {
        organization: 'coder',
        template: sim.template,
        targetVersionId: t.versionId,
        canary: 0,
        concurrency: C,
        provisionerShare: fleet.share,
        pacing: fleet.pacing,
        buildTimeout: BUILD_TIMEOUT,
        archiveOldVersions: false,
        requireActiveVersion: false,
        approval: { policy: 'none' },
      },
      { taskQueue },
    );
    routes.clear();
    const result = (await handle.result()) as FleetResult;
    const fleetRoutes = [...routes].sort((x, y) => y[1] - x[1]);
    const t1 = Date.now();
    if (process.env.WSMIGRATE_BENCH_MARKS) process.stdout.write(`  mark fleet-end ${process.hrtime.bigint() / 1000n}\n`);
    const wallS = (t1 - t0) / 1000;
    const cpuServer = processCpu(server.process.pid as number) - cpu0.server;
    const cpuWorker = ownCpu() - cpu0.worker;
    const cpu = cpuServer + cpuWorker;
    const threadsText = threadCpuSince(threads0);

    // The fleet's builds (ours, after the seeded ones) and the users' builds during the fleet.
    const ours: WorkspaceBuild[] = [];
    const users: WorkspaceBuild[] = [];
    for (const ws of await coder.workspacesOfTemplate(sim.template)) ours.push(...(await coder.workspaceBuilds(ws.id)).filter((b) => b.build_number > 1));
    for (const ws of await coder.workspacesOfTemplate('team-tools')) users.push(...(await coder.workspaceBuilds(ws.id)).filter((b) => ms(b.job.created_at) >= t0 && ms(b.job.created_at) <= t1 && b.job.started_at));
    const runTimes = [...ours, ...users].filter((b) => b.job.completed_at && b.job.started_at).map((b) => ms(b.job.completed_at) - ms(b.job.started_at));
    const buildTime = runTimes.reduce((a, b) => a + b, 0) / Math.max(1, runTimes.length);
    const oursRun = ours.filter((b) => b.job.completed_at && b.job.started_at).reduce((a, b) => a + ms(b.job.completed_at) - ms(b.job.started_at), 0);
    const usersRun = users.filter((b) => b.job.completed_at && b.job.started_at).reduce((a, b) => a + Math.min(t1, ms(b.job.completed_at)) - ms(b.job.started_at), 0);
    const waits = users.map((b) => (ms(b.job.started_at) - ms(b.job.created_at)) / buildTime);
    if (SHOW_HISTORY) process.stdout.write(`  ${name}: ${idleDaemonsText([...ours, ...users], t0, t1)}\n`);

    // History cost per migrated workspace: every child's history plus the fleet's own share.
    let events = 0;
    let actions = 0;
    let activities = 0;
    let locals = 0;
    const children = ours.map((b) => b.workspace_owner_name + '/' + b.workspace_name);
    let shown = !SHOW_HISTORY;
    const lifeSpans: [string, number][] = [];
    for (const subject of new Set(children)) {
      const h = await client.workflow.getHandle(`wsmigrate/${sim.template}/${subject}`).fetchHistory();
      const evs = h.events ?? [];
      if (!shown && evs.some((e) => e.workflowExecutionCompletedEventAttributes)) {
        shown = true;
        const bytes = (e: HistoryEvent) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
        const total = evs.reduce((a, e) => a + bytes(e), 0);
        process.stdout.write(`  ${name}: history of ${subject} (${evs.length} events, ${total} bytes)\n${describeHistory(evs).map((l, i) => `    ${i + 1} ${l} (${bytes(evs[i] as HistoryEvent)} B)`).join('\n')}\n`);
      }
      lifeSpans.push(...migrationSpans(evs, ours.filter((b) => `${b.workspace_owner_name}/${b.workspace_name}` === subject)));
      events += evs.length;
      actions += actionsOf(evs);
      activities += evs.filter((e) => e.activityTaskScheduledEventAttributes).length;
      locals += evs.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    }
    const parentKinds = new Map<string, number>();
    const readings = new Map<string, number>();
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) {
      const evs = (await client.workflow.getHandle(handle.workflowId, wf.runId).fetchHistory()).events ?? [];
      for (const l of describeHistory(evs)) parentKinds.set(l, (parentKinds.get(l) ?? 0) + 1);
      for (const r of pacingReadings(evs)) readings.set(r, (readings.get(r) ?? 0) + 1);
      events += evs.length;
      actions += actionsOf(evs);
    }
    const migrated = Math.max(1, result.summary.migrated);
    if (SHOW_HISTORY) process.stdout.write(`  ${name}: a migration's time outside its builds (ms, p50 / p90): ${spansText(lifeSpans)}\n`);
    if (SHOW_HISTORY) {
      const perWs = [...parentKinds].sort((x, y) => y[1] - x[1]).map(([k, n]) => `    ${(n / migrated).toFixed(2)} ${k}`);
      process.stdout.write(`  ${name}: the fleet's own events per migrated workspace\n${perWs.join('\n')}\n`);
      process.stdout.write(`  ${name}: the fleet's readings of the daemons, by what they decided: ${[...readings].map(([k, n]) => `${k} ${n}`).join(', ')}\n`);
      process.stdout.write(`  ${name}: Coder requests per migrated workspace\n${fleetRoutes.map(([r, n]) => `    ${(n / migrated).toFixed(2)} ${r}`).join('\n')}\n`);
    }
    const perWsActivities = activities / migrated;
    const perWsLocals = locals / migrated;

    // The floor: the same number of workspaces, activity calls and child starts, nothing else.
    const b0 = { server: processCpu(server.process.pid as number), worker: ownCpu() };
    const floorThreads0 = threadCpu();
    if (process.env.WSMIGRATE_BENCH_MARKS) process.stdout.write(`  mark floor-start ${process.hrtime.bigint() / 1000n}\n`);
    await client.workflow.execute('baselineFleet', { taskQueue: 'bench-baseline', workflowId: `baseline-${Date.now()}`, args: [result.summary.migrated, Math.min(C, 50), Math.round(perWsActivities), Math.round(perWsLocals)] });
    if (process.env.WSMIGRATE_BENCH_MARKS) process.stdout.write(`  mark floor-end ${process.hrtime.bigint() / 1000n}\n`);
    const bServer = processCpu(server.process.pid as number) - b0.server;
    const bWorker = ownCpu() - b0.worker;
    const floorThreadsText = threadCpuSince(floorThreads0);
    const baselineCpu = bServer + bWorker;
    if (SHOW_HISTORY) {
      // Where the CPU goes: the dev server and this process (worker), for the fleet and the floor, per workspace.
      const idle0 = { server: processCpu(server.process.pid as number), worker: ownCpu(), at: Date.now() };
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const idleS = (Date.now() - idle0.at) / 1000;
      const per = (x: number) => ((1000 * x) / Math.max(1, result.summary.migrated)).toFixed(1);
      process.stdout.write(
        `  ${name}: CPU ms per workspace: fleet server ${per(cpuServer)} + worker ${per(cpuWorker)} over ${wallS.toFixed(1)} s; ` +
          `floor server ${per(bServer)} + worker ${per(bWorker)}; the worker's threads during the fleet (ms in all): ${threadsText}; during the floor: ${floorThreadsText}; idle server ${((1000 * (processCpu(server.process.pid as number) - idle0.server)) / idleS).toFixed(1)} + worker ${((1000 * (ownCpu() - idle0.worker)) / idleS).toFixed(1)} ms per second\n`,
      );
    }

    return {
      name,
      wallS,
      boundS: oursRun / DAEMONS / 1000,
      boundWithUsersS: (oursRun + usersRun) / DAEMONS / 1000,
      userP50: pct(waits, 50),
      userP95: pct(waits, 95),
      userBuilds: users.length,
      timeouts: result.failures.filter((f) => /Timed out/.test(f.reason)).length,
      eventsPerWs: events / migrated,
      actionsPerWs: actions / migrated,
      activitiesPerWs: perWsActivities,
      localsPerWs: perWsLocals,
      cpuPerWs: cpu / migrated,
      baselineCpuPerWs: baselineCpu / migrated,
      migrated: result.summary.migrated,
      notOk: result.summary.failed + result.summary.needsAttention + result.summary.restored,
    };
  } finally {
    worker.shutdown();
    baselineWorker.shutdown();
    await Promise.all(running);
    await native.close();
    await connection.close();
    sim.child.kill('SIGTERM');
    await server.stop();
    rmSync(blobDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  process.stdout.write(`paced fleet bench: ${N} workspaces, ${DAEMONS} daemons, build phases of ${PHASE_MS} ms, a user's build every ${USER_EVERY_MS} ms, concurrency ${C}, build timeout ${BUILD_TIMEOUT}\n`);
  const rows: Row[] = [];
  for (const [name, fleet] of [
    [`(a) C=${C} unpaced`, { pacing: 'off', share: 1 }],
    ['(b) paced share 1', { pacing: 'provisioners', share: 1 }],
    ['(c) paced share 0.5', { pacing: 'provisioners', share: 0.5 }],
  ] as const) {
    if (!SCENARIOS.includes(name.slice(1, 2))) continue;
    rows.push(await scenario(name, fleet));
    process.stdout.write(`  ${name} done\n`);
  }
  const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const head = ['scenario', 'wall s', 'wall ÷ bound', "÷ bound with users'", "users' wait p50", 'p95 (build-times)', 'user builds', 'timeouts', 'events/ws', 'actions/ws', 'activities+local/ws', 'CPU-s/ws', 'floor CPU-s/ws', 'CPU ÷ bare Temporal', 'migrated', 'not ok'];
  const lines = rows.map((r) => [
    r.name,
    f(r.wallS, 1),
    f(r.wallS / r.boundS),
    f(r.wallS / r.boundWithUsersS),
    f(r.userP50),
    f(r.userP95),
    String(r.userBuilds),
    String(r.timeouts),
    f(r.eventsPerWs, 1),
    f(r.actionsPerWs, 1),
    `${f(r.activitiesPerWs, 1)}+${f(r.localsPerWs, 1)}`,
    f(r.cpuPerWs, 3),
    f(r.baselineCpuPerWs, 3),
    f(r.cpuPerWs / r.baselineCpuPerWs),
    String(r.migrated),
    String(r.notOk),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  for (const l of [head, ...lines]) process.stdout.write(`${l.map((c, i) => c.padEnd(widths[i] as number)).join('  ')}\n`);
  process.stdout.write("goals: wall ÷ bound ≤ 1.15 for (b); users' p95 ≤ 1 build-time for (c); 0 timeouts for (b) and (c); ≤ 30 events/ws; CPU ÷ bare Temporal ≤ 1.5\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
