import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  isCancellation,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  TerminatedFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WsmigrateActivities } from '../activities';
import { fleetWorkflowId, type MigrateFleetInput } from '../domain/fleet-input';
import { templateWorkflowId } from '../domain/migration-input';
import { fnv1a } from '../domain/fnv1a';
import { organizationDetails } from '../domain/organization-details';
import { migrateOrganizationInputSchema, type MigrateOrganizationInput, type MigrateOrganizationParams } from '../domain/organization-input';
import { QUICK_STEP, withActivityMessage } from './activity-presets';
import { FailureType } from '../domain/failure-types';
import { canaryThenRest } from '../domain/fleet-summary';
import { gateDecisionText } from '../domain/gate-decision';
import { codeSpan } from '../domain/run-details';
import { rolledBackAtEndText } from '../domain/rolled-back-at-end';
import { ApprovalGates } from './approval-gates';
import {
  cancelFleetSignal,
  fleetEndedSignal,
  pauseFleetSignal,
  resumeFleetSignal,
  type FleetControlEntry,
  type FleetControlInput,
  type FleetPhase,
  type FleetResult,
  type FleetSummary,
} from '../contracts/migrate-fleet';
import { handleControls } from './fleet-controls';
import type { migrateFleet } from './migrate-fleet';
import { organizationProgressQuery, organizationResultQuery, type OrganizationProgress, type OrganizationResult, type OrganizationStage, type OrganizationTemplateRow } from '../contracts/migrate-organization';
import { WsmigratePhase } from '../contracts/search-attributes';
import { parseWorkflowInput } from './workflow-input';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

const EMPTY: FleetSummary = { migrated: 0, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 0, prebuilt: 0 };

function add(a: FleetSummary, b: FleetSummary | undefined): FleetSummary {
  if (!b) return a;
  const sum = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + (b[k as keyof FleetSummary] ?? 0)])) as unknown as FleetSummary;
  // Declined only once some fleet declined one: the total (and the memo) stays as it was without.
  const declined = (a.declined ?? 0) + (b.declined ?? 0);
  return declined ? { ...sum, declined } : sum;
}

/** The template's fleet could not start: one with its id runs. Who, and what to do, not Temporal's bare words. */
function alreadyRunningText(fleetId: string, template: string): string {
  return (
    `not started: ${fleetId} already runs (a fleet of ${template} started by hand, or by another run), so this run left ${template} alone rather than migrate behind that fleet's gates and failure budget. ` +
    `Let it end (wsmigrate fleet status ${fleetId}), then run this template again.`
  );
}

/** A template's fleet terminated under the organization run: what a terminate leaves, and where to look. */
function terminatedFleetText(fleetId: string, organization: string, template: string): string {
  const templateRun = templateWorkflowId(organization, template);
  return (
    `${fleetId} was terminated (temporal workflow terminate): nothing more of ${organization}/${template} runs in this run, and a terminate runs no clean-up. ` +
    `Migrations it had started go on to their own end (wsmigrate approvals lists any at a gate; wsmigrate scan --template ${template} once they are over); the worker's lock keeper gives back require_active_version; ` +
    `its template step ${templateRun}, if it still waits at a gate, waits on (wsmigrate status ${templateRun}: reject it unless the version should still be promoted). ` +
    `Run the template again with wsmigrate fleet start --org ${organization} --template ${template}.`
  );
}

/**
 * A deployment in one run: the templates that still declare deprecated types, each migrated by its
 * own `migrateFleet` child, one after the other so they share one provisioner budget. First every
 * template and its canary, then one `fleet-continue` gate for the whole deployment, then the rest
 * of each template. Pause, resume and cancel apply to the fleet running now and to those to come.
 */
export async function migrateOrganization(rawInput: MigrateOrganizationInput): Promise<OrganizationResult> {
  try {
    return await migrateOrganizationSteps(rawInput);
  } catch (err) {
    if (isCancellation(err)) throw err;
    // A failed run must not keep the phase it failed in (running) for anyone who searches or looks.
    upsertSearchAttributes([{ key: WsmigratePhase, value: 'failed' satisfies FleetPhase }]);
    setCurrentDetails(`### Organization ${String((rawInput as { organization?: unknown })?.organization ?? '?')} · FAILED\n\n**Failed:** ${codeSpan((err as Error).message ?? String(err))}`);
    throw err;
  }
}

