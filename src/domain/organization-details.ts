/** The Web UI details of a deployment-wide run (migrateOrganization), pure like the fleet's. */
import { whoMayApprove, type PendingApproval } from './approval-policy';
import type { FleetSummary } from './fleet-summary';
import { approvalCommands, codeSpan } from './run-details';
import { pausedLine } from './fleet-details';

/** What the details read of the run's progress (its progress query answer has all of it). */
export interface OrganizationDetailsView {
  workflowId: string;
  organization: string;
  phase: string;
  stage: string;
  templates: readonly { template: string; state: string; workflowId?: string; summary?: FleetSummary; note?: string }[];
  pendingApproval?: PendingApproval;
  /** Pauses, resumes and cancels, oldest first (the run's progress query has them). */
  control?: readonly { action: string; by: string; reason?: string; at?: string }[];
}

/** The Web UI details of a deployment-wide run: one row per template. */
export function organizationDetails(p: OrganizationDetailsView): string {
  const lines = [
    `### Organization ${p.organization} · ${heading(p)}`,
    '',
    // As `fleet status` says each row: what "0 migrated" would hide (already migrated, skipped for a person) has its column.
    '| template | state | migrated | already migrated | not ok | skipped | PVC uids kept | fleet |',
    '|---|---|---|---|---|---|---|---|',
    ...p.templates.map((r) => {
      const s = r.summary;
      const bad = s ? s.failed + s.needsAttention + s.restored : 0;
      return `| ${r.template} | ${r.state === 'nothing-to-do' ? 'nothing to do (no deprecated type)' : r.state} | ${s?.migrated ?? 0} | ${s?.alreadyMigrated ?? 0} | ${bad} | ${s?.skipped ?? 0} | ${s?.pvcUidsKept ?? 0} | ${r.workflowId ? `\`${r.workflowId}\`` : ''} |`;
    }),
  ];
  // The organization's own details do not hold its template fleet's waits (a gate of the template, of a
  // workspace): they name the fleet running now, whose details say on whom it waits.
  for (const r of p.templates.filter((x) => (x.state === 'canary' || x.state === 'rolling') && x.workflowId)) {
    lines.push('', `**Running now:** ${r.template}'s fleet \`${r.workflowId}\`: its details, and \`wsmigrate fleet status ${p.workflowId}\`, say what it waits on and who may approve`);
  }
  if (p.pendingApproval) lines.push('', `**Waiting for approval: \`${p.pendingApproval.gateId}\`** — ${p.pendingApproval.summary}`, '', `approvers: ${whoMayApprove(p.pendingApproval)}`, '', `\`${approvalCommands(p.workflowId, p.pendingApproval).cli}\``);
  const paused = pausedLine({ workflowId: p.workflowId, phase: p.phase, control: p.control ?? [], pendingApproval: p.pendingApproval });
  if (paused) lines.push('', `**${paused}**`);
  // A failed template's note is its fleet's reason: shown as written (a code span), the rest as prose.
  for (const r of p.templates.filter((x) => x.note)) lines.push('', `- ${r.template}: ${r.state === 'failed' ? codeSpan(r.note ?? '') : r.note}`);
  return lines.join('\n');
}

/** The run's state in the heading; a cancelled run says who cancelled it and why, as `fleet status` and a fleet's details do. */
function heading(p: OrganizationDetailsView): string {
  if (p.phase !== 'cancelled' && p.phase !== 'cancelling') return `${p.phase} (${p.stage})`;
  const cancel = [...(p.control ?? [])].reverse().find((c) => c.action === 'cancel');
  const who = cancel ? ` by ${cancel.by}${cancel.reason ? ` (${cancel.reason})` : ''}` : '';
  return p.phase === 'cancelled' ? `CANCELLED${who}` : `cancelling (${p.stage})${who}`;
}
