/** The Web UI details of a deployment-wide run (migrateOrganization), pure like the fleet's. */
import { whoMayApprove, type PendingApproval } from './approval-policy';
import type { FleetSummary } from './fleet-summary';
import { approvalCommands, codeSpan } from './run-details';

/** What the details read of the run's progress (its progress query answer has all of it). */
export interface OrganizationDetailsView {
  workflowId: string;
  organization: string;
  phase: string;
  stage: string;
  templates: readonly { template: string; state: string; workflowId?: string; summary?: FleetSummary; note?: string }[];
  pendingApproval?: PendingApproval;
}

/** The Web UI details of a deployment-wide run: one row per template. */
export function organizationDetails(p: OrganizationDetailsView): string {
  const lines = [
    `### Organization ${p.organization} · ${p.phase} (${p.stage})`,
    '',
    '| template | state | migrated | not ok | PVC uids kept | fleet |',
    '|---|---|---|---|---|---|',
    ...p.templates.map((r) => {
      const s = r.summary;
      const bad = s ? s.failed + s.needsAttention + s.restored : 0;
      return `| ${r.template} | ${r.state === 'nothing-to-do' ? 'nothing to do (no deprecated type)' : r.state} | ${s?.migrated ?? 0} | ${bad} | ${s?.pvcUidsKept ?? 0} | ${r.workflowId ? `\`${r.workflowId}\`` : ''} |`;
    }),
  ];
  if (p.pendingApproval) lines.push('', `**Waiting for approval: \`${p.pendingApproval.gateId}\`** — ${p.pendingApproval.summary}`, '', `approvers: ${whoMayApprove(p.pendingApproval)}`, '', `\`${approvalCommands(p.workflowId, p.pendingApproval).cli}\``);
  // A failed template's note is its fleet's reason: shown as written (a code span), the rest as prose.
  for (const r of p.templates.filter((x) => x.note)) lines.push('', `- ${r.template}: ${r.state === 'failed' ? codeSpan(r.note ?? '') : r.note}`);
  return lines.join('\n');
}
