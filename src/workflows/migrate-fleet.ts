import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  ContinueAsNew,
  isCancellation,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { migrateFleetInputSchema, type MigrateFleetInput } from '../domain/fleet-input';
import { fnv1a } from '../domain/fnv1a';
import { countsRecord, fleetDoneText, summaryOf } from '../domain/fleet-summary';
import { templateWorkflowId } from '../domain/migration-input';
import { windowText } from '../domain/provisioner-pacing';
import { childApprovalSignal, childDoneSignal } from '../contracts/fleet-report';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';
import { QUICK_STEP, withActivityMessage } from './activity-presets';
import { archiveOldVersions } from './fleet-archive';
import { watchActiveVersion } from './fleet-lock-watch';
import { giveBackLockAtEnd } from './fleet-lock-end';
import { checkActiveVersionAtEnd } from './fleet-end-version-check';
import { noteChildApproval, recordChildEnd } from './fleet-children';
import { fleetEndedSignal, fleetProgressQuery, fleetResultQuery, type FleetControlEntry, type FleetPhase, type FleetResult, type FleetState } from '../contracts/migrate-fleet';
import { detailsMarkdown } from '../domain/fleet-details';
import { handleFleetControls } from './fleet-controls';
import { FleetRun } from './fleet-run';
import { SlidingWindow } from './fleet-window';
import { migrateTemplate } from './migrate-template';
import { parseWorkflowInput } from './workflow-input';
import { gateDecisionText } from '../domain/gate-decision';
import { FailureType } from '../domain/failure-types';
import { isScheduledWindow, windowBesideRunsText } from '../domain/window-beside-runs';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

/**
 * A whole template's fleet: (the template) → a canary of K workspaces → the `fleet-continue` gate →
 * the rest through a sliding window of at most C running migrations, each a `migrateWorkspace` child
 * that reports its end by signal. A failure budget stops new starts and asks a human; pause, resume
 * and cancel never abandon a running migration. Continue-as-new keeps each run's history bounded.
 */
export async function migrateFleet(rawInput: MigrateFleetInput, carried?: FleetState): Promise<FleetResult> {
  const seen: { run?: FleetRun } = {};
  try {
    return await migrateFleetSteps(rawInput, carried, seen);
  } catch (err) {
    // A run cancelled before its steps' own cancel handling, or failed, ends too: the setting it holds is
    // given back before that is told (a continue-as-new goes on holding it).
    if (seen.run && !(err instanceof ContinueAsNew)) await giveBackLockAtEnd(seen.run);
    if (isCancellation(err)) throw err;
    // The template child's own words ("promotion of … rejected"), not "Child Workflow execution failed".
    const failure =
      err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure
        ? ApplicationFailure.create({ message: `template migration failed, no workspace was touched: ${err.cause.message}`, type: err.cause.type ?? undefined, nonRetryable: true })
        : withActivityMessage(err);
    // A failed fleet must not keep the phase it failed in (e.g. running) for anyone who searches or looks.
    upsertSearchAttributes([{ key: WsmigratePhase, value: 'failed' satisfies FleetPhase }]);
    if (seen.run) setCurrentDetails(detailsMarkdown({ ...seen.run.progress(), phase: 'failed', etaMs: undefined }, (failure as Error).message));
    throw failure;
  }
}

