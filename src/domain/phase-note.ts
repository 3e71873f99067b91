/** The phase an ended run was in: a step it stopped during, or where it got to (a cancelled run that restored). */
export function lastPhaseNote(lastPhase: string | undefined): string {
  if (!lastPhase) return '';
  return ENDING_PHASES.has(lastPhase) ? `, ${lastPhase}` : ` (during ${lastPhase})`;
}

/** A phase a run ends in (rather than one it was interrupted during). */
export function isEndingPhase(phase: string): boolean {
  return ENDING_PHASES.has(phase);
}

const ENDING_PHASES = new Set(['restored', 'needs-attention', 'migrated', 'already-migrated', 'dry-run', 'done', 'cancelled']);
