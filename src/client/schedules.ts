import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { fleetWorkflowId, migrateFleetInputSchema, type MigrateFleetInput } from '../domain/fleet-input';
import { parseInput } from '../domain/migration-input';
import { WsmigrateTemplate } from '../contracts/search-attributes';
import { fleetStaticSummary } from './fleet';

export interface FleetScheduleSpec {
  /** e.g. '0 2 * * 6' (Saturdays 02:00). */
  cron: string;
  /** IANA zone, e.g. 'Europe/Berlin'; default UTC. */
  timezone?: string;
  /** Migrations started per window: the fleet's `filters.limit`. */
  batch: number;
  taskQueue: string;
  note?: string;
}

const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** Schedule ids carry a prefix, so `schedule list` shows only wsmigrate's own. */
export function fleetScheduleId(name: string): string {
  return name.startsWith('wsmigrate-') ? name : `wsmigrate-${name}`;
}

/** What a window starts: the workflow, its input (with the batch already in it), and how it is labelled. */
export interface WindowAction {
  workflowType: 'migrateFleet' | 'migrateOrganization';
  input: unknown;
  /** The server appends the window's timestamp; the prefix keeps `approve`/`status` working on it. */
  workflowId: string;
  template?: string;
  staticSummary: string;
  note: string;
}

/**
 * A maintenance window: a Temporal Schedule that starts the action once per cron tick. Overlap SKIP:
 * a window never starts while the last one still runs; catch-up 1h: a window missed by a longer
 * outage is dropped, not run at noon.
 */
export async function createWindowSchedule(client: Client, name: string, spec: FleetScheduleSpec, action: (scheduleId: string) => WindowAction): Promise<string> {
  if (!SCHEDULE_NAME.test(name)) throw new Error(`schedule name '${name}' may hold letters, digits, '-', '_' and '.' (at most 100)`);
  if (!Number.isInteger(spec.batch) || spec.batch < 1) throw new Error(`batch must be a whole number ≥ 1 (got ${spec.batch})`);
  const scheduleId = fleetScheduleId(name);
  const a = action(scheduleId);
  await client.schedule.create({
    scheduleId,
    spec: { cronExpressions: [spec.cron], ...(spec.timezone ? { timezone: spec.timezone } : {}) },
    action: {
      type: 'startWorkflow',
      workflowType: a.workflowType,
      args: [a.input],
      taskQueue: spec.taskQueue,
      workflowId: a.workflowId,
      ...(a.template ? { typedSearchAttributes: [{ key: WsmigrateTemplate, value: a.template }] } : {}),
      staticSummary: a.staticSummary,
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1h' },
    memo: { cron: spec.cron, timezone: spec.timezone ?? 'UTC', batch: spec.batch },
    state: { note: spec.note ?? a.note },
  });
  await untilListed(client, scheduleId);
  return scheduleId;
}

/**
 * The schedule list is visibility's and lags a create by a moment: a `fleet start` right after
 * `schedule create` would not see the schedule and start a fleet beside its windows. So a create
 * returns once the list shows it (or after `waitMs`, the lag's bound in practice).
 */
async function untilListed(client: Client, scheduleId: string, waitMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + waitMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    for await (const s of client.schedule.list()) if (s.scheduleId === scheduleId) return;
  }
}

/** One template's window: `migrateFleet` with `limit` = batch. */
export async function createFleetSchedule(client: Client, name: string, input: MigrateFleetInput, spec: FleetScheduleSpec): Promise<string> {
  const withBatch: MigrateFleetInput = { ...input, filters: { ...(input.filters ?? {}), limit: spec.batch } };
  const p = parseInput(migrateFleetInputSchema, withBatch);
  return createWindowSchedule(client, name, spec, (scheduleId) => ({
    workflowType: 'migrateFleet',
    input: withBatch,
    workflowId: fleetWorkflowId(p.organization, p.template),
    template: p.template,
    staticSummary: `${fleetStaticSummary(p)} · schedule ${scheduleId}`,
    note: `wsmigrate fleet ${p.organization}/${p.template}, ${spec.batch} per window`,
  }));
}

export interface FleetScheduleInfo {
  scheduleId: string;
  paused: boolean;
  note?: string;
  cron: string[];
  timezone?: string;
  nextRuns: string[];
  recentRuns: { workflowId: string; runId: string; takenAt: string }[];
}

export async function listFleetSchedules(client: Client): Promise<FleetScheduleInfo[]> {
  const out: FleetScheduleInfo[] = [];
  for await (const s of client.schedule.list()) {
    if (!s.scheduleId.startsWith('wsmigrate-')) continue;
    out.push({
      scheduleId: s.scheduleId,
      paused: s.state.paused,
      ...(s.state.note ? { note: s.state.note } : {}),
      cron: cronOf(s.memo, s.spec),
      ...(s.spec?.timezone ? { timezone: s.spec.timezone } : {}),
      nextRuns: s.info.nextActionTimes.map((d) => d.toISOString()),
      recentRuns: s.info.recentActions.map((a) => ({ workflowId: a.action.workflow.workflowId, runId: a.action.workflow.firstExecutionRunId, takenAt: a.takenAt.toISOString() })),
    });
  }
  return out;
}

