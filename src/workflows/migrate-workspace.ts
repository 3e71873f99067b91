import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { StateBackup } from '../activities/backup-state';
import type { WorkspacePreflight } from '../activities/preflight-workspace';
import { FailureType } from '../domain/failure-types';
import { gateDecisionText } from '../domain/gate-decision';
import { migrateWorkspaceInputSchema, type MigrateWorkspaceInput } from '../domain/migration-input';
import { renderRunDetails, workspaceRunSummary } from '../domain/run-details';
import { lastPhaseNote } from '../domain/phase-note';
import { ONE_LOCAL_ATTEMPT, QUICK_LOCAL_STEP, QUICK_STEP, buildStepOptions, isFinalFailure, durationMs, failureMessage, keepingFailedBuild, failureType, restoreStepOptions } from './activity-presets';
import { ApprovalGates } from './approval-gates';
import { answerWatchingBuilds } from './gate-watch';
import { BuildWatch, isNeedsAttention } from './build-watch';
import { reportingToFleet } from './fleet-report';
import { recoverDamagedWorkspace } from './recover-workspace';
import { waitWhileBusy } from './wait-while-busy';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';
import { compensate } from './workspace-compensation';
import type { RoundContext } from './workspace-round';
import { parseWorkflowInput } from './workflow-input';
import { workspaceStatusQuery, type WorkspaceMigrationResult, type WorkspaceMigrationStatus, type WorkspacePhase } from '../contracts/migrate-workspace';

/** Phases worth a search-attribute write (a history event and a visibility update each); the rest show in the query and the UI's details. */
const MILESTONE_PHASES: ReadonlySet<WorkspacePhase> = new Set(['compensating', 'migrated', 'already-migrated', 'dry-run', 'restored', 'needs-attention']);

/** Rounds of read → back up → build when someone keeps building the workspace between our read and our write. */
export const MAX_ROUNDS = 3;

/**
 * One workspace, the runbook top to bottom: preflight, stop (option A), back up, rewrite, verify,
 * approve, then one build that carries the migrated state on the new version, and check the volumes.
 * Any failure or cancel after that restores by one build carrying the backup on the prior version.
 */
export async function migrateWorkspace(rawInput: MigrateWorkspaceInput): Promise<WorkspaceMigrationResult> {
  const view: EndedView = {};
  return reportingToFleet(
    rawInput,
    () => migrateWorkspaceSteps(rawInput, view),
    // The Web UI's details say how the run ended, not only the phase it was in.
    (failure, err) => view.ended?.(isCancellation(err) ? { cancelled: true } : { failure: (failure as Error).message }),
  );
}

/** Set by the steps: shows, in the Web UI's details, that the run failed (and why) or was cancelled. */
interface EndedView {
  ended?: (how: { failure?: string; cancelled?: boolean }) => void;
}

