import { ApiError } from './api-error';
import { isPrebuilt } from './prebuilds';
import { nextScheduled, parseWeeklySchedule } from './cron-schedule';
import type { SimDeployment } from './deployment';
import type { AutobuildReason, WorkspaceRecord } from './model';
import { deletingAt, nextAllowedAutostart } from './schedule-times';
import { templateScheduleOptions } from './template-meta';
import type { Transition } from './workspace-context';

export interface LifecycleTickResult {
  /** The minute evaluated (the tick truncated to the minute, as runOnce does). */
  at: string;
  /** Workspaces built by this tick, with the transition. */
  transitions: Record<string, Transition>;
  /** Workspaces that were due but could not be built (a build already active, say), with the reason. */
  errors: Record<string, string>;
}

export interface LifecycleTickOptions {
  /**
   * Treat every workspace with an autostart schedule (stopped), a deadline (running) or a deleting_at
   * (dormant) as due now, whatever the clock: "fire every due workspace now", for tests that must fire
   * at a given moment.
   */
  force?: boolean;
  /** Only these workspaces are evaluated (all when absent): to fire one workspace at a chosen moment. */
  workspaceIds?: readonly string[];
}

type Due = { transition: Transition | undefined; reason: AutobuildReason } | undefined;

const DAY_MS = 24 * 60 * 60_000;

/**
 * getNextTransition in coderd/autobuild/lifecycle_executor.go, in its order:
 * - autostop (isEligibleForAutostop): a start, not failed, not dormant, past its deadline, or at once
 *   when its owner is suspended;
 * - autostart (isEligibleForAutostart): only for an owner whose status is active (not suspended, not
 *   dormant); a stop, not failed, not dormant, whose schedule has come round since it was built;
 * - the failed-build cleanup (isEligibleForFailedStop, failure_ttl): a stop, after a failed start only;
 * - dormancy (isEligibleForDormantStop, time_til_dormant since last_used_at): a stop of a started
 *   workspace with reason "dormancy", or no build for a stopped one; either way it is made dormant;
 * - auto-delete (isEligibleForDelete): a dormant workspace past its deleting_at (dormant_at +
 *   time_til_dormant_autodelete) gets a delete build, reason "autodelete"; after a failed delete, not
 *   again until 24 hours after that job finished.
 * GetWorkspacesEligibleForTransition (coderd/database/queries/workspaces.sql) only pre-selects: the Go
 * functions above decide, so they are what is modelled.
 */
function dueTransition(d: SimDeployment, ws: WorkspaceRecord, tick: Date, force: boolean): Due {
  const latest = d.latestBuild(ws);
  const template = d.template(ws.templateId);
  // The executor reads the template through the schedule store: without Premium its AGPL store's options.
  const options = template ? templateScheduleOptions(template.meta, d.licence) : undefined;
  const ownerStatus = d.userById(ws.ownerId)?.status ?? 'active';
  const failed = latest.job.status === 'failed';
  if (!failed && ws.dormantAt === undefined && latest.transition === 'start') {
    if (ownerStatus === 'suspended') return { transition: 'stop', reason: 'autostop' };
    if (latest.deadline !== undefined && (force || tick.getTime() >= Date.parse(latest.deadline))) return { transition: 'stop', reason: 'autostop' };
  }
  if (ownerStatus === 'active' && !failed && latest.transition === 'stop' && ws.dormantAt === undefined && options?.userAutostartEnabled && ws.autostartSchedule) {
    if (force) return { transition: 'start', reason: 'autostart' };
    const next = nextScheduled(parseWeeklySchedule(ws.autostartSchedule), new Date(latest.createdAt));
    if (next && tick.getTime() >= next.getTime()) return { transition: 'start', reason: 'autostart' };
  }
  const failureTtl = options?.failureTtlMs ?? 0;
  if (failed && failureTtl > 0 && latest.transition === 'start' && latest.job.completedAt && tick.getTime() - Date.parse(latest.job.completedAt) > failureTtl) {
    return { transition: 'stop', reason: 'autostop' };
  }
  const timeTilDormant = options?.timeTilDormantMs ?? 0;
  if (ws.dormantAt === undefined && timeTilDormant > 0 && tick.getTime() - Date.parse(ws.lastUsedAt) > timeTilDormant) {
    return { transition: latest.transition === 'start' ? 'stop' : undefined, reason: 'dormancy' };
  }
  // isEligibleForDelete: deleting_at is the database's, but the store's time_til_dormant_autodelete must be > 0.
  const deleteAt = (options?.timeTilDormantAutodeleteMs ?? 0) > 0 ? deletingAt(ws, template) : undefined;
  if (deleteAt !== undefined && (force || tick.getTime() > Date.parse(deleteAt))) {
    const finishedAt = latest.job.completedAt;
    const retryHeld = latest.transition === 'delete' && failed && !(finishedAt !== undefined && tick.getTime() - Date.parse(finishedAt) > DAY_MS);
    if (!retryHeld) return { transition: 'delete', reason: 'autodelete' };
  }
  return undefined;
}

/** One run of the executor (runOnce) at `at`: every due workspace gets its build, as its owner. */
export function runLifecycleTick(d: SimDeployment, at: Date, opts: LifecycleTickOptions = {}): LifecycleTickResult {
  const tick = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  const result: LifecycleTickResult = { at: tick.toISOString(), transitions: {}, errors: {} };
  for (const ws of d.workspaces.values()) {
    // Prebuilt workspaces follow no autostart or autostop: their reconciler builds them (prebuilds.ts;
    // docs admin/templates/extending-templates/prebuilt-workspaces.md).
    if (ws.deleted || isPrebuilt(ws) || (opts.workspaceIds !== undefined && !opts.workspaceIds.includes(ws.id))) continue;
    // runOnce: a workspace with a schedule but no next_start_at gets one computed from this tick.
    if (ws.autostartSchedule && ws.nextStartAt === undefined) {
      try {
        const next = nextAllowedAutostart(ws.autostartSchedule, tick);
        if (next) ws.nextStartAt = next;
      } catch {
        // An unparsable schedule: coderd leaves next_start_at unset.
      }
    }
    let due: Due;
    try {
      due = dueTransition(d, ws, tick, opts.force === true);
    } catch (err) {
      result.errors[ws.id] = err instanceof Error ? err.message : String(err);
      continue;
    }
    if (!due) continue;
    try {
      if (due.transition) d.autobuild(ws, due.transition, due.reason);
      // Made dormant in the same transaction as its build: not when the build was refused.
      if (due.reason === 'dormancy') ws.dormantAt = d.now();
      if (due.transition) result.transitions[ws.id] = due.transition;
    } catch (err) {
      // The executor logs and moves on; a 409 (a build already active) is the usual one.
      result.errors[ws.id] = err instanceof ApiError ? `${err.status} ${err.message}` : err instanceof Error ? err.message : String(err);
    }
  }
  return result;
}
