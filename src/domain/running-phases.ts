/** One running migration as visibility lists it: its WsmigratePhase and WsmigratePendingApproval search attributes. */
export interface RunningRow {
  phase?: string;
  pendingGate?: string;
}

/**
 * Between milestones a migration has no phase in visibility (lean runs write only compensating and
 * the endings), so it is counted as 'in progress': 'starting' would be false for one that started long ago.
 */
export const BETWEEN_MILESTONES = 'in progress';

/** The template's running migrations counted by what visibility knows of each: a gate, a milestone, else in progress. */
export function countRunningByPhase(rows: Iterable<RunningRow>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) {
    const phase = r.pendingGate && r.pendingGate !== 'none' ? 'awaiting-approval' : (r.phase ?? BETWEEN_MILESTONES);
    counts[phase] = (counts[phase] ?? 0) + 1;
  }
  return counts;
}
