/**
 * What the Temporal Web UI shows for a run: a one-line static summary set at start, and the
 * "current details" markdown the workflow keeps up to date. Pure, so migrateWorkspace,
 * migrateTemplate and the fleet render the same way and tests check it without a server.
 */
import { whoMayApprove, type PendingApproval } from './approval-policy';

export interface RunDetails {
  /** A heading, e.g. `alice/dev → k8s-dev @ k8s-dev-v1-3f2a`. */
  title: string;
  workflowId: string;
  phase: string;
  stepsDone?: readonly string[];
  verdict?: { verdict: string; summary: string; reasons?: readonly string[] };
  pending?: PendingApproval;
  error?: string;
  /** Why the run failed, as Temporal will report it: shown right under the phase. */
  failure?: string;
  /** Extra markdown blocks (the fleet's progress table, failures …), each with its heading. */
  sections?: readonly { heading: string; markdown: string }[];
}

/** `alice/dev → k8s-dev @ k8s-dev-v1-3f2a`: what a workspace run does, in the UI's list of runs. */
export function workspaceRunSummary(owner: string, workspace: string, template: string, version: string): string {
  return `${owner}/${workspace} → ${template} @ ${version}`;
}

export function templateRunSummary(organization: string, template: string): string {
  return `template ${organization}/${template} → _v1 types`;
}

/** The exact commands that decide the pending gate, so nobody has to copy a plan hash by hand. */
export function approvalCommands(workflowId: string, pending: Pick<PendingApproval, 'gateId' | 'planHash'>): { cli: string; signalJson: string; signal: string } {
  const signalJson = JSON.stringify({ gateId: pending.gateId, planHash: pending.planHash, approver: '<you>', decision: 'approve' });
  return {
    cli: `wsmigrate approve ${workflowId} --approver <you> --gate ${pending.gateId} --plan ${pending.planHash}`,
    signalJson,
    signal: `temporal workflow signal --workflow-id '${workflowId}' --name approval --input '${signalJson}'`,
  };
}

/**
 * Text as a markdown code span, shown exactly as written: a reason such as "check --template <name>"
 * would otherwise lose `<name>` (read as an HTML tag) and turn `--` into a dash.
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** Markdown shown in the Web UI's "Current details"; short, no secrets (names, phases, hashes only). */
export function renderRunDetails(d: RunDetails): string {
  // A blank line between facts: markdown runs consecutive lines into one paragraph.
  const lines = [`### ${d.title}`, '', `**Phase:** ${d.phase}`];
  if (d.failure) lines.push('', `**Failed:** ${codeSpan(d.failure)}`);
  if (d.stepsDone) lines.push('', `**Steps done:** ${d.stepsDone.length > 0 ? d.stepsDone.join(' → ') : '–'}`);
  if (d.verdict) {
    lines.push('', `**Guard:** ${d.verdict.verdict} — ${d.verdict.summary}`);
    for (const r of (d.verdict.reasons ?? []).slice(0, 5)) lines.push(`- ${r}`);
  }
  if (d.pending) {
    const c = approvalCommands(d.workflowId, d.pending);
    lines.push(
      '',
      `#### Waiting for approval: \`${d.pending.gateId}\`${d.pending.escalated ? ' (escalated)' : ''}`,
      `${d.pending.summary}`,
      `since ${d.pending.requestedAt}, plan \`${d.pending.planHash}\``,
      '',
      `approvers: ${whoMayApprove(d.pending)}`,
      '',
      'Approve (or `reject`) with:',
      '```',
      c.cli,
      '```',
      'or signal `approval` (Web UI: Send a Signal) with:',
      '```json',
      c.signalJson,
      '```',
    );
  }
  if (d.error) lines.push('', `**Error:** ${codeSpan(d.error)}`);
  for (const s of d.sections ?? []) lines.push('', `#### ${s.heading}`, s.markdown);
  return lines.join('\n');
}

/**
 * A template run's pushed version in its details, with what to run next, as `wsmigrate status` says it:
 * a fleet refuses a version that is not active, so an unpromoted one names the promote first.
 */
export function templateVersionSection(v: {
  organization: string;
  template: string;
  versionId: string;
  versionName?: string;
  /** promoted: active now; pending: the run may still promote it; not-promoted: it will not (pushed only, or it ended first). */
  state: 'promoted' | 'pending' | 'not-promoted';
}): { heading: string; markdown: string } {
  const fleet = `wsmigrate fleet start --org ${v.organization} --template ${v.template} --version ${v.versionId}`;
  const name = v.versionName ?? v.versionId;
  const next =
    v.state === 'promoted'
      ? `next: \`${fleet}\``
      : v.state === 'pending'
        ? `not active yet: this run promotes it once its \`template-promote\` gate is approved; then \`${fleet}\``
        : `not active (this run does not promote it): promote it first, \`coder templates versions promote --template ${v.template} --template-version ${name}\`, then \`${fleet}\``;
  return { heading: 'New version', markdown: `\`${name}\` (\`${v.versionId}\`)\n\n${next}` };
}
