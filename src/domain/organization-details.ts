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
  const pause = organizationPause(p);
  const lines = [
    `### Organization ${p.organization} · ${heading(p)}`,
    '',
    // As `fleet status` says each row: what "0 migrated" would hide (already migrated, skipped for a person) has its column.
    '| template | state | migrated | already migrated | not ok | skipped | PVC uids kept | fleet |',
    '|---|---|---|---|---|---|---|---|',
    ...p.templates.map((r) => {
      const s = r.summary;
      const bad = s ? s.failed + s.needsAttention + s.restored : 0;
      return `| ${r.template} | ${rowStateText(r, pause)} | ${s?.migrated ?? 0} | ${s?.alreadyMigrated ?? 0} | ${bad} | ${s?.skipped ?? 0} | ${s?.pvcUidsKept ?? 0} | ${r.workflowId ? `\`${r.workflowId}\`` : ''} |`;
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

/** The organization's own pause while it holds (paused, or paused at its shared gate, where an approval alone starts nothing): who, why, since when. */
export function organizationPause(p: { phase: string; pendingApproval?: { gateId: string }; control?: readonly { action: string; by: string; reason?: string; at?: string }[] }): { by: string; reason?: string; at?: string } | undefined {
  const last = [...(p.control ?? [])].reverse().find((c) => c.action === 'pause' || c.action === 'resume' || c.action === 'cancel');
  if (last?.action !== 'pause') return undefined;
  return p.phase === 'paused' || (p.phase === 'awaiting-approval' && p.pendingApproval) ? last : undefined;
}

/**
 * A template's state on its row. While the organization's own pause holds, the template whose turn it
 * is says so (it read `canary` while its canary was held unstarted): `paused by alice (lunch) before its
 * canary`, or, its fleet started (and paused with it), `canary, paused by alice (lunch)`.
 */
export function rowStateText(r: { state: string; workflowId?: string }, pause: { by: string; reason?: string } | undefined): string {
  if (r.state === 'nothing-to-do') return 'nothing to do (no deprecated type)';
  if (!pause || (r.state !== 'canary' && r.state !== 'rolling')) return r.state;
  const who = `paused by ${pause.by}${pause.reason ? ` (${pause.reason})` : ''}`;
  // The rest fleet's id is the template's own; the row still names the canary's until the rest starts.
  const started = r.state === 'canary' ? Boolean(r.workflowId) : Boolean(r.workflowId) && !r.workflowId!.endsWith('/canary');
  if (!started) return `${who} before its ${r.state === 'canary' ? 'canary' : 'rest'}`;
  return `${r.state}, ${who}`;
}
