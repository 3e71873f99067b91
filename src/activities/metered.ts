import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../domain/failure-types';
import type { MigrationMetrics, Notification } from './ports';

type ActivityFn = (...args: never[]) => Promise<unknown>;

const OUTCOME_OF_NOTIFICATION: Partial<Record<Notification['kind'], Parameters<MigrationMetrics['workspaceFinished']>[0]>> = {
  'migration-done': 'migrated',
  restored: 'restored',
  'migration-failed': 'needs-attention',
};

/**
 * Counts what the activities see, keyed by activity name, without touching the activities
 * themselves: the end of a migration shows as its final notification, a guard block as a denied
 * verification, a damaged workspace as a data-loss failure of the post-build check.
 */
export function meterActivities<T extends Record<string, ActivityFn>>(activities: T, metrics: MigrationMetrics): T {
  const gateOpenedAt = new Map<string, number>();
  const observers: Record<string, { ok?: (input: unknown, result: unknown) => void; failed?: (err: unknown) => void }> = {
    notify: {
      ok: (input) => {
        const n = input as Notification;
        const outcome = OUTCOME_OF_NOTIFICATION[n.kind];
        if (outcome) metrics.workspaceFinished(outcome);
        const key = `${n.workflowId}\u0000${n.gateId ?? ''}`;
        if (n.kind === 'approval-requested') gateOpenedAt.set(key, n.requestedAt ? Date.parse(n.requestedAt) : Date.now());
        if (n.kind === 'approval-closed' || n.kind === 'approval-timed-out') {
          // Another worker may have sent the request; the workflow's own timestamp is the one to trust.
          const opened = n.requestedAt ? Date.parse(n.requestedAt) : gateOpenedAt.get(key);
          gateOpenedAt.delete(key);
          const decision = n.kind === 'approval-timed-out' ? 'timed-out' : (n.decision?.decision ?? 'approve');
          if (opened !== undefined && !Number.isNaN(opened)) metrics.approvalDecided(n.gateId ?? 'unknown', decision, Math.max(0, (Date.now() - opened) / 1000));
        }
      },
    },
    verifyMigration: {
      ok: (_input, result) => {
        if ((result as { verdict?: string }).verdict === 'deny') metrics.deleteBlocked('verify');
      },
    },
    requireActiveVersion: {
      ok: (input, result) => {
        const state = (result as { state?: string }).state;
        metrics.activeVersionLockRead((input as { template: string }).template, state === 'switched-on' || state === 'already-on');
      },
    },
    releaseActiveVersion: {
      ok: (input, result) => {
        // Given back, or off already: nothing holds members to the active version any more.
        if (result === 'switched-off' || result === 'was-off') metrics.activeVersionLockRead((input as { template: string }).template, false);
      },
    },
    postBuildCheck: {
      failed: (err) => {
        if (err instanceof ApplicationFailure && err.type === FailureType.dataLoss) metrics.damagedWorkspaceFound('volume-lost');
      },
    },
  };
  const metered: Record<string, ActivityFn> = { ...activities };
  for (const [name, observe] of Object.entries(observers)) {
    const activity = activities[name];
    if (!activity) continue;
    metered[name] = async (...args: never[]) => {
      try {
        const result = await activity(...args);
        safely(() => observe.ok?.(args[0], result));
        return result;
      } catch (err) {
        safely(() => observe.failed?.(err));
        throw err;
      }
    };
  }
  return metered as T;
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // Counting must never change what an activity returns.
  }
}
