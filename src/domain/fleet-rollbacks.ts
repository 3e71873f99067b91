/**
 * A rolled-back migration is safe (its workspace is as it was), so it never spends the failure
 * budget: a fleet whose migrations all roll back goes on, stopping and rebuilding one owner's
 * workspace after another for nothing. That is what a fault of the target version looks like (it
 * does not build, its check fails), so it is named where an SRE looks: `fleet status`, the Web UI's
 * details and the end's table. Pure: the CLI and the workflow's details say it the same way.
 */
import type { FleetCounts } from './fleet-progress';

/** What the note reads: the fleet's counts as it runs, or its summary at the end. */
export interface RanCounts {
  migrated: number;
  restored: number;
  needsAttention: number;
  failed: number;
}

export function ranCountsOf(c: FleetCounts): RanCounts {
  return { migrated: c.migrated, restored: c.restored, needsAttention: c['needs-attention'], failed: c.failed };
}

/** Named from this many rolled back on, when they are at least half of the migrations that ran. */
export const ROLLBACKS_NOTED_FROM = 3;

/** The migrations that ran to an end of their own: not the already migrated, dry runs, declined, skipped or waiting. */
export function migrationsThatRan(c: RanCounts): number {
  return c.migrated + c.restored + c.needsAttention + c.failed;
}

/** The sentence, or undefined while rollbacks are few or a minority of what ran. */
export function rollbacksNote(c: RanCounts, fleetWorkflowId: string, ended = false): string | undefined {
  const ran = migrationsThatRan(c);
  if (c.restored < ROLLBACKS_NOTED_FROM || c.restored * 2 < ran) return undefined;
  const what = `${c.restored} of the ${ran} migrations that ran were rolled back (each workspace stopped, then rebuilt as it was)`;
  if (ended) return `${what}: when their reasons agree, the target version is likely at fault; fix it before running the fleet again.`;
  return `${what}. Rollbacks do not spend the failure budget, so the fleet goes on: when their reasons agree, the target version is likely at fault. Pause it (wsmigrate fleet pause ${fleetWorkflowId}) and read them.`;
}
