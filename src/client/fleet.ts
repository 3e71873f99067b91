import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { fleetWorkflowId, migrateFleetInputSchema, type MigrateFleetInput, type MigrateFleetParams } from '../domain/fleet-input';
import { parseInput } from '../domain/migration-input';
import {
  cancelFleetUpdate,
  fleetProgressQuery,
  fleetResultQuery,
  pauseFleetUpdate,
  resumeFleetUpdate,
  type FleetControlEntry,
  type FleetPhase,
  type FleetProgress,
  type FleetResult,
} from '../contracts/migrate-fleet';
import { WsmigratePendingApproval, WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';
import { RefusedError } from './refused-error';
import { rethrowNoRun } from './run-not-found';
import { pendingApprovalQuery } from '../contracts/approval';
import { whoMayApprove } from '../domain/approval-policy';
import { refuseRunBesideOthers } from './fleet-conflicts';
import { runOutcome } from './run-outcome';
import { failureText } from './failure-text';
import { queryRunningRun, silentStep, type PendingActivity } from './run-waits';
import { templateWorkflowId } from '../domain/migration-input';
import type { FleetWait } from '../domain/fleet-waits';
import { countRunningByPhase, type RunningRow } from '../domain/running-phases';

export interface FleetStartOptions {
  taskQueue: string;
  /** Another id than the fleet's default (tests, or two fleets of one template with disjoint filters). */
  workflowId?: string;
}

/** What the Web UI shows as the run's title: the fleet's template, target and batch. */
export function fleetStaticSummary(p: MigrateFleetParams): string {
  const target = p.targetVersionId ? `version ${p.targetVersionId.slice(0, 8)}` : 'template first';
  const batch = p.filters.limit ? `batch ${p.filters.limit}` : 'all workspaces';
  return `fleet ${p.organization}/${p.template} → ${target} · ${batch} · C=${p.concurrency} canary ${p.canary}${p.dryRun ? ' · dry run' : ''}`;
}

/** Validates, then starts `migrateFleet` as `wsmigrate-fleet/<org>/<template>`; a second start while it runs says so. */
export async function startFleet(client: Client, input: MigrateFleetInput, opts: FleetStartOptions): Promise<WorkflowHandle> {
  const p = parseInput(migrateFleetInputSchema, input);
  const workflowId = opts.workflowId ?? fleetWorkflowId(p.organization, p.template);
  // The default id is the one a person starts by hand; another id is a deliberate second fleet (disjoint filters).
  if (!opts.workflowId) await refuseRunBesideOthers(client, { organization: p.organization, templates: [p.template], taskQueue: opts.taskQueue }, { workflowId, noun: 'fleet' });
  try {
    return await client.workflow.start('migrateFleet', {
      taskQueue: opts.taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: [{ key: WsmigrateTemplate, value: p.template }],
      staticSummary: fleetStaticSummary(p),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw new RefusedError(`a fleet of ${p.organization}/${p.template} is already running (${workflowId}); see 'wsmigrate fleet status ${workflowId}'`);
    }
    throw err;
  }
}

export interface FleetStatus {
  workflowId: string;
  phase: FleetPhase;
  /** Running migrations of the template by their phase (from the WsmigratePhase search attribute; visibility lags a little). */
  runningByPhase?: Record<string, number>;
  /** Live progress (running fleets; ended ones too while a worker answers queries). */
  progress?: FleetProgress;
  /**
   * Running, but no worker answered its progress query (none polls its task queue, or one was just
   * killed): `phase` is its search attribute's, `waitingOn` says on whom it waits. It has not ended.
   */
  unanswered?: true;
  result?: FleetResult;
  error?: string;
  /** The failure's type (`WsmigrateUnknownName`, `WsmigrateRefused`, …) when the fleet failed with one: the CLI's exit code follows it. */
  failureType?: string;
  /** What a running fleet waits on: gates (its own, its children's), activities retrying, a cancel or pause pending. */
  waitingOn?: FleetWait[];
  /** The run was terminated or timed out: it ran no code at its end (so gave nothing back). */
  endedBy?: 'terminated' | 'timed-out';
  /** What it left of require_active_version, in a line (`fleet status` reads Coder and the blob store for it). */
  leftLock?: string;
}

/** How a fleet ended, once it has: its result (a cancelled fleet's from its result query); rejects with Temporal's reason when it failed. */
export async function fleetResult(client: Client, workflowId: string): Promise<FleetResult> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    return (await handle.result()) as FleetResult;
  } catch (err) {
    if ((await handle.describe()).status.name !== 'CANCELLED') throw err;
    const result = await handle.query(fleetResultQuery);
    if (!result) throw err;
    return result;
  }
}

