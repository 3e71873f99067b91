/**
 * The fleet as the Temporal Web UI shows it (the workflow's "current details"): progress table,
 * the pending gate with the exact commands that decide it, failures, pacing. Pure, so the workflow
 * and the tests render it the same way.
 */
import { whoMayApprove, type PendingApproval } from './approval-policy';
import { waitLines } from './fleet-waits';
import type { FleetCounts } from './fleet-progress';
import { formatDuration } from './duration-text';
import { noDaemonOnline, pacingLine, type FleetPacingStatus } from './provisioner-pacing';
import { approvalCommands, codeSpan } from './run-details';
import { ranCountsOf, rollbacksNote } from './fleet-rollbacks';

/** What the details read of a fleet's progress (the fleet's progress query answer has all of it). */
export interface FleetDetailsView {
  workflowId: string;
  organization: string;
  template: string;
  phase: string;
  stage: string;
  dryRun: boolean;
  targetVersionId?: string;
  counts: FleetCounts;
  remaining: number;
  running: readonly unknown[];
  failures: readonly { subject: string; outcome: string; reason: string; workflowId?: string }[];
  skips?: readonly { subject: string; reason: string }[];
  declines?: readonly { subject: string; reason: string; workflowId?: string }[];
  pendingApproval?: PendingApproval;
  childApprovals: readonly { workflowId: string; gateId: string; approvers?: string }[];
  etaMs?: number;
  runs: number;
  concurrency: number;
  budget: { allowance: number; failures: number; accepted: number };
  control: readonly { action: string; by: string; reason?: string; at?: string }[];
  note?: string;
  pacing?: FleetPacingStatus;
  activeVersionLock?: { state: string; byWsmigrate?: boolean; atRunEnd?: boolean; rolledBack?: boolean };
}

/**
 * Who holds members to the template's active version, in a word: wsmigrate holds it only while a
 * run runs (and watches the active version); undefined where the note says why nothing holds it.
 */
export function activeVersionLockLine(lock: FleetDetailsView['activeVersionLock'], ended: boolean): string | undefined {
  if (!lock) return undefined;
  if (lock.state === 'given-back') {
    if (lock.atRunEnd) return 'require active version: given back (off) as this run ended (the next run, if any, switches it on again)';
    if (lock.rolledBack && !ended) return 'require active version: given back (off) while another version is active; the fleet\'s resume switches it on again once the migrated version is active';
    return 'require active version: given back (off)';
  }
  if (lock.state === 'already-on' && !lock.byWsmigrate) return "require active version: on (the template's own setting)";
  if (lock.state !== 'switched-on' && lock.state !== 'already-on') return undefined;
  return ended
    ? 'require active version: still on after this run ended, and no run watches the active version'
    : 'require active version: on while this run runs (it watches the active version every minute; given back when the run ends)';
}