async function migrateWorkspaceSteps(rawInput: MigrateWorkspaceInput, view: EndedView): Promise<WorkspaceMigrationResult> {
  const { workflowId } = workflowInfo();
  const input = parseWorkflowInput(migrateWorkspaceInputSchema, rawInput);
  const status: WorkspaceMigrationStatus = { phase: 'preflight', stepsDone: [], approvals: [] };
  // Quick reads, pure steps and idempotent quick writes run as local activities: one marker event each.
  const acts = proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP);
  // The backup is never local: a local step is recorded only when its workflow task completes, so a
  // worker dying after the build would re-run the backup against the migrated state, and the
  // compensation would then "restore" the migrated bytes. It needs its own durable event.
  const durable = proxyActivities<WsmigrateActivities>(QUICK_STEP);
  const once = proxyLocalActivities<WsmigrateActivities>(ONE_LOCAL_ATTEMPT);
  const builds = proxyActivities<WsmigrateActivities>(buildStepOptions(input));
  const restoring = proxyActivities<WsmigrateActivities>(restoreStepOptions(input));
  const subject = `${input.owner}/${input.workspace}`;
  let title = workspaceRunSummary(input.owner, input.workspace, input.template, input.targetVersionId.slice(0, 8));
  // Waiting at any gate (stop, apply, recover…) is awaiting approval, whatever step it guards.
  const shownPhase = (): WorkspacePhase => (gates.pending ? 'awaiting-approval' : status.phase);
  const showDetails = () =>
    setCurrentDetails(renderRunDetails({ title, workflowId, phase: shownPhase(), stepsDone: status.stepsDone, verdict: status.verdict, pending: gates.pending, error: status.error }));
  view.ended = ({ failure, cancelled }) =>
    setCurrentDetails(
      renderRunDetails({
        title,
        workflowId,
        // A gate's no is a decision: said as such, with what was undone, never "failed (during preflight)".
        phase: cancelled
          ? `cancelled (${status.phase === 'restored' ? 'restored: state and transition as before' : `during ${status.phase}`})`
          : status.decision
            ? `declined: ${failure ?? gateDecisionText(status.decision)}`
            : `failed${lastPhaseNote(status.phase)}`,
        ...(failure && !status.decision ? { failure } : {}),
        stepsDone: status.stepsDone,
        verdict: status.verdict,
        // A cancel's own words ("Workflow cancelled") add nothing to "cancelled"; a declined run's error was
        // written before its restore ("…; restoring") and the phase already says the decision and what was undone.
        ...(status.error && status.error !== failure && !status.decision && !(cancelled && /cancel/i.test(status.error)) ? { error: status.error } : {}),
      }),
    );
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify.executeWithOptions({ summary: `notify ${n.kind}` }, [n]), showDetails);
  setHandler(workspaceStatusQuery, () => ({ ...status, phase: shownPhase(), pendingApproval: gates.pending, approvals: [...gates.receipts] }));
  const enter = (phase: WorkspacePhase) => {
    status.phase = phase;
    if (MILESTONE_PHASES.has(phase)) upsertSearchAttributes([{ key: WsmigratePhase, value: phase }]);
    showDetails();
  };
  const done = (step: string) => {
    // A step done again at once (the preflight read again while someone else's build runs) is listed once.
    if (status.stepsDone.at(-1) !== step) status.stepsDone.push(step);
    showDetails();
  };
  const watch = new BuildWatch(acts, { workflowId, subject, template: input.template }, () => enter('needs-attention'));
  status.buildChanges = watch.tracked;
  // The client tags the run at start; a run started otherwise (temporal CLI, Web UI) is tagged here.
  if (workflowInfo().typedSearchAttributes.get(WsmigrateTemplate) !== input.template) {
    upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  }
  enter('preflight');

  // A dry run changes nothing: onto an inactive target it warns, as an allowed run does, instead of refusing.
  const preflightInput = { owner: input.owner, workspace: input.workspace, template: input.template, targetVersionId: input.targetVersionId, strategy: input.strategy, allowInactiveVersion: input.allowInactiveVersion || input.dryRun };
  const preflight = async (note = '') => {
    const options = { summary: `preflight ${subject}${note}: token permissions, build, target version, state; health of its builds and states` };
    // Runs written while this change was behind patched('wsmigrate-preflight-retries-shown') hold its marker:
    // it is read back where a history has one, never written again. The marker and the TemporalChangeVersion
    // upsert the SDK adds with it were 2 events and a billable action in every migration, for a change whose
    // first step is the local activity the runs before it made (one marker, the same when it succeeds).
    if (workflowInfo().unsafe.isReplaying) patched('wsmigrate-preflight-retries-shown');
    // A local activity's retries (Coder unreachable, 5xx, 429) show nowhere: not in describe()'s pending
    // activities, so not in `wsmigrate status` or the Web UI. So one local attempt (one marker event, the
    // usual case), and after a failure a retry could fix, the retries as a regular activity, whose
    // attempts, last error and next attempt status names. The preflight only reads.
    const both = await once.preflightAndAssess.executeWithOptions(options, [preflightInput]).catch((err: unknown) => {
      if (isCancellation(err) || isFinalFailure(err)) throw err;
      return durable.preflightAndAssess.executeWithOptions(options, [preflightInput]);
    });
    title = workspaceRunSummary(input.owner, input.workspace, input.template, both.preflight.targetVersionName);
    if (both.preflight.inactiveTarget) status.warnings = [both.preflight.inactiveTarget];
    done('preflight');
    return both;
  };
  const run: RoundContext = { input, subject, workflowId, status, acts, durable, builds, restoring, gates, watch, enter, done };
  let { preflight: pf, health } = await preflight();
  for (let round = 1; ; round++) {
    ({ preflight: pf, health } = await waitWhileBusy(subject, { preflight: pf, health }, () => preflight(' again (a build of someone else was running)')));
    // Only a workspace whose builds and states are healthy counts as migrated; a damaged one is recovered instead.
    if (health.health === 'damaged') return warnedOf(pf, await recoverDamagedWorkspace({ input, workspaceId: pf.workspaceId, subject, health, acts, builds, gates, status, enter, done }));
    if (health.health === 'busy' || health.health === 'unreadable') {
      throw ApplicationFailure.create({ message: `preflight: ${subject} is ${health.health}: ${health.reason}`, type: health.health === 'busy' ? FailureType.busy : FailureType.refused });
    }
    if (health.health === 'migrated') {
      enter('already-migrated');
      upsertMemo({ outcome: 'already-migrated' });
      return { outcome: 'already-migrated', workspaceId: pf.workspaceId, renamedCount: 0, warnings: [] };
    }
    if (input.dryRun) return warnedOf(pf, await dryRun(run, pf));
    try {
      return warnedOf(pf, await migrateOnce(run, pf, round === MAX_ROUNDS));
    } catch (err) {
      if (failureType(err) !== FailureType.builtMeanwhile || round >= MAX_ROUNDS) throw err;
      // Nothing of ours was written over their build: read the workspace again and start over.
      status.restarts = round;
      status.error = failureMessage(err);
      // The steps of the next round follow, so `done:` reads "…, verify, started over: round 2 of 3, preflight, …".
      done(`started over: round ${round + 1} of ${MAX_ROUNDS}`);
      ({ preflight: pf, health } = await preflight(` again (round ${round + 1} of ${MAX_ROUNDS}, someone built it meanwhile)`));
      status.error = undefined;
    }
  }
}