export async function describeFleetSchedule(
  client: Client,
  name: string,
): Promise<FleetScheduleInfo & { input: unknown; workflowType?: string; taskQueue?: string; actionsTaken: number; skippedOverlap: number }> {
  const scheduleId = fleetScheduleId(name);
  const d = await handleErrors(scheduleId, () => client.schedule.getHandle(scheduleId).describe());
  return {
    scheduleId,
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    cron: cronOf(d.memo, d.spec),
    ...(d.spec.timezone ? { timezone: d.spec.timezone } : {}),
    nextRuns: d.info.nextActionTimes.map((t) => t.toISOString()),
    recentRuns: d.info.recentActions.map((a) => ({ workflowId: a.action.workflow.workflowId, runId: a.action.workflow.firstExecutionRunId, takenAt: a.takenAt.toISOString() })),
    input: d.action.type === 'startWorkflow' ? d.action.args?.[0] : undefined,
    ...(d.action.type === 'startWorkflow' ? { workflowType: d.action.workflowType, taskQueue: d.action.taskQueue } : {}),
    actionsTaken: d.info.numActionsTaken,
    skippedOverlap: d.info.numActionsSkippedOverlap,
  };
}

export type ScheduleAction = 'pause' | 'unpause' | 'trigger' | 'delete';

export interface ScheduleControlResult {
  scheduleId: string;
  /** Whether the schedule was paused before this action (a trigger still runs a window then). */
  wasPaused: boolean;
  /**
   * What Temporal made of a trigger: the window it started, or the running window it was skipped
   * beside (overlap SKIP); neither when it had not decided within a few seconds.
   */
  triggered?: { started?: string; skippedBeside?: string };
  /** A pause or delete stops no window: the one running (its workflow id) goes on. */
  stillRunning?: string[];
}

/** How long a trigger waits to see Temporal take or skip it (the schedule's own workflow does, asynchronously). */
const TRIGGER_SEEN_WITHIN_MS = 5000;

/**
 * Trigger uses overlap SKIP too (the SDK's default would allow a second window beside a running one).
 * Temporal keeps one note per schedule: a pause or unpause keeps the earlier note after its own.
 */
export async function controlFleetSchedule(client: Client, name: string, action: ScheduleAction, note?: string): Promise<ScheduleControlResult> {
  const scheduleId = fleetScheduleId(name);
  const h = client.schedule.getHandle(scheduleId);
  let wasPaused = false;
  let triggered: ScheduleControlResult['triggered'];
  let stillRunning: string[] = [];
  await handleErrors(scheduleId, async () => {
    const described = await h.describe();
    // A pause or a delete stops no window already running (Temporal's schedules only start them): said, with how to stop it.
    if (action === 'pause' || action === 'delete') stillRunning = described.info.runningActions.map((a) => a.workflow.workflowId);
    const before = described.state;
    wasPaused = before.paused;
    const keep = (own: string) => (before.note && before.note !== own ? `${own} · earlier: ${before.note}`.slice(0, 500) : own);
    if (action === 'pause') await h.pause(keep(note ?? 'paused with wsmigrate schedule pause'));
    else if (action === 'unpause') await h.unpause(keep(note ?? 'unpaused with wsmigrate schedule unpause'));
    else if (action === 'trigger') {
      await h.trigger(ScheduleOverlapPolicy.SKIP);
      triggered = await triggerOutcome(h, described.info);
    } else await h.delete();
  });
  return { scheduleId, wasPaused, ...(triggered ? { triggered } : {}), ...(stillRunning.length ? { stillRunning } : {}) };
}

type ScheduleInfo = Awaited<ReturnType<ReturnType<Client['schedule']['getHandle']>['describe']>>['info'];

/**
 * A trigger is taken or skipped by the schedule's own workflow a moment later: read until one of its
 * counters moves, so `schedule trigger` says which (it said "triggered" for a skipped one).
 */
async function triggerOutcome(h: ReturnType<Client['schedule']['getHandle']>, before: ScheduleInfo): Promise<ScheduleControlResult['triggered']> {
  const until = Date.now() + TRIGGER_SEEN_WITHIN_MS;
  for (;;) {
    const info = (await h.describe()).info;
    if (info.numActionsTaken > before.numActionsTaken) {
      const newest = info.recentActions[info.recentActions.length - 1];
      return newest ? { started: newest.action.workflow.workflowId } : {};
    }
    if (info.numActionsSkippedOverlap > before.numActionsSkippedOverlap) {
      const running = info.runningActions[0] ?? before.runningActions[0];
      return running ? { skippedBeside: running.workflow.workflowId } : { skippedBeside: '' };
    }
    if (Date.now() >= until) return {};
    await new Promise((r) => setTimeout(r, 200));
  }
}

function cronOf(memo: Record<string, unknown> | undefined, spec: { calendars?: unknown[] } | undefined): string[] {
  // The server turns cron strings into calendars; the memo keeps what the operator wrote.
  if (typeof memo?.cron === 'string') return [memo.cron];
  return (spec?.calendars ?? []).map((c) => JSON.stringify(c));
}

async function handleErrors<T>(scheduleId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new Error(`no schedule '${scheduleId}'; see 'wsmigrate schedule list'`);
    throw err;
  }
}