async function migrateOrganizationSteps(rawInput: MigrateOrganizationInput): Promise<OrganizationResult> {
  const input: MigrateOrganizationParams = parseWorkflowInput(migrateOrganizationInputSchema, rawInput);
  const { workflowId } = workflowInfo();
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify(n), () => refreshDetails());
  let stage: OrganizationStage = 'scan';
  let rows: OrganizationTemplateRow[] = [];
  let paused = false;
  let cancelled = false;
  let current: string | undefined;
  // The fleet whose start is under way: its id is known before Temporal has created it, and a signal in that gap
  // finds no workflow ("not found") and is lost. What comes then waits in `heldControls` for the start to complete.
  let starting: string | undefined;
  const heldControls: { action: FleetControlEntry['action']; payload: FleetControlInput }[] = [];
  const control: FleetControlEntry[] = [];

  const total = () => rows.reduce((sum, r) => add(sum, r.summary), { ...EMPTY });
  // A cancel is taken at once but ends the run only when the fleet running now has ended: 'cancelling' meanwhile, as a fleet says.
  let cancelling = false;
  const phase = (): FleetPhase =>
    stage === 'done' ? (cancelled ? 'cancelled' : 'done') : gates.pending ? 'awaiting-approval' : cancelling ? 'cancelling' : paused ? 'paused' : 'running';
  const progress = (): OrganizationProgress => ({
    workflowId,
    organization: input.organization,
    phase: phase(),
    stage,
    templates: rows.map((r) => ({ ...r })),
    summary: total(),
    ...(gates.pending ? { pendingApproval: gates.pending } : {}),
    control: control.slice(-20),
  });
  let phaseWritten: FleetPhase | undefined;
  const refreshDetails = () => {
    const p = progress();
    // One vocabulary: the same phase words as a fleet's (`fleet status`, README), written when they change.
    if (p.phase !== phaseWritten) {
      phaseWritten = p.phase;
      upsertSearchAttributes([{ key: WsmigratePhase, value: p.phase }]);
    }
    setCurrentDetails(organizationDetails(progress()));
  };
  const enter = (s: OrganizationStage) => {
    stage = s;
    refreshDetails();
  };
  const ended: { result?: OrganizationResult } = {};
  // How each template's fleet ended, as it said just before it ended (a cancelled one leaves no result).
  const endedFleets = new Map<string, FleetResult>();
  setHandler(fleetEndedSignal, (e) => {
    endedFleets.set(e.workflowId, e.result);
  });
  setHandler(organizationResultQuery, () => ended.result);

  setHandler(organizationProgressQuery, progress);
  const refusal = (action: FleetControlEntry['action'], c: FleetControlInput): string | undefined => {
    if (!c || typeof c.by !== 'string' || c.by.trim() === '') return 'say who you are: {"by": "<name>"}';
    if (input.approval.approvers.length > 0 && !input.approval.approvers.includes(c.by)) return `'${c.by}' may not ${action} this migration (allowed: ${input.approval.approvers.join(', ')})`;
    if (stage === 'done') return `the migration has ended; nothing to ${action}`;
    if (cancelled) return 'the migration is being cancelled';
    if (action === 'pause' && paused) return 'already paused';
    if (action === 'resume' && !paused) return 'not paused';
    return undefined;
  };
  const apply = async (action: FleetControlEntry['action'], c: FleetControlInput): Promise<FleetControlEntry> => {
    const entry: FleetControlEntry = { action, by: c.by, at: new Date().toISOString(), ...(c.reason ? { reason: c.reason.slice(0, 300) } : {}) };
    control.push(entry);
    if (action === 'pause') paused = true;
    if (action === 'resume') paused = false;
    if (action === 'cancel') {
      cancelled = true;
      paused = false;
      cancelling = patched('wsmigrate-org-cancelling-phase');
    }
    refreshDetails();
    // The fleet running now follows; one that has just ended ignores it.
    if (current) {
      const payload: FleetControlInput = { by: c.by, ...(c.reason ? { reason: c.reason } : {}) };
      if (starting === current && patched('wsmigrate-org-control-held-until-started')) heldControls.push({ action, payload });
      else await passOn(current, action, payload);
    }
    return entry;
  };
  const passOn = (fleet: string, action: FleetControlEntry['action'], payload: FleetControlInput): Promise<void> =>
    getExternalWorkflowHandle(fleet)
      .signal(action === 'pause' ? pauseFleetSignal : action === 'resume' ? resumeFleetSignal : cancelFleetSignal, payload)
      .catch((err: unknown) => log.warn(`${action} not passed on`, { fleet, error: String(err) }));
  handleControls(refusal, apply);

  // ── names it was given, before anything changes (each template's fleet checks them again) ──
  if (input.filters.owners.length > 0 || input.filters.exclude.length > 0) {
    await acts.checkFleetNames({ organization: input.organization, subject: `organization ${input.organization}`, filters: input.filters }).catch((err: unknown) => {
      throw withActivityMessage(err);
    });
  }

  // ── which templates ───────────────────────────────────────────────────
  const found = await acts.listOrganizationTemplates({ organization: input.organization, ...(input.allTemplates ? {} : { templates: input.templates }) }).catch((err: unknown) => {
    // A typo of --org: Coder answers 404. Said as an unknown name (exit 2), not 'Activity task failed'.
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'CoderApi.not-found') {
      throw ApplicationFailure.create({
        message: `no organization '${input.organization}' in Coder that the worker's token can read (${err.cause.message}); check --org with 'wsmigrate scan --org <name>'`,
        type: FailureType.unknownName,
        nonRetryable: true,
      });
    }
    throw withActivityMessage(err);
  });
  if (found.unknown.length > 0) {
    throw ApplicationFailure.create({
      message: `organization ${input.organization} has no template named ${found.unknown.join(', ')} (it has ${found.templates.length ? found.templates.map((t) => t.name).join(', ') : 'none of those'}); check the names with 'wsmigrate scan --org ${input.organization}'`,
      type: FailureType.unknownName,
      nonRetryable: true,
    });
  }
  rows = found.templates.map((t) => ({
    template: t.name,
    state: t.deprecatedTypes.length > 0 || t.outdatedWorkspaces > 0 ? 'waiting' : 'nothing-to-do',
    deprecatedTypes: t.deprecatedTypes,
    // Already promoted to _v1 (an earlier, unfinished run): its workspaces move to that version, the template is not migrated again.
    ...(t.deprecatedTypes.length === 0 ? { targetVersionId: t.activeVersionId } : {}),
  }));
  const todo = () => rows.filter((r) => r.state !== 'nothing-to-do' && !hasFailed(r));
  // A function, not an inline test: runFleet sets the state while TypeScript still holds the one assigned before it.
  const hasFailed = (r: OrganizationTemplateRow) => r.state === 'failed';

  const fleetInput = (row: OrganizationTemplateRow, overrides: Partial<MigrateFleetInput>): MigrateFleetInput => {
    const { templates: _templates, allTemplates: _all, ...shared } = input;
    return { ...shared, template: row.template, ...(row.targetVersionId ? { targetVersionId: row.targetVersionId } : {}), ...overrides } as MigrateFleetInput;
  };

  /** Runs one template's fleet to its end; pause holds the next start, cancel stops what is left. */
  const canaryResults = new Map<string, FleetResult>();
  async function runFleet(row: OrganizationTemplateRow, id: string, fleet: MigrateFleetInput, kind: 'canary' | 'rest'): Promise<FleetResult | undefined> {
    await condition(() => !paused || cancelled);
    if (cancelled) return undefined;
    row.workflowId = id;
    current = id;
    refreshDetails();
    starting = id;
    try {
      const child = await startChild<typeof migrateFleet>('migrateFleet', {
        workflowId: id,
        args: [fleet],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `fleet ${input.organization}/${row.template} (for ${workflowId})`,
      });
      // A pause, resume or cancel taken while the fleet was being started, in the order given (one taken while
      // these go out is held behind them, so a resume never overtakes the pause it undoes).
      for (let held = heldControls.shift(); held; held = heldControls.shift()) await passOn(id, held.action, held.payload);
      starting = undefined;
      const result = await child.result().catch((err: unknown) => {
        const ended = endedFleets.get(id);
        if (ended && err instanceof ChildWorkflowFailure && isCancellation(err.cause)) return ended;
        throw err;
      });
      endedFleets.delete(id);
      // The rest fleet lists the canary's workspaces again: each counted once (canaryThenRest).
      const canary = kind === 'rest' ? canaryResults.get(row.template) : undefined;
      if (canary && patched('wsmigrate-org-canary-counted-once')) row.summary = canaryThenRest(canary.summary, result.summary, result.phase === 'done' && !result.moreRemaining);
      else row.summary = add(row.summary ?? { ...EMPTY }, result.summary);
      if (kind === 'canary') canaryResults.set(row.template, result);
      if (result.targetVersionId) row.targetVersionId = result.targetVersionId;
      // A rollback its fleet found as it ended: on the template's row, where the SRE looks.
      if (result.rolledBackAtEnd) row.note = result.rolledBackAtEnd;
      if (result.phase === 'cancelled') cancelled = true;
      return result;
    } catch (err) {
      const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
      row.state = 'failed';
      // Whole: the refusal's last sentence says what to do (300 characters cut "Promote the version first" off).
      const message = (cause as Error)?.message;
      row.note = message ? (message.length > 1000 ? `${message.slice(0, 999)}…` : message) : String(err);
      // Temporal's "Workflow execution already started": a fleet of the template with that id runs (started by hand, beside a window).
      if (err instanceof WorkflowExecutionAlreadyStartedError) row.note = alreadyRunningText(id, `${input.organization}/${row.template}`);
      // `temporal workflow terminate` of the template's fleet: Temporal's one word, "Terminated", said nothing of what it left.
      if (cause instanceof TerminatedFailure) row.note = terminatedFleetText(id, input.organization, row.template);
      return undefined;
    } finally {
      current = undefined;
      starting = undefined;
      heldControls.length = 0;
      refreshDetails();
    }
  }

  /**
   * Each canary's template read again before the shared gate: an old version promoted after its canary
   * ended (while the next templates' canaries ran) leaves its canary's workspaces at risk, and the gate
   * asked "continue?" over them. The sentence goes on the row and into the gate's text.
   */
  async function rollbacksBeforeGate(ready: OrganizationTemplateRow[]): Promise<string[]> {
    if (!patched('wsmigrate-org-gate-active-version')) return [];
    const said: string[] = [];
    for (const row of ready) {
      const target = row.targetVersionId;
      if (!target) continue;
      if (row.note) {
        said.push(row.note);
        continue;
      }
      const check = await acts.checkActiveVersion({ organization: input.organization, template: row.template, targetVersionId: target }).catch((err: unknown) => {
        if (isCancellation(err)) throw err;
        log.warn('could not read the template active version before the gate', { template: row.template, error: String(err) });
        return undefined;
      });
      if (!check || check.state === 'target') continue;
      const migrated = (row.summary?.migrated ?? 0) + (row.summary?.alreadyMigrated ?? 0);
      row.note = rolledBackAtEndText({ template: row.template, targetVersionId: target, activeVersionId: check.activeVersionId, ...(check.activeVersionName ? { activeVersionName: check.activeVersionName } : {}), migrated }, 'gate');
      said.push(row.note);
    }
    refreshDetails();
    return said;
  }

  // ── every template and its canary ─────────────────────────────────────
  if (input.canary > 0) {
    enter('canary');
    for (const row of todo()) {
      row.state = 'canary';
      const r = await runFleet(row, `${fleetWorkflowId(input.organization, row.template)}/canary`, fleetInput(row, { canary: 0, archiveOldVersions: false, filters: { ...input.filters, limit: input.canary } }), 'canary');
      if (!hasFailed(row)) row.state = cancelled ? 'cancelled' : 'canary-done';
      if (r?.targetVersionId === undefined && row.state === 'canary-done') {
        row.state = 'failed';
        row.note = r?.note ?? 'the template step left no target version';
      }
      if (cancelled) break;
    }
    enter('canary-gate');
    const ready = todo().filter((r) => r.state === 'canary-done');
    if (!cancelled && ready.length > 0) {
      const lines = ready.map((r) => `${r.template}: ${r.summary?.migrated ?? 0} migrated, ${(r.summary?.failed ?? 0) + (r.summary?.needsAttention ?? 0) + (r.summary?.restored ?? 0)} not ok`).join('; ');
      const failedTemplates = rows.filter((r) => r.state === 'failed').map((r) => r.template);
      const rolledBack = await rollbacksBeforeGate(ready);
      const decision = await gates.request(
        'fleet-continue',
        `org-canary:${fnv1a(lines)}`,
        `Canaries of ${input.organization}: ${lines}.${failedTemplates.length ? ` Failed before their canary: ${failedTemplates.join(', ')}.` : ''} Continue with the rest of ${ready.length} template(s), one after the other? PVC uids kept so far: ${total().pvcUidsKept}.${rolledBack.length ? ` WARNING: ${rolledBack.join(' ')}` : ''}`,
      );
      if (decision === 'rejected' || decision === 'timed-out') {
        cancelled = true;
        // Who said no and when, or how long nobody answered: the words a template fleet's cancel gives.
        control.push({ action: 'cancel', by: 'fleet-continue gate', reason: gates.lastDecision ? gateDecisionText(gates.lastDecision) : decision, at: new Date().toISOString() });
      }
    }
  }

  // ── the rest, template by template ────────────────────────────────────
  enter('rolling');
  for (const row of todo()) {
    if (cancelled) {
      if (row.state !== 'done') row.state = 'cancelled';
      continue;
    }
    row.state = 'rolling';
    const r = await runFleet(row, fleetWorkflowId(input.organization, row.template), fleetInput(row, { canary: 0 }), 'rest');
    if (!hasFailed(row)) row.state = r && r.phase === 'done' ? 'done' : 'cancelled';
  }

  enter('done');
  const summary = total();
  await acts.notify({
    kind: 'fleet-done',
    workflowId,
    subject: `Organization ${input.organization} ${cancelled ? 'cancelled' : 'done'}`,
    text: rows.map((r) => `${r.template}: ${r.state}${r.summary ? ` (${r.summary.migrated} migrated, ${r.summary.pvcUidsKept} PVC uids kept)` : ''}`).join('; '),
    counts: { ...summary },
  });
  await condition(allHandlersFinished);
  const cancel = control.find((c) => c.action === 'cancel');
  const result: OrganizationResult = {
    phase: cancelled ? 'cancelled' : 'done',
    templates: rows,
    summary,
    nothingToDo: rows.filter((r) => r.state === 'nothing-to-do').map((r) => r.template),
    ...(cancelled && cancel ? { cancelledBy: { by: cancel.by, ...(cancel.reason ? { reason: cancel.reason } : {}) } } : {}),
  };
  ended.result = result;
  if (!cancelled) return result;
  // Cancelled ends as Cancelled, as a fleet does: Temporal needs a cancel request for it (see requestCancellation).
  await CancellationScope.nonCancellable(() => acts.requestCancellation({ workflowId, runId: workflowInfo().runId }));
  await condition(() => false).catch((err: unknown) => {
    if (!isCancellation(err)) throw err;
  });
  const by = [...control].reverse().find((c) => c.action === 'cancel');
  throw new CancelledFailure(`organization ${input.organization} cancelled${by ? ` by ${by.by}${by.reason ? ` (${by.reason})` : ''}` : ''}`);
}
