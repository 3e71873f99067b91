import { ApplicationFailure, isCancellation, proxyActivities, setCurrentDetails, setHandler, upsertMemo, upsertSearchAttributes, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { migrateTemplateInputSchema, type MigrateTemplateInput } from '../domain/migration-input';
import { parseWorkflowInput } from './workflow-input';
import { renderRunDetails, templateRunSummary, templateVersionSection } from '../domain/run-details';
import { endedPhaseText, type RunEnding } from '../domain/phase-note';
import { templateStatusQuery, type TemplateMigrationResult, type TemplateMigrationStatus, type TemplatePhase } from '../contracts/migrate-template';
import { ApprovalGates } from './approval-gates';
import { QUICK_STEP, withActivityMessage } from './activity-presets';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';
import { FailureType } from '../domain/failure-types';
import { gateDecisionText } from '../domain/gate-decision';

// Template archives can be large: a little longer than a workspace's quick steps.
const quick: ActivityOptions = { ...QUICK_STEP, startToCloseTimeout: '5m' };
const importWait: ActivityOptions = { ...quick, startToCloseTimeout: '30m', heartbeatTimeout: '2m' };

/**
 * The template half of the runbook: pull the active version, rewrite it to _v1 types with removed{}
 * guards, show the report, push a new version, and promote it after approval.
 */
export async function migrateTemplate(rawInput: MigrateTemplateInput): Promise<TemplateMigrationResult> {
  const view: EndedView = {};
  try {
    return await migrateTemplateSteps(rawInput, view);
  } catch (err) {
    const failure = withActivityMessage(err);
    // The Web UI's details must not go on showing a gate (and the commands that approve it) once the run ended.
    view.ended?.(isCancellation(err) ? { cancelled: true } : { failure: (failure as Error).message, declined: (failure as ApplicationFailure).type === FailureType.rejected });
    throw failure;
  }
}

/** How the details show a run that ended without a result: cancelled, declined at a gate, or failed. */
interface EndedView {
  ended?: (how: RunEnding) => void;
}

async function migrateTemplateSteps(rawInput: MigrateTemplateInput, view: EndedView): Promise<TemplateMigrationResult> {
  const input = parseWorkflowInput(migrateTemplateInputSchema, rawInput);
  const acts = proxyActivities<WsmigrateActivities>(quick);
  const slow = proxyActivities<WsmigrateActivities>(importWait);
  const status: TemplateMigrationStatus = { phase: 'preflight', approvals: [] };
  const { workflowId } = workflowInfo();
  const title = templateRunSummary(input.organization, input.template);
  let promoted = false;
  const versionSections = (ended: boolean) =>
    status.newVersionId
      ? [templateVersionSection({ organization: input.organization, template: input.template, versionId: status.newVersionId, ...(status.report?.versionName ? { versionName: status.report.versionName } : {}), state: promoted ? 'promoted' : ended || input.stopBeforePromote ? 'not-promoted' : 'pending' })]
      : [];
  const showDetails = () => setCurrentDetails(renderRunDetails({ title, workflowId, phase: status.phase, pending: gates.pending, sections: versionSections(status.phase === 'done') }));
  view.ended = ({ cancelled, failure, declined }) =>
    setCurrentDetails(
      renderRunDetails({
        title,
        workflowId,
        phase: endedPhaseText({ cancelled, failure, declined }, status.phase),
        ...(failure && !declined ? { failure } : {}),
        sections: versionSections(true),
      }),
    );
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify.executeWithOptions({ summary: `notify ${n.kind}` }, [n]), showDetails);
  setHandler(templateStatusQuery, () => ({ ...status, pendingApproval: gates.pending, approvals: [...gates.receipts] }));
  const enter = (phase: TemplatePhase) => {
    status.phase = phase;
    upsertSearchAttributes([{ key: WsmigratePhase, value: `template-${phase}` }]);
    showDetails();
  };
  upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  const subject = `template ${input.organization}/${input.template}`;

  enter('preflight');
  const pf = await acts.preflightTemplate.executeWithOptions({ summary: `preflight ${subject}: Coder version, active version` }, [{ organization: input.organization, template: input.template }]);
  enter('rewriting');
  const rewrite = await acts.rewriteTemplateSource.executeWithOptions({ summary: input.zeroTouch ? 'rewrite the active version to a zero-touch _v1 version (removed{} + conditional import{})' : 'rewrite the active version to _v1 types with removed{} guards' }, [{ subject, versionId: pf.activeVersionId, renameDifferent: input.renameDifferent, allowRemoteModules: input.allowRemoteModules, ...(input.zeroTouch ? { zeroTouch: true } : {}), ...(input.dryRun ? {} : { pushTo: { organization: input.organization, template: input.template } }) }]);
  const { source, ...report } = rewrite;
  status.report = report;
  const base = { previousActiveVersionId: pf.activeVersionId, report };
  if (!source) {
    enter('unchanged');
    return { outcome: 'unchanged', versionId: pf.activeVersionId, ...base };
  }
  if (input.dryRun) {
    enter('dry-run');
    return { outcome: 'dry-run', versionId: pf.activeVersionId, ...base };
  }

  const summary =
    `${subject}: ${report.renamedCount} reference(s) renamed to _v1, ${report.guards.length} removed{} guard(s) for ${report.protectedResources.join(', ') || 'no protected resources'}` +
    (report.refused.length ? `; ${report.refused.length} DIFFERENT type(s) left for import: ${report.refused.map((r) => r.type).join(', ')}` : '');
  enter('awaiting-approval');
  const pushGate = await gates.request('template-push', `sha256:${source.sha256}`, `Push new version. ${summary}`);
  if (pushGate === 'rejected' || pushGate === 'timed-out') {
    throw ApplicationFailure.create({ message: `${subject}: ${gates.lastDecision ? gateDecisionText(gates.lastDecision) : `the push gate ${pushGate}`}: nothing pushed, nothing changed`, type: FailureType.rejected, nonRetryable: true });
  }
  enter('pushing');
  const pushed = await slow.pushTemplateVersion.executeWithOptions({ summary: `push version ${rewrite.versionName} and wait for Coder's import` }, [{ subject, organizationId: pf.organizationId, templateId: pf.templateId, sourceRef: source.ref, versionName: rewrite.versionName, sourceVersionId: pf.activeVersionId, organization: input.organization, template: input.template }]);
  status.newVersionId = pushed.versionId;
  if (input.stopBeforePromote) {
    enter('done');
    upsertMemo({ outcome: 'pushed', versionId: pushed.versionId });
    return { outcome: 'pushed', versionId: pushed.versionId, versionName: pushed.versionName, ...base };
  }
  enter('awaiting-approval');
  const promoteGate = await gates.request('template-promote', `version:${pushed.versionId}`, `Promote ${pushed.versionName} to active. ${summary}`);
  if (promoteGate === 'rejected' || promoteGate === 'timed-out') {
    throw ApplicationFailure.create({
      message: `${subject}: ${gates.lastDecision ? gateDecisionText(gates.lastDecision) : `the promote gate ${promoteGate}`}: ${pushed.versionName} stays pushed but inactive (version ${pushed.versionId})`,
      type: FailureType.rejected,
      nonRetryable: true,
    });
  }
  enter('promoting');
  await acts.promoteTemplateVersion.executeWithOptions({ summary: `promote ${pushed.versionName} to active` }, [{ subject, templateId: pf.templateId, versionId: pushed.versionId, sourceVersionId: pf.activeVersionId }]);
  promoted = true;
  enter('done');
  upsertMemo({ outcome: 'promoted', versionId: pushed.versionId });
  return { outcome: 'promoted', versionId: pushed.versionId, versionName: pushed.versionName, ...base };
}
