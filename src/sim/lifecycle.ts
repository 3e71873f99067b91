import { ApiError } from './api-error';
import { isPrebuilt } from './prebuilds';
import { nextScheduled, parseWeeklySchedule } from './cron-schedule';
import type { SimDeployment } from './deployment';
import type { WorkspaceRecord } from './model';

export interface LifecycleTickResult {
  /** The minute evaluated (the tick truncated to the minute, as runOnce does). */
  at: string;
  /** Workspaces built by this tick, with the transition. */
  transitions: Record<string, 'start' | 'stop'>;
  /** Workspaces that were due but could not be built (a build already active, say), with the reason. */
  errors: Record<string, string>;
}

export interface LifecycleTickOptions {
  /**
   * Treat every workspace with an autostart schedule (stopped) or a deadline (running) as due now,
   * whatever the clock: "fire every due workspace now", for tests that must fire at a given moment.
   */
  force?: boolean;
  /** Only these workspaces are evaluated (all when absent): to fire one workspace at a chosen moment. */
  workspaceIds?: readonly string[];
}

type Due = { transition: 'start' | 'stop' | undefined; reason: 'autostart' | 'autostop' | 'dormancy' } | undefined;

/**
 * getNextTransition in coderd/autobuild/lifecycle_executor.go, in its order: autostop (a start past its
 * deadline; never a dormant workspace), autostart (a stop whose schedule has come round since it was
 * built; never a dormant workspace), the failed-build cleanup (failure_ttl: a stop), then dormancy
 * (time_til_dormant since last_used_at: a stop of a started workspace with reason "dormancy", or no
 * build at all for a stopped one; either way the workspace is made dormant, UpdateWorkspaceDormantDeletingAt).
 * Not modelled: the auto-delete of a dormant workspace (time_til_dormant_autodelete) and suspended owners.
 */
function dueTransition(d: SimDeployment, ws: WorkspaceRecord, tick: Date, force: boolean): Due {
  const latest = d.latestBuild(ws);
  const template = d.template(ws.templateId);
  const failed = latest.job.status === 'failed';
  // isEligibleForAutostop
  if (!failed && ws.dormantAt === undefined && latest.transition === 'start' && latest.deadline !== undefined && (force || tick.getTime() >= Date.parse(latest.deadline))) {
    return { transition: 'stop', reason: 'autostop' };
  }
  // isEligibleForAutostart: the next scheduled time after the stop build was created has passed; never a dormant workspace.
  if (!failed && latest.transition === 'stop' && ws.dormantAt === undefined && template?.meta.allowUserAutostart && ws.autostartSchedule) {
    if (force) return { transition: 'start', reason: 'autostart' };
    const next = nextScheduled(parseWeeklySchedule(ws.autostartSchedule), new Date(latest.createdAt));
    if (next && tick.getTime() >= next.getTime()) return { transition: 'start', reason: 'autostart' };
  }
  // isEligibleForFailedCleanup
  const failureTtl = template?.meta.failureTtlMs ?? 0;
  if (failed && failureTtl > 0 && latest.transition !== 'delete' && latest.job.completedAt && tick.getTime() - Date.parse(latest.job.completedAt) > failureTtl) {
    return { transition: 'stop', reason: 'autostop' };
  }
  // isEligibleForDormantStop: "Only stop started workspaces", whatever their job's status; a stopped one is only made dormant.
  const timeTilDormant = template?.meta.timeTilDormantMs ?? 0;
  if (ws.dormantAt === undefined && timeTilDormant > 0 && tick.getTime() - Date.parse(ws.lastUsedAt) > timeTilDormant) {
    return { transition: latest.transition === 'start' ? 'stop' : undefined, reason: 'dormancy' };
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