/** The fleet's phase and counts, from its progress query while it runs and from its result once it ended. */
export async function fleetStatus(client: Client, workflowId: string): Promise<FleetStatus> {
  const handle = client.workflow.getHandle(workflowId);
  const d = await handle.describe().catch(rethrowNoRun(workflowId));
  if (d.type !== 'migrateFleet') {
    // A workspace's or template's run answers none of a fleet's queries: say which command reads it.
    throw new NotAFleetError(`${workflowId} is a ${d.type} run, not a fleet: read it with 'wsmigrate status ${workflowId}'`);
  }
  const status = d.status.name;
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') {
    // No worker to answer (none polls, or one was just killed): say so at once, not Temporal's error after 30 s.
    const asked = await queryRunningRun(client, d, () => handle.query(fleetProgressQuery));
    if ('unanswered' in asked) return { workflowId, phase: asked.unanswered.phase as FleetPhase, unanswered: true, waitingOn: [{ kind: 'no-worker', workflowId, text: asked.unanswered.text }] };
    const progress = asked.value;
    const waitingOn = [...(await gateWaits(client, progress)), ...controlWaits(progress), ...(await stepWaits(client, progress, d.raw.pendingActivities ?? []))];
    return { workflowId, phase: progress.phase, progress, runningByPhase: await runningByPhase(client, progress.template), waitingOn };
  }
  if (status === 'COMPLETED') {
    const result = (await handle.result()) as FleetResult;
    return { workflowId, phase: result.phase, result };
  }
  if (status === 'CANCELLED') {
    // A cancelled fleet keeps no result in Temporal; it answers with it while a worker replays it.
    const result = await handle.query(fleetResultQuery).catch(() => undefined);
    if (result) return { workflowId, phase: 'cancelled', result };
  }
  // Failed, cancelled, terminated or timed out: Temporal's own reason, every cause and detail.
  const outcome = await runOutcome(client, workflowId);
  const phase: FleetPhase = outcome.state === 'cancelled' ? 'cancelled' : 'failed';
  const endedBy = outcome.state === 'terminated' || outcome.state === 'timed-out' ? outcome.state : undefined;
  return { workflowId, phase, error: outcome.reason ?? `workflow ${outcome.state}`, ...(outcome.failureType ? { failureType: outcome.failureType } : {}), ...(endedBy ? { endedBy } : {}) };
}

/** `fleet status` given the id of a run that is no fleet. */
export class NotAFleetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAFleetError';
  }
}

async function gateWaits(client: Client, p: FleetProgress): Promise<FleetWait[]> {
  const waits: FleetWait[] = [];
  if (p.pendingApproval) waits.push({ kind: 'gate', workflowId: p.workflowId, gateId: p.pendingApproval.gateId, since: p.pendingApproval.requestedAt });
  const children = await Promise.all(
    p.childApprovals.slice(0, 20).map(async (a): Promise<FleetWait> => {
      // Who may decide it: the child's own gate says (the fleet's progress does not carry it).
      const pending = await client.workflow.getHandle(a.workflowId).query(pendingApprovalQuery).catch(() => undefined);
      const approvers = pending && pending.gateId === a.gateId ? whoMayApprove(pending) : undefined;
      return { kind: 'child-gate', workflowId: a.workflowId, gateId: a.gateId, ...(a.since ? { since: a.since } : {}), ...(approvers ? { approvers } : {}) };
    }),
  );
  return [...waits, ...children];
}

/** A cancel (final) or a pause that takes effect only once the running migrations finish. */
function controlWaits(p: FleetProgress): FleetWait[] {
  const last = [...p.control].reverse().find((c) => c.action === 'cancel' || c.action === 'pause' || c.action === 'resume');
  if (last?.action === 'pause' && p.phase === 'paused') {
    return [{ kind: 'paused', workflowId: p.workflowId, by: last.by, since: last.at, ...(last.reason ? { reason: last.reason } : {}) }];
  }
  // Paused at its own gate: the phase stays awaiting-approval, yet an approval alone will not start anything.
  if (last?.action === 'pause' && p.phase === 'awaiting-approval' && p.pendingApproval) {
    return [{ kind: 'paused', workflowId: p.workflowId, by: last.by, since: last.at, ...(last.reason ? { reason: last.reason } : {}), atGate: p.pendingApproval.gateId }];
  }
  if (!last || last.action === 'resume' || p.running.length === 0) return [];
  if (last.action === 'pause') return [];
  const atGates = p.childApprovals.length;
  const until = `the ${p.running.length} running migration(s) finish or restore${atGates ? `; ${atGates} of them wait at a gate: answer it (wsmigrate reject <id> --approver <you>) to end it now` : ''}`;
  return [{ kind: 'control', action: last.action, by: last.by, until }];
}