/** The result, first saying what the preflight warned of (a target that is not the active version: the owner's Update destroys the PVC). */
function warnedOf<R extends WorkspaceMigrationResult>(pf: WorkspacePreflight, result: R): R {
  return pf.inactiveTarget ? { ...result, warnings: [pf.inactiveTarget, ...result.warnings] } : result;
}

/** Rewrite, then plan and guard: one local step. */
function rewriteAndVerify(ctx: RoundContext, pf: WorkspacePreflight, backup: StateBackup, note: string) {
  const { input, subject } = ctx;
  return ctx.acts.rewriteAndVerify.executeWithOptions({ summary: `rewrite the state to _v1 (${input.strategy})${note}; plan ${pf.targetVersionName} against it; guard` }, [
    { subject, backupRef: backup.blob.ref, strategy: input.strategy, targetVersionId: input.targetVersionId },
  ]);
}

async function dryRun(ctx: RoundContext, pf: WorkspacePreflight): Promise<WorkspaceMigrationResult> {
  const { subject, status, enter } = ctx;
  enter('backing-up');
  const backup = await ctx.durable.backupState.executeWithOptions({ summary: `back up the state of ${subject}` }, [{ workspaceId: pf.workspaceId, subject }]);
  const { rewrite, verdict } = await rewriteAndVerify(ctx, pf, backup, ', dry run');
  enter('verifying');
  status.verdict = verdict;
  enter('dry-run');
  upsertMemo({ outcome: 'dry-run', verdict: verdict.verdict });
  return {
    outcome: 'dry-run',
    workspaceId: pf.workspaceId,
    backup: { ref: backup.blob.ref, sha256: backup.blob.sha256 },
    migratedSha256: rewrite.migrated.sha256,
    renamedCount: rewrite.renamedCount,
    verdict: verdict.verdict,
    warnings: verdict.reasons,
  };
}

/** What approving the apply gate does once a build came after its plan: the run starts over, or (last round) ends. */
function applyApproving(subject: string, lastRound: boolean): string {
  return lastRound
    ? `this is the last of ${MAX_ROUNDS} rounds, so approving builds nothing: the run ends, leaving their build as it is (run the migration again)`
    : `approving builds nothing on this plan: the run reads ${subject} again, backs it up and plans again (and asks again where the policy says so)`;
}

