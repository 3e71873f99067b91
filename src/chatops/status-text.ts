import type { MigrationStatus, WaitingMigration } from '../client/approvals';

/** `/wsmigrate status ID`, in the words of `wsmigrate status`. */
export function describeStatus(workflowId: string, s: MigrationStatus): string {
  const lines = [`\`${workflowId}\`: *${s.phase}*`];
  if ('stepsDone' in s) lines.push(`done: ${s.stepsDone.join(', ') || '-'}`);
  if ('verdict' in s && s.verdict) lines.push(`guard: ${s.verdict.verdict}: ${s.verdict.summary}`);
  if (s.pendingApproval) {
    lines.push(`waiting for approval of \`${s.pendingApproval.gateId}\` since ${s.pendingApproval.requestedAt}${s.pendingApproval.escalated ? ' (escalated)' : ''}`);
    lines.push(`> ${s.pendingApproval.summary}`);
    lines.push(`plan \`${s.pendingApproval.planHash}\``);
  }
  if ('error' in s && s.error) lines.push(`error: ${s.error}`);
  return lines.join('\n');
}

export function describeWaiting(waiting: WaitingMigration[]): string {
  if (waiting.length === 0) return 'Nothing is waiting for an approval.';
  return [`${waiting.length} waiting for a decision:`, ...waiting.map((w) => `• \`${w.workflowId}\` at \`${w.pending.gateId}\`${w.pending.escalated ? ' (escalated)' : ''}: ${w.pending.summary}`)].join('\n');
}
