/** The phase an ended run was in: a step it stopped during, or where it got to (a cancelled run that restored). */
export function lastPhaseNote(lastPhase: string | undefined): string {
  if (!lastPhase) return '';
  return ENDING_PHASES.has(lastPhase) ? `, ${lastPhase}` : ` (during ${lastPhase})`;
}

/** How a run ended without a result, as its Web UI details say it. */
export interface RunEnding {
  cancelled?: boolean;
  failure?: string;
  declined?: boolean;
}

/** The phase line of a run that ended without a result: cancelled, declined at a gate, or failed where it was. */
export function endedPhaseText(how: RunEnding, lastPhase: string): string {
  if (how.cancelled) return `cancelled (during ${lastPhase})`;
  if (how.declined) return `declined: ${how.failure ?? ''}`;
  return `failed${lastPhaseNote(lastPhase)}`;
}

/** A phase a run ends in (rather than one it was interrupted during). */
export function isEndingPhase(phase: string): boolean {
  return ENDING_PHASES.has(phase);
}

const ENDING_PHASES = new Set(['restored', 'needs-attention', 'migrated', 'already-migrated', 'dry-run', 'done', 'cancelled']);