/**
 * A gate answered no (a person's rejection, or no answer before its time-out): a decision, not a
 * failure. Status shows it in words, and the run ends WsmigrateRejected (exit 3; a fleet counts it declined).
 */
function declined(ctx: RoundContext, what: string): ApplicationFailure {
  const decision = ctx.gates.lastDecision;
  if (decision) ctx.status.decision = decision;
  const how = decision ? gateDecisionText(decision) : 'a gate was not approved';
  return ApplicationFailure.create({ message: `${ctx.subject}: ${how}: ${what}`, type: FailureType.rejected, nonRetryable: true });
}

/**
 * One round: stop (option A), back up, rewrite, verify, approve, build with the migrated state,
 * check. A build by someone else between our read and our write ends the round with builtMeanwhile
 * (nothing undone: nothing of ours is on top of theirs) unless it is the last round.
 */
async function migrateOnce(ctx: RoundContext, pf: WorkspacePreflight, lastRound: boolean): Promise<WorkspaceMigrationResult> {
  const { input, subject, workflowId, status, acts, gates, watch, enter, done } = ctx;
  const buildTimeoutMs = durationMs(input.buildTimeout);
  const ownBuildIds: string[] = [];
  // It was running: it runs on the new version afterwards. It was stopped: it stays stopped, now on the new version.
  const transition = pf.prior.transition;
  const stopFirst = input.option === 'A' && transition === 'start';
  if (stopFirst) {
    const stopGate = await gates.request('stop', `stop:${pf.latestBuild.id}`, `Stop ${subject} before migrating (option A)`);
    if (stopGate === 'rejected' || stopGate === 'timed-out') throw declined(ctx, `nothing changed: ${subject} was not stopped`);
  }

  let backup: StateBackup | undefined;
  let stateBuildTried = false;
  // The build the backup must come from: the one the preflight judged healthy, or our own stop of it.
  let readBuildNumber = pf.latestBuild.buildNumber;
  try {
    let taken: StateBackup;
    if (stopFirst) {
      // Inside the try: a failed stop is compensated by a start. Stop and backup are one activity (nothing is decided
      // between them); both are judged here, before anything is written.
      enter('stopping');
      const stopped = await ctx.builds.stopAndBackUp
        .executeWithOptions({ summary: `stop ${subject} (option A), wait for the build, read what it changed; back up the state` }, [
          { workspaceId: pf.workspaceId, subject, afterBuildNumber: pf.latestBuild.buildNumber, timeoutMs: buildTimeoutMs, workflowId, template: input.template },
        ])
        .catch(keepingFailedBuild(ownBuildIds));
      ownBuildIds.push(stopped.stop.buildId);
      await watch.judge(stopped.seen);
      readBuildNumber = stopped.stop.buildNumber;
      done('stop');
      taken = stopped.backup;
    } else {
      enter('backing-up');
      taken = await ctx.durable.backupState.executeWithOptions({ summary: `back up the state of ${subject}` }, [{ workspaceId: pf.workspaceId, subject }]);
    }
    if (taken.buildNumber !== readBuildNumber) {
      // Someone built between the health check and the backup (an owner's Update on a guarded version forgets the
      // PVC): this state was never judged healthy, so it is no backup to restore; read the workspace again.
      throw ApplicationFailure.create({
        message: `${subject}: build #${taken.buildNumber} came after build #${readBuildNumber}, the one the preflight judged; nothing was written over it`,
        type: FailureType.builtMeanwhile,
        nonRetryable: true,
      });
    }
    backup = taken;
    status.backup = { ref: backup.blob.ref, sha256: backup.blob.sha256 };
    done('backup');

    enter('rewriting');
    const { rewrite, verdict } = await rewriteAndVerify(ctx, pf, backup, '');
    done('rewrite');
    enter('verifying');
    status.verdict = verdict;
    done('verify');
    if (verdict.verdict === 'deny') {
      throw ApplicationFailure.create({ message: `guard denied the migration of ${subject}: ${verdict.summary}; ${verdict.reasons.join('; ')}`, type: FailureType.guardDenied, nonRetryable: true });
    }

    enter('awaiting-approval');
    const summary = `${transition === 'start' ? 'Start' : 'Stop'} ${subject} on ${pf.targetVersionName} carrying the migrated state (${rewrite.renamedCount} instance(s) renamed), in one build. Guard: ${verdict.summary}`;
    // An owner's build while the gate waits makes this plan stale: the gate says so, and the build step refuses it.
    const applyGate = await answerWatchingBuilds(gates.request('apply', verdict.planHash, summary, verdict.verdict === 'needs-approval'), {
      gates,
      acts,
      patchId: 'wsmigrate-apply-gate-watch',
      gateId: 'apply',
      workspaceId: pf.workspaceId,
      subject,
      plannedOn: backup.buildNumber,
      approving: applyApproving(subject, lastRound),
    });
    if (applyGate === 'rejected' || applyGate === 'timed-out') throw declined(ctx, `nothing built on ${pf.targetVersionName}; restoring`);

    enter('building');
    stateBuildTried = true;
    const read = await ctx.builds.buildWithStateAndCheck
      .executeWithOptions({ summary: `${transition} ${subject} on ${pf.targetVersionName} carrying the migrated state, wait for the build; check every PVC/PV kept its uid, no deprecated type left` }, [
        {
          purpose: 'migrate',
          workspaceId: pf.workspaceId,
          subject,
          transition,
          templateVersionId: input.targetVersionId,
          state: { ref: rewrite.migrated.ref, sha256: rewrite.migrated.sha256 },
          read: { id: backup.buildId, buildNumber: backup.buildNumber, stateSha256: backup.blob.sha256 },
          backupRef: backup.blob.ref,
          timeoutMs: buildTimeoutMs,
          // A promote since the preflight (a rollback while the run waited at its gate) is refused at the write, as the preflight refuses it.
          activeVersionRequired: !input.allowInactiveVersion,
          workflowId,
          template: input.template,
        },
      ])
      .catch(keepingFailedBuild(ownBuildIds));
    const built = read.built;
    ownBuildIds.push(built.buildId);
    await watch.judge(read.seen);
    done('build');
    enter('checking');
    const check = read.check!; // absent only when judge threw
    done('post-build-check');

    // No memo: the result holds the outcome and the backup's sha256, and the phase is searchable.
    enter('migrated');
    await acts.notify.executeWithOptions({ summary: 'notify migration-done' }, [{ kind: 'migration-done', workflowId, subject: `Migrated ${subject}`, text: `${rewrite.renamedCount} instance(s) renamed; volumes unchanged.${pf.inactiveTarget ? ` Warning: ${pf.inactiveTarget}` : ''}` }]);
    return {
      outcome: 'migrated',
      workspaceId: pf.workspaceId,
      backup: status.backup,
      migratedSha256: rewrite.migrated.sha256,
      renamedCount: rewrite.renamedCount,
      startBuildId: built.buildId,
      verdict: verdict.verdict,
      warnings: [...check.warnings],
      buildChanges: watch.tracked,
      pvcUidsKept: check.persistentChecked,
    };
  } catch (err) {
    if (isNeedsAttention(err)) throw err;
    if (failureType(err) === FailureType.builtMeanwhile && !lastRound) throw err;
    const cancelled = isCancellation(err);
    // A cancel's own message is empty: the restore's outcome would read "migration failed ()".
    status.error = cancelled ? 'the migration was cancelled (a cancel request to its workflow)' : failureMessage(err);
    const leftAsIs = await CancellationScope.nonCancellable(() => compensate(ctx, pf, { backup, ownBuildIds, stateBuildTried, transition }));
    if (cancelled) throw err;
    if (failureType(err) === FailureType.rejected && status.decision) {
      // The gate's no, undone safely: still the person's decision (exit 3, counted declined), not a failure.
      const undone = leftAsIs ? `nothing built back (${leftAsIs})` : 'restored: state and transition as before';
      throw ApplicationFailure.create({ message: `${subject}: ${gateDecisionText(status.decision)}: nothing built on ${pf.targetVersionName}; ${undone}`, type: FailureType.rejected, nonRetryable: true });
    }
    const ended = leftAsIs ? `migration stopped, nothing built back (${leftAsIs})` : 'migration rolled back, state and transition restored';
    throw ApplicationFailure.create({ message: `${subject}: ${ended}. Cause: ${status.error}`, type: FailureType.rolledBack, nonRetryable: true });
  }
}
