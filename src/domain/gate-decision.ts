/**
 * How a gate ended a run without a "yes": a person rejected it, or nobody answered before its
 * time-out (escalated once, then as long again). Either is a decision about the run, never a
 * failure of it: status, the fleet's counts and the exit code say so in these words. Pure.
 */
import { formatDuration } from './duration-text';

export interface GateDecision {
  gateId: string;
  how: 'rejected' | 'timed-out';
  /** Who rejected it (a fleet's cancel rejects a gate on its canceller's behalf); absent for a time-out. */
  by?: string;
  comment?: string;
  /** When the gate opened, and when the decision (or the time-out) came. */
  requestedAt: string;
  at: string;
  /** Nobody answered within the approval timeout once, so it was escalated before it ended. */
  escalated?: boolean;
}

/** `7d`, `1d12h`, `4h`, `2h30m`; under an hour as formatDuration says it (`45s`, `3m05s`). */
export function waitedText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return formatDuration(ms);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  return `${d ? `${d}d` : ''}${h ? `${h}h` : ''}${m ? `${m}m` : ''}`;
}

/** `rejected by sre at the apply gate ('not today')`, or `the stop gate timed out after 8h with no decision (escalated once)`. */
export function gateDecisionText(d: GateDecision): string {
  if (d.how === 'rejected') return `rejected by ${d.by ?? 'someone'} at the ${d.gateId} gate${d.comment ? ` ('${d.comment}')` : ''}`;
  const waited = Date.parse(d.at) - Date.parse(d.requestedAt);
  return `the ${d.gateId} gate timed out${Number.isFinite(waited) && waited >= 0 ? ` after ${waitedText(waited)}` : ''} with no decision${d.escalated ? ' (escalated once)' : ''}`;
}
