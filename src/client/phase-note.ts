/** The phase an ended run was in: a step it stopped during, or where it got to (a cancelled run that restored). */
export function lastPhaseNote(lastPhase: string | undefined): string {
  if (!lastPhase) return '';
  return ENDING_PHASES.has(lastPhase) ? `, ${lastPhase}` : ` (during ${lastPhase})`;
}

const ENDING_PHASES = new Set(['restored', 'needs-attention', 'migrated', 'already-migrated', 'dry-run', 'done', 'cancelled']);
