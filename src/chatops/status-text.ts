import { silentRunsText, type RunStatus, type WaitingRuns } from '../client/approvals';
import { lastPhaseNote } from '../domain/phase-note';

/** `/wsmigrate status ID`, in the words of `wsmigrate status` (and `fleet status` for a fleet): a failed run says failed and why. */
export function describeStatus(workflowId: string, s: RunStatus): string {
  const lines = [`\`${workflowId}\`: *${s.phase}*${lastPhaseNote(s.lastPhase)}`];
  if (s.run.reason) lines.push(`reason: ${s.run.reason}`);
  if (s.stepsDone) lines.push(`done: ${s.stepsDone.join(', ') || '-'}`);
  const d = s.detail;
  if (d && 'counts' in d) {
    // A fleet: where it stands, as `wsmigrate fleet status` shows it.
    const c = d.counts;
    lines.push(
      `${d.organization}/${d.template} · stage ${d.stage}: migrated *${c.migrated}*${c.recovered ? ` (of them recovered ${c.recovered})` : ''}, already migrated ${c['already-migrated']}, restored ${c.restored}, needs attention ${c['needs-attention']}, failed ${c.failed}, ${c.declined ? `declined at a gate ${c.declined}, ` : ''}skipped ${c.skipped}${c.dormant ? ` (${c.dormant} dormant)` : ''}; running ${d.running.length}, remaining ${d.remaining}`,
    );
    for (const f of d.failures.slice(-5)) lines.push(`• \`${f.subject}\` ${f.outcome}: ${f.reason}`);
    for (const x of (d.declines ?? []).slice(-5)) lines.push(`• \`${x.subject}\` declined: ${x.reason}`);
    for (const k of (d.skips ?? []).slice(-5)) lines.push(`• \`${k.subject}\` ${k.reason}`);
    for (const a of d.childApprovals.slice(0, 5)) lines.push(`child \`${a.workflowId}\` waits at \`${a.gateId}\``);
  }
  if (s.verdict) lines.push(`guard: ${s.verdict.verdict}: ${s.verdict.summary}`);
  for (const w of d && 'warnings' in d ? (d.warnings ?? []) : []) lines.push(`warning: ${w}`);
  if (s.pendingApproval) {
    lines.push(`waiting for approval of \`${s.pendingApproval.gateId}\` since ${s.pendingApproval.requestedAt}${s.pendingApproval.escalated ? ' (escalated)' : ''}`);
    lines.push(`> ${s.pendingApproval.summary}`);
    lines.push(`plan \`${s.pendingApproval.planHash}\``);
  }
  if (s.error && s.error !== s.run.reason && s.phase !== 'declined') lines.push(`error: ${s.error}`);
  return lines.join('\n');
}

export function describeWaiting({ waiting, silent }: WaitingRuns): string {
  const silentLine = silent.length > 0 ? [silentRunsText(silent)] : [];
  if (waiting.length === 0) return ['Nothing is waiting for an approval.', ...silentLine].join('\n');
  return [`${waiting.length} waiting for a decision:`, ...waiting.map((w) => `• \`${w.workflowId}\` at \`${w.pending.gateId}\`${w.pending.escalated ? ' (escalated)' : ''}: ${w.pending.summary}`), ...silentLine].join('\n');
}