async function migrateFleetSteps(rawInput: MigrateFleetInput, carried: FleetState | undefined, seen: { run?: FleetRun }): Promise<FleetResult> {
  const run = new FleetRun(rawInput, parseWorkflowInput(migrateFleetInputSchema, rawInput), carried);
  seen.run = run;
  const { st, input } = run;
  // Handlers first: an update without a handler is rejected.
  setHandler(fleetProgressQuery, () => run.progress());
  setHandler(fleetResultQuery, () => run.finalResult);
  setHandler(childDoneSignal, (r) => recordChildEnd(run, r));
  setHandler(childApprovalSignal, (note) => noteChildApproval(run, note));
  handleFleetControls(run);
  upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  run.refreshDetails();
  // From the carried state, not st: a pause sent with the start is applied as soon as its handler is set, and must be announced.
  const window = new SlidingWindow(run, carried?.paused ?? false);

  // Names the fleet was given, checked before anything changes (only when there are some: no call otherwise).
  if (!carried && (input.filters.owners.length > 0 || input.filters.exclude.length > 0)) {
    await acts.checkFleetNames({ organization: input.organization, subject: `template ${run.fleetName}`, filters: input.filters });
  }
  st.namesChecked = true;
  if (!carried) await refuseWindowBesideRuns(run);

  if (st.stage === 'template') {
    if (!(await templateFirst(run))) return finish(run, false);
    run.enter(input.canary > 0 ? 'canary' : 'rolling');
  }
  if (input.requireActiveVersion && !input.dryRun && !st.activeVersionLock && st.stage !== 'done' && st.stage !== 'archive') await holdActiveVersion(run);
  watchActiveVersion(run);

  try {
    if (st.stage === 'canary') {
      await window.fill(Math.min(input.concurrency, input.canary), input.canary, true);
      await window.drain();
      run.enter('canary-gate');
    }
    if (st.stage === 'canary-gate') {
      await canaryGate(run);
      run.enter('rolling');
    }
    if (st.stage === 'rolling') {
      await window.fill(input.concurrency, undefined, false);
      await window.drain();
      run.enter('archive');
    }
    if (st.stage === 'archive') st.archive = await archiveOldVersions(run);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Temporal's own cancel (Web UI, `temporal workflow cancel`) is a fleet cancel: nothing new starts,
    // and the running migrations (started in non-cancellable scopes) finish or restore on their own.
    st.cancelled = true;
    run.cancelRequested = true;
    run.gates.pending = undefined;
    st.control.push({ action: 'cancel', by: 'temporal cancel request', at: new Date().toISOString() });
    return await CancellationScope.nonCancellable(async () => {
      await window.drain();
      return finish(run, run.moreRemains());
    });
  }
  return finish(run, run.moreRemains());
}

/**
 * A schedule's window refuses, before any change, to run beside another fleet of its template:
 * `temporal schedule trigger` / `toggle --unpause` bypass wsmigrate's own refusal (round 1 of the
 * hazard drive: a window migrated workspaces behind a hand fleet's canary gate). Fleets started by hand
 * are not asked: a second one with another id and disjoint filters is a deliberate choice.
 */
async function refuseWindowBesideRuns(run: FleetRun): Promise<void> {
  const parentId = workflowInfo().parent?.workflowId;
  if (!isScheduledWindow(run.workflowId, parentId)) return;
  if (!patched('wsmigrate-window-beside-runs')) return;
  const { input } = run;
  const others = await acts.runsBesideWindow({ organization: input.organization, template: input.template, taskQueue: workflowInfo().taskQueue, workflowId: run.workflowId, ...(parentId ? { parentId } : {}) });
  if (others.length === 0) return;
  run.st.note = windowBesideRunsText(run.workflowId, run.fleetName, others);
  throw ApplicationFailure.create({ message: run.st.note, type: FailureType.refused, nonRetryable: true });
}