export function detailsMarkdown(p: FleetDetailsView, failure?: string): string {
  const c = p.counts;
  const cancel = p.phase === 'cancelled' || p.phase === 'cancelling' ? p.control.find((c) => c.action === 'cancel') : undefined;
  const phase = p.phase === 'cancelled' ? 'CANCELLED' : p.phase === 'failed' ? `FAILED (during ${p.stage})` : `${p.phase} (${p.stage})`;
  const lines = [
    `### Fleet ${p.organization}/${p.template} · ${phase}${cancel ? ` by ${cancel.by}${cancel.reason ? ` (${cancel.reason})` : ''}` : ''}${p.dryRun ? ' · dry run' : ''}`,
    '',
    ...(failure ? [`**Failed:** ${codeSpan(failure)}`, ''] : []),
    '| migrated | already | restored | needs attention | failed | skipped | running | to go (with running) | PVC uids kept |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${c.migrated} | ${c['already-migrated']} | ${c.restored} | ${c['needs-attention']} | ${c.failed} | ${c.skipped}${c.dormant ? ` (${c.dormant} dormant)` : ''} | ${p.running.length} | ${p.remaining} | ${c.pvcUidsKept} |`,
    '',
    `target version: \`${p.targetVersionId ?? '(template first)'}\` · concurrency ${p.concurrency} · budget ${p.budget.failures - p.budget.accepted}/${p.budget.allowance}${p.etaMs !== undefined && !noDaemonOnline(p.pacing) ? ` · ETA ${formatDuration(p.etaMs)}` : ''} · run ${p.runs}`,
  ];
  if (p.pendingApproval) {
    const commands = approvalCommands(p.workflowId, p.pendingApproval);
    lines.push('', `**Waiting for approval: \`${p.pendingApproval.gateId}\`** — ${p.pendingApproval.summary}`, '', `approvers: ${whoMayApprove(p.pendingApproval)}`, '', `\`${commands.cli}\``, '', `signal \`approval\`: \`${commands.signalJson}\``);
  }
  const paused = pausedLine(p);
  if (paused) lines.push('', `**${paused}**`);
  if (p.childApprovals.length) lines.push('', `Migrations waiting for approval: ${p.childApprovals.slice(0, 10).map((a) => `\`${a.workflowId}\` (${a.gateId}${a.approvers ? `; approvers: ${a.approvers}` : ''})`).join(', ')}`);
  const ended = p.phase === 'done' || p.phase === 'cancelled' || p.phase === 'failed';
  const rollbacks = rollbacksNote(ranCountsOf(c), p.workflowId, ended);
  if (rollbacks) lines.push('', `**${rollbacks}**`);
  if (p.failures.length) {
    lines.push('', '**Failures**', '');
    for (const f of p.failures.slice(-10)) lines.push(`- \`${f.subject}\` ${f.outcome}: ${reasonText(f)}`);
  }
  if (p.declines?.length) {
    lines.push('', `**Declined at a gate** (${p.counts.declined ?? p.declines.length}: rejected, or not answered in time; left as they were, not failures)`, '');
    for (const d of p.declines.slice(-10)) lines.push(`- \`${d.subject}\` ${reasonText(d)}`);
  }
  if (p.skips?.length) {
    lines.push('', '**Skipped** (a person must act first)', '');
    for (const s of p.skips.slice(-10)) lines.push(`- \`${s.subject}\` ${codeSpan(s.reason)}`);
  }
  if (p.pacing) lines.push('', pacingLine(p.pacing));
  const lock = activeVersionLockLine(p.activeVersionLock, ended);
  if (lock) lines.push('', lock);
  if (p.note) lines.push('', p.note);
  return lines.join('\n');
}

/**
 * Who paused the fleet, why, since when and the command that resumes it, as `fleet status` says it:
 * paused, or paused while it waits at its own gate (an approval alone then starts nothing).
 */
export function pausedLine(p: Pick<FleetDetailsView, 'workflowId' | 'phase' | 'control' | 'pendingApproval'>): string | undefined {
  const last = [...p.control].reverse().find((c) => c.action === 'pause' || c.action === 'resume' || c.action === 'cancel');
  if (last?.action !== 'pause') return undefined;
  const atGate = p.phase === 'awaiting-approval' ? p.pendingApproval?.gateId : undefined;
  if (p.phase !== 'paused' && !atGate) return undefined;
  return waitLines([{ kind: 'paused', workflowId: p.workflowId, by: last.by, since: last.at ?? '?', ...(last.reason ? { reason: last.reason } : {}), ...(atGate ? { atGate } : {}) }])[0];
}

/**
 * How much of a workspace's reason a fleet keeps (its failures and declines, in every run's state and
 * history): the details show all of it, since the cause comes last ("… Cause: build #3 … ended failed:
 * <Coder's words>"), and say where a reason was cut.
 */
export const FLEET_REASON_CHARS = 300;

/** A reason in a code span; one the fleet cut says so, with the command that shows all of it. */
function reasonText(f: { reason: string; workflowId?: string }): string {
  if (f.reason.length < FLEET_REASON_CHARS) return codeSpan(f.reason);
  return `${codeSpan(`${f.reason.slice(0, FLEET_REASON_CHARS)}…`)}${f.workflowId ? ` (all of it: \`wsmigrate status ${f.workflowId}\`)` : ''}`;
}
