import type { MigrationStatus, WaitingMigration } from '../client/approvals';

/** `/wsmigrate status ID`, in the words of `wsmigrate status`. */
export function describeStatus(workflowId: string, s: MigrationStatus): string {
  const lines = [`\`${workflowId}\`: *${s.phase}*`];
  if ('stepsDone' in s) lines.push(`done: ${s.stepsDone.join(', ') || '-'}`);
  if ('counts' in s) {
    // A fleet: where it stands, as `wsmigrate fleet status` shows it.
    const c = s.counts;
    lines.push(
      `${s.organization}/${s.template} · stage ${s.stage}: migrated *${c.migrated}*, already migrated ${c['already-migrated']}, restored ${c.restored}, needs attention ${c['needs-attention']}, failed ${c.failed}, skipped ${c.skipped}; running ${s.running.length}, remaining ${s.remaining}`,
    );
    for (const a of s.childApprovals.slice(0, 5)) lines.push(`child \`${a.workflowId}\` waits at \`${a.gateId}\``);
  }
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