/** The template migrated first (or the given version taken); false when a dry run left no version to migrate to. */
async function templateFirst(run: FleetRun): Promise<boolean> {
  const { st, input } = run;
  if (input.targetVersionId) {
    if (patched('wsmigrate-check-given-version')) await acts.checkGivenVersion({ organization: input.organization, template: input.template, versionId: input.targetVersionId, requireActiveVersion: input.requireActiveVersion && !input.dryRun, dryRun: input.dryRun });
    st.targetVersionId = input.targetVersionId;
    return true;
  }
  const template = () =>
    executeChild(migrateTemplate, {
      workflowId: templateWorkflowId(input.organization, input.template),
      args: [{ organization: input.organization, template: input.template, approval: input.approval, dryRun: input.dryRun, allowRemoteModules: input.allowRemoteModules, ...(input.zeroTouch ? { zeroTouch: true } : {}) }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary: `template ${run.fleetName} → _v1 (for fleet ${run.workflowId})`,
    });
  // A fleet cancelled while its template step runs (at its push or promote gate, say) cancels that
  // step too: the template must not be pushed or promoted after the fleet was cancelled.
  const t = patched('wsmigrate-fleet-cancel-reaches-template') ? await templateUnlessCancelled(run, template) : await template();
  if (!t) return false;
  st.templateOutcome = t.outcome;
  if (t.outcome === 'dry-run') {
    st.note = `template dry run: the rewritten version was not pushed, so the workspaces cannot be dry-run against it (pass targetVersionId of a pushed _v1 version). ${t.report.renamedCount} reference(s) would be renamed.`;
    return false;
  }
  st.targetVersionId = t.versionId;
  return true;
}

/** The template child, cancelled (Temporal's cancel: its gate ends, nothing more is pushed or promoted) once the fleet is; undefined then. */
async function templateUnlessCancelled<T>(run: FleetRun, template: () => Promise<T>): Promise<T | undefined> {
  const scope = new CancellationScope();
  void condition(() => run.st.cancelled).then(() => scope.cancel());
  try {
    return await scope.run(template);
  } catch (err) {
    const cancelled = isCancellation(err) || (err instanceof ChildWorkflowFailure && isCancellation(err.cause));
    if (!run.st.cancelled || !cancelled) throw err;
    run.st.note = `cancelled while the template step ran: ${templateWorkflowId(run.input.organization, run.input.template)} was cancelled too, so nothing more of it was pushed or promoted`;
    return undefined;
  }
}

/** Asks Coder to require the template's active version while the fleet runs, and says plainly when that does not hold. */
async function holdActiveVersion(run: FleetRun): Promise<void> {
  const { st, input, fleetName } = run;
  const ask = () => acts.requireActiveVersion({ organization: input.organization, template: input.template, workflowId: run.workflowId, ...(st.targetVersionId ? { targetVersionId: st.targetVersionId } : {}) });
  // Not cancellable: a cancel while Coder switches it on must still leave the run knowing, to give it back as it ends.
  st.activeVersionLock = patched('wsmigrate-lock-give-back-at-end') ? await CancellationScope.nonCancellable(ask) : await ask();
  if (st.activeVersionLock.state === 'refused' || st.activeVersionLock.state === 'not-held' || st.activeVersionLock.state === 'declined') {
    const what =
      st.activeVersionLock.state === 'refused'
        ? `Coder refused to make template ${fleetName} require its active version`
        : st.activeVersionLock.state === 'declined'
          ? `wsmigrate left 'require active version' off on template ${fleetName}`
          : `require active version does not hold on template ${fleetName}`;
    // True during the run and after it: an archived version still builds through the API
    // (coderd/wsbuilder/wsbuilder.go has no archived check), so "until every workspace is migrated" was not.
    const why = `${what} (${st.activeVersionLock.reason}). Archiving does not stop it either (Coder still builds an archived version through the API): anyone who builds a migrated workspace on an old version destroys its PVC, during the migration and after it. Tell users not to pick an old version; 'wsmigrate scan' finds a workspace built that way.`;
    run.addNote(why);
    log.warn('old versions stay buildable by members while the fleet runs', { template: fleetName });
    run.refreshDetails();
  }
}

/** The canary's outcomes told, then the `fleet-continue` gate (when more is left to do); a rejection cancels the fleet. */
async function canaryGate(run: FleetRun): Promise<void> {
  const { st, input, fleetName } = run;
  const moreToDo = !st.cancelled && !run.hitLimit() && (st.queue.length > 0 || !st.discoveryDone);
  if (st.canary.length === 0) return;
  const lines = st.canary.map((c) => `${c.subject}: ${c.outcome ?? '?'}`).join('; ');
  const ok = st.canary.filter((c) => c.outcome === 'migrated' || c.outcome === 'already-migrated' || c.outcome === 'dry-run' || c.outcome === 'waiting-for-build').length;
  const text = `Canary: ${ok} of ${st.canary.length} ok (${lines}).`;
  await run.notify({ kind: 'fleet-canary-done', subject: `Fleet ${fleetName}: canary done`, text, counts: countsRecord(st.counts) });
  if (!moreToDo) return;
  const decision = await run.gates.request(
    'fleet-continue',
    `canary:${fnv1a(lines)}`,
    `${text} Continue fleet ${fleetName} with the rest, ${windowText(input.concurrency, run.pacer.status)}? PVC uids kept so far: ${st.counts.pvcUidsKept}.`,
  );
  if (decision === 'rejected' || decision === 'timed-out') run.cancel('fleet-continue gate', run.gates.lastDecision ? gateDecisionText(run.gates.lastDecision) : decision);
}

async function finish(run: FleetRun, moreRemaining: boolean): Promise<FleetResult> {
  const { st, fleetName } = run;
  st.stage = 'done';
  // Before the give-back: the check gives wsmigrate's setting back itself when the version changed.
  const rolledBackAtEnd = await checkActiveVersionAtEnd(run);
  await giveBackLockAtEnd(run);
  const summary = summaryOf(st.counts);
  const result: FleetResult = {
    phase: st.cancelled ? 'cancelled' : 'done',
    summary,
    ...(st.targetVersionId ? { targetVersionId: st.targetVersionId } : {}),
    failures: st.failures,
    ...(st.skips?.length ? { skips: st.skips } : {}),
    ...(st.declines?.length ? { declines: st.declines } : {}),
    ...(st.archive ? { archive: st.archive } : {}),
    ...(st.zeroTouch ? { zeroTouch: st.zeroTouch } : {}),
    ...(st.activeVersionLock ? { activeVersionLock: st.activeVersionLock } : {}),
    moreRemaining,
    ...(st.note ? { note: st.note } : {}),
    ...(rolledBackAtEnd ? { rolledBackAtEnd } : {}),
    ...(st.cancelled ? { cancelledBy: cancelCause(st.control) } : {}),
  };
  // Fields, not JSON in a string: the Web UI and `temporal workflow describe` show each one.
  upsertMemo({ outcome: result.phase, ...summary });
  run.refreshDetails();
  await run.notify({ kind: 'fleet-done', subject: `Fleet ${fleetName} ${result.phase}`, text: rolledBackAtEnd ? `${fleetDoneText(summary, moreRemaining)} ${rolledBackAtEnd}` : fleetDoneText(summary, moreRemaining), counts: countsRecord(st.counts) });
  await condition(allHandlersFinished);
  run.finalResult = result;
  if (result.phase === 'cancelled') return endAsCancelled(run, result);
  return result;
}

/**
 * A cancelled fleet ends as Cancelled, so the Web UI's badge and `ExecutionStatus` say what the
 * search attribute and memo say, whoever cancelled it (its update or signal, a rejected gate,
 * Temporal's own cancel). Temporal ends a run so only after a cancel request, hence the ask.
 */
async function endAsCancelled(run: FleetRun, result: FleetResult): Promise<never> {
  const parent = workflowInfo().parent;
  await CancellationScope.nonCancellable(async () => {
    if (parent) {
      await getExternalWorkflowHandle(parent.workflowId, parent.runId)
        .signal(fleetEndedSignal, { workflowId: run.workflowId, result })
        .catch((err: unknown) => log.warn('the fleet could not tell its parent how it ended', { parent: parent.workflowId, error: String(err) }));
    }
    if (!run.cancelRequested) await acts.requestCancellation({ workflowId: run.workflowId, runId: workflowInfo().runId });
  });
  if (!run.cancelRequested) {
    await condition(() => run.cancelRequested).catch((err: unknown) => {
      if (!isCancellation(err)) throw err;
    });
  }
  const by = result.cancelledBy;
  throw new CancelledFailure(`fleet ${run.fleetName} cancelled${by ? ` by ${by.by}${by.reason ? ` (${by.reason})` : ''}` : ''}`);
}

/** The first cancel is the cause: a person's cancel at a gate also records the gate's rejection after it. */
function cancelCause(control: readonly FleetControlEntry[]): { by: string; reason?: string } {
  const c = control.find((e) => e.action === 'cancel');
  return c ? { by: c.by, ...(c.reason ? { reason: c.reason } : {}) } : { by: 'unknown' };
}