/** How many running migrations `fleet status` describes for their steps: a fleet of any size costs at most this many describes. */
export const RUNNING_STEPS_READ = 10;

/**
 * What the steps wait on: activities that failed and are being retried (Coder down, a 401, a 5xx),
 * and started ones whose worker went silent (killed mid-step: client/run-waits.ts silentStep), of
 * the fleet itself, the template child and the running migrations: only the running ones (never the
 * whole fleet), the RUNNING_STEPS_READ that have run longest (the likeliest stuck; those at a gate
 * last), and how many more were not read.
 */
export async function stepWaits(client: Client, p: FleetProgress, own: readonly PendingActivity[], now = Date.now()): Promise<FleetWait[]> {
  const waits: FleetWait[] = [];
  const add = (workflowId: string, list: readonly PendingActivity[]) => {
    for (const a of list) {
      const silent = silentStep(a, now);
      if (silent) {
        waits.push({ kind: 'silent', workflowId, ...silent });
        continue;
      }
      const attempt = a.attempt ?? 1;
      if (attempt < 2 && !a.lastFailure) continue;
      waits.push({
        kind: 'retrying',
        workflowId,
        activity: a.activityType?.name ?? 'an activity',
        attempt,
        ...(a.maximumAttempts ? { maximumAttempts: a.maximumAttempts } : {}),
        ...(a.lastFailure?.message ? { lastError: failureText(a.lastFailure) } : {}),
      });
    }
  };
  add(p.workflowId, own);
  // A child at its gate waits on a person (said above): the others first, the longest running first.
  const atGate = new Set(p.childApprovals?.map((a) => a.workflowId) ?? []);
  const oldestFirst = [...p.running].sort((a, b) => Number(atGate.has(a.workflowId)) - Number(atGate.has(b.workflowId)) || a.startedAtMs - b.startedAtMs);
  const read = oldestFirst.slice(0, RUNNING_STEPS_READ);
  const children = [...(p.stage === 'template' ? [templateWorkflowId(p.organization, p.template)] : []), ...read.map((r) => r.workflowId)];
  await Promise.all(
    children.map(async (id) => {
      try {
        add(id, (await client.workflow.getHandle(id).describe()).raw.pendingActivities ?? []);
      } catch {
        // a child that just ended has nothing pending
      }
    }),
  );
  const unread = p.running.length - read.length;
  if (unread > 0) waits.push({ kind: 'unread', workflowId: p.workflowId, count: unread, read: read.length });
  return waits;
}

export type FleetAction = 'pause' | 'resume' | 'cancel';

const UPDATES = { pause: pauseFleetUpdate, resume: resumeFleetUpdate, cancel: cancelFleetUpdate } as const;

/** Pause, resume or cancel through the validated update: a refusal comes back at once, with its reason. */
export async function controlFleet(client: Client, workflowId: string, action: FleetAction, by: string, reason?: string): Promise<FleetControlEntry> {
  const { type } = await client.workflow.getHandle(workflowId).describe().catch(rethrowNoRun(workflowId));
  if (type !== 'migrateFleet' && type !== 'migrateOrganization') {
    throw new NotAFleetError(
      `${workflowId} is a ${type} run, not a fleet: ${action} is for a fleet (wsmigrate-fleet/<org>/<template>) or an organization's run (wsmigrate-org/<org>); ` +
        `a run waiting at a gate ends with 'wsmigrate reject ${workflowId} --approver <you>', which restores what it changed`,
    );
  }
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate(UPDATES[action], { args: [{ by, ...(reason ? { reason } : {}) }] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause) throw new RefusedError(`${action} refused: ${err.cause.message}`);
    if (/already completed/i.test((err as Error).message)) {
      throw new RefusedError(`${action} refused: ${workflowId} has already ended, so there is nothing to ${action}; 'wsmigrate fleet status ${workflowId}' says how it ended`);
    }
    return rethrowNoRun(workflowId)(err);
  }
}

/** Counts the template's running migrations by phase (awaiting-approval, compensating, in progress, …) from visibility. */
async function runningByPhase(client: Client, template: string): Promise<Record<string, number>> {
  const rows: RunningRow[] = [];
  try {
    const query = `WorkflowType = 'migrateWorkspace' AND WsmigrateTemplate = '${template.replace(/'/g, '')}' AND ExecutionStatus = 'Running'`;
    for await (const wf of client.workflow.list({ query, pageSize: 500 })) {
      rows.push({ phase: wf.typedSearchAttributes.get(WsmigratePhase), pendingGate: wf.typedSearchAttributes.get(WsmigratePendingApproval) });
    }
  } catch {
    // visibility is a convenience here; the fleet's own counts stand without it
  }
  return countRunningByPhase(rows);
}
