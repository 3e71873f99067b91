import {
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { WsmigrateActivities } from '../activities';
import type { StateBackup } from '../activities/backup-state';
import type { PostBuildCheckResult } from '../activities/post-build-check';
import type { RewriteStateResult } from '../activities/rewrite-state';
import type { WorkspacePreflight } from '../activities/preflight-workspace';
import type { WorkspaceHealth } from '../domain/workspace-health';
import type { VerificationResult } from '../activities/verify-migration';
import type { PendingApproval } from '../domain/approval-policy';
import { migrateWorkspaceInputSchema, type MigrateWorkspaceInput } from '../domain/migration-input';
import { parseWorkflowInput } from './workflow-input';
import type { TrackedBuild } from '../activities/track-build-changes';
import { renderRunDetails, workspaceRunSummary } from '../domain/run-details';
import { ApprovalGates, type ApprovalReceipt } from './approval-gates';
import { BuildWatch, isNeedsAttention } from './build-watch';
import { recoverDamagedWorkspace } from './recover-workspace';
import { FINAL_FAILURE_TYPES, QUICK_LOCAL_STEP, QUICK_STEP, durationMs, withActivityMessage } from './activity-presets';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';
import { FleetReport } from './fleet-report';

export type WorkspacePhase =
  | 'preflight'
  | 'stopping'
  | 'backing-up'
  | 'rewriting'
  | 'verifying'
  | 'awaiting-approval'
  | 'pushing-state'
  | 'starting'
  | 'checking'
  | 'compensating'
  | 'migrated'
  | 'already-migrated'
  | 'dry-run'
  | 'restored'
  | 'needs-attention';

export interface WorkspaceMigrationStatus {
  phase: WorkspacePhase;
  stepsDone: string[];
  pendingApproval?: PendingApproval;
  verdict?: Pick<VerificationResult, 'verdict' | 'summary' | 'reasons' | 'planHash'>;
  approvals: ApprovalReceipt[];
  backup?: { ref: string; sha256: string };
  error?: string;
  /** Builds this run triggered that replaced, destroyed or type-rename-deleted something (seed 003). */
  buildChanges?: TrackedBuild[];
}

export interface WorkspaceMigrationResult {
  outcome: 'migrated' | 'already-migrated' | 'dry-run';
  workspaceId: string;
  backup?: { ref: string; sha256: string };
  migratedSha256?: string;
  renamedCount: number;
  startBuildId?: string;
  verdict?: VerificationResult['verdict'];
  warnings: string[];
  buildChanges?: TrackedBuild[];
  /** Persistent volumes checked after the start to have kept their uid (the fleet sums them). */
  pvcUidsKept?: number;
}

/** An activity's own message, not the wrapper's 'Activity task failed'. */
function failureMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e?.cause?.message ?? e?.message ?? String(err);
}

export const workspaceStatusQuery = defineQuery<WorkspaceMigrationStatus>('status');

/** Phases worth a search-attribute write (a history event and a visibility update each); the rest show in the query and the UI's details. */
const MILESTONE_PHASES: ReadonlySet<WorkspacePhase> = new Set(['compensating', 'migrated', 'already-migrated', 'dry-run', 'restored', 'needs-attention']);

// Compensation keeps trying for a long time: giving up on a restore is the worst outcome.
const compensation: ActivityOptions = {
  startToCloseTimeout: '5m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 30, nonRetryableErrorTypes: FINAL_FAILURE_TYPES },
};

/**
 * One workspace, the runbook top to bottom: preflight, stop (option A), back up, rewrite, verify,
 * approve, push the state with no build, start pinned to the new version, check the volumes.
 * Any failure or cancel after the backup restores the backed-up state and the prior transition.
 */
export async function migrateWorkspace(rawInput: MigrateWorkspaceInput): Promise<WorkspaceMigrationResult> {
  const report = new FleetReport(rawInput);
  let result: WorkspaceMigrationResult;
  try {
    result = await migrateWorkspaceSteps(rawInput);
  } catch (err) {
    const failure = withActivityMessage(err);
    await report.done(undefined, failure);
    throw failure;
  }
  await report.done(result);
  return result;
}

async function migrateWorkspaceSteps(rawInput: MigrateWorkspaceInput): Promise<WorkspaceMigrationResult> {
  const { workflowId } = workflowInfo();
  const status: WorkspaceMigrationStatus = { phase: 'preflight', stepsDone: [], approvals: [] };
  // Every patch is decided here, before the first local activity: a patch marker recorded after local
  // steps of the same workflow task can land ahead of their markers and trip the replay of a query.
  // A run started by this code records one marker (each marker also costs a TemporalChangeVersion
  // search-attribute write); runs begun under older code replay on the markers they recorded:
  // unknown input keys refused (v3), lean history (local steps, milestone-only phase writes), the
  // health preflight, the build watch.
  const strictInput = patched('wsmigrate-workspace-v3');
  const current = strictInput || patched('wsmigrate-workspace-v2');
  const input = parseWorkflowInput(migrateWorkspaceInputSchema, rawInput, strictInput);
  const leanHistory = current || patched('wsmigrate-lean-history');
  const healthPreflight = current || patched('wsmigrate-health-preflight');
  // Quick reads, pure steps and idempotent quick writes run as local activities: one marker event each.
  const acts = leanHistory ? proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP) : proxyActivities<WsmigrateActivities>(QUICK_STEP);
  // The backup and the push are never local: a local step is recorded only when its workflow task
  // completes, so a worker dying after the push would re-run the backup against the already-pushed
  // state and the compensation would then "restore" the migrated bytes. Each needs its own durable event.
  const durable = proxyActivities<WsmigrateActivities>(QUICK_STEP);
  const comp = proxyActivities<WsmigrateActivities>(compensation);
  const buildTimeoutMs = durationMs(input.buildTimeout);
  const builds = proxyActivities<WsmigrateActivities>({
    startToCloseTimeout: buildTimeoutMs + 5 * 60_000,
    heartbeatTimeout: input.heartbeatTimeout as Duration,
    retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '2m', maximumAttempts: 5, nonRetryableErrorTypes: FINAL_FAILURE_TYPES },
  });
  const subject = `${input.owner}/${input.workspace}`;
  let title = workspaceRunSummary(input.owner, input.workspace, input.template, input.targetVersionId.slice(0, 8));
  const showDetails = () =>
    setCurrentDetails(renderRunDetails({ title, workflowId, phase: status.phase, stepsDone: status.stepsDone, verdict: status.verdict, pending: gates.pending, error: status.error }));
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify.executeWithOptions({ summary: `notify ${n.kind}` }, [n]), showDetails);
  setHandler(workspaceStatusQuery, () => ({ ...status, pendingApproval: gates.pending, approvals: [...gates.receipts] }));
  const enter = (phase: WorkspacePhase) => {
    status.phase = phase;
    if (!leanHistory || MILESTONE_PHASES.has(phase)) upsertSearchAttributes([{ key: WsmigratePhase, value: phase }]);
    showDetails();
  };
  const done = (step: string) => {
    status.stepsDone.push(step);
    showDetails();
  };
  const watch = new BuildWatch(acts, { workflowId, subject, template: input.template }, () => enter('needs-attention'), current);
  status.buildChanges = watch.tracked;
  /** Rewrite, then plan and guard: one local step for runs of this code, two for runs begun under older code. */
  const rewriteAndVerify = async (backup: StateBackup, note: string, afterRewrite?: (rewrite: RewriteStateResult) => void) => {
    const rewriteInput = { subject, backupRef: backup.blob.ref, strategy: input.strategy, targetVersionId: input.targetVersionId };
    if (current) {
      const both = await acts.rewriteAndVerify.executeWithOptions({ summary: `rewrite the state to _v1 (${input.strategy})${note}; plan ${pf.targetVersionName} against it; guard` }, [rewriteInput]);
      afterRewrite?.(both.rewrite);
      return both;
    }
    const rewrite = await acts.rewriteState.executeWithOptions({ summary: `rewrite the state to _v1 (${input.strategy})${note}` }, [rewriteInput]);
    afterRewrite?.(rewrite);
    const verdict = await acts.verifyMigration.executeWithOptions({ summary: `plan ${pf.targetVersionName} against the migrated state; guard` }, [{ subject, migratedRef: rewrite.migrated.ref, targetVersionId: input.targetVersionId }]);
    return { rewrite, verdict };
  };
  // The client tags the run at start; a run started otherwise (temporal CLI, Web UI) is tagged here.
  if (!leanHistory || workflowInfo().typedSearchAttributes.get(WsmigrateTemplate) !== input.template) {
    upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  }
  enter('preflight');

  const preflightInput = { owner: input.owner, workspace: input.workspace, template: input.template, targetVersionId: input.targetVersionId, strategy: input.strategy };
  let pf: WorkspacePreflight;
  let health: WorkspaceHealth | { health: 'migrated' | 'unmigrated' };
  // Only a workspace whose builds and states are healthy counts as migrated; a damaged one is recovered instead.
  if (current) {
    ({ preflight: pf, health } = await acts.preflightAndAssess.executeWithOptions({ summary: `preflight ${subject}: Coder version, build, target version, state; health of its builds and states` }, [preflightInput]));
    title = workspaceRunSummary(input.owner, input.workspace, input.template, pf.targetVersionName);
    done('preflight');
  } else {
    pf = await acts.preflightWorkspace.executeWithOptions({ summary: `preflight ${subject}: Coder version, build, target version, state` }, [preflightInput]);
    title = workspaceRunSummary(input.owner, input.workspace, input.template, pf.targetVersionName);
    done('preflight');
    // patched: runs started before the health check replay on its absence and keep the old rule.
    health = healthPreflight
      ? await acts.assessHealth({ workspaceId: pf.workspaceId, subject, targetVersionId: input.targetVersionId })
      : ({ health: pf.alreadyMigrated && pf.onTargetVersion ? 'migrated' : 'unmigrated' } as const);
  }
  if (health.health === 'damaged') return recoverDamagedWorkspace({ input, workspaceId: pf.workspaceId, subject, health, acts, builds, gates, status, enter, done });
  if (health.health === 'busy' || health.health === 'unreadable') {
    throw ApplicationFailure.create({ message: `preflight: ${subject} is ${health.health}: ${health.reason}`, type: health.health === 'busy' ? 'WsmigrateWorkspaceBusy' : 'WsmigrateRefused' });
  }
  if (health.health === 'migrated') {
    enter('already-migrated');
    upsertMemo({ outcome: 'already-migrated' });
    return { outcome: 'already-migrated', workspaceId: pf.workspaceId, renamedCount: 0, warnings: [] };
  }

  if (input.dryRun) {
    enter('backing-up');
    const backup = await durable.backupState.executeWithOptions({ summary: `back up the state of ${subject}` }, [{ workspaceId: pf.workspaceId, subject }]);
    const { rewrite, verdict } = await rewriteAndVerify(backup, ', dry run');
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

  const ownBuildIds: string[] = [];
  let afterBuildNumber = pf.latestBuild.buildNumber;
  const stopFirst = input.option === 'A' && pf.prior.transition === 'start';
  if (stopFirst) {
    const stopGate = await gates.request('stop', `stop:${pf.latestBuild.id}`, `Stop ${subject} before migrating (option A)`);
    if (stopGate === 'rejected' || stopGate === 'timed-out') {
      throw ApplicationFailure.create({ message: `stop of ${subject} ${stopGate}; nothing changed`, type: 'WsmigrateRejected', nonRetryable: true });
    }
  }

  let backup: StateBackup | undefined;
  let migratedSha256: string | undefined;
  try {
    if (stopFirst) {
      // Inside the try: a stop that fails (a flaky provisioner) is compensated by starting the workspace again.
      enter('stopping');
      const stop = await builds.stopWorkspace.executeWithOptions({ summary: `stop ${subject} (option A) and wait for the build` }, [{ workspaceId: pf.workspaceId, subject, afterBuildNumber, timeoutMs: buildTimeoutMs }]);
      ownBuildIds.push(stop.buildId);
      await watch.after(stop.buildId);
      afterBuildNumber = stop.buildNumber;
      done('stop');
    }

    enter('backing-up');
    backup = await durable.backupState.executeWithOptions({ summary: `back up the state of ${subject}` }, [{ workspaceId: pf.workspaceId, subject }]);
    status.backup = { ref: backup.blob.ref, sha256: backup.blob.sha256 };
    done('backup');

    enter('rewriting');
    const { rewrite, verdict } = await rewriteAndVerify(backup, '', (rewritten) => {
      migratedSha256 = rewritten.migrated.sha256;
      done('rewrite');
      enter('verifying');
    });
    status.verdict = verdict;
    done('verify');
    if (verdict.verdict === 'deny') {
      throw ApplicationFailure.create({ message: `guard denied the migration of ${subject}: ${verdict.summary}; ${verdict.reasons.join('; ')}`, type: 'WsmigrateGuardDenied', nonRetryable: true });
    }

    enter('awaiting-approval');
    const summary = `Push the migrated state of ${subject} (${rewrite.renamedCount} instance(s) renamed) and start it on ${pf.targetVersionName}. Guard: ${verdict.summary}`;
    const applyGate = await gates.request('apply', verdict.planHash, summary, verdict.verdict === 'needs-approval');
    if (applyGate === 'rejected' || applyGate === 'timed-out') {
      throw ApplicationFailure.create({ message: `migration of ${subject} ${applyGate === 'rejected' ? 'was rejected' : 'timed out waiting for approval'}; restoring`, type: 'WsmigrateRejected', nonRetryable: true });
    }

    enter('pushing-state');
    if (!rewrite.alreadyMigrated) {
      await durable.pushState.executeWithOptions({ summary: `push the migrated state onto build #${backup.buildNumber}, no build` }, [{ subject, workspaceId: pf.workspaceId, backup, migratedRef: rewrite.migrated.ref, migratedSha256: rewrite.migrated.sha256 }]);
    }
    done('push-state');

    const startGate = await gates.request('start', verdict.planHash, `Start ${subject} pinned to ${pf.targetVersionName}`);
    if (startGate === 'rejected' || startGate === 'timed-out') {
      throw ApplicationFailure.create({ message: `start of ${subject} ${startGate}; restoring`, type: 'WsmigrateRejected', nonRetryable: true });
    }
    enter('starting');
    const start = await builds.startPinned.executeWithOptions({ summary: `start ${subject} pinned to ${pf.targetVersionName} and wait for the build` }, [{ workspaceId: pf.workspaceId, subject, templateVersionId: input.targetVersionId, afterBuildNumber: backup.buildNumber, timeoutMs: buildTimeoutMs }]);
    ownBuildIds.push(start.buildId);
    let check: PostBuildCheckResult;
    if (current) {
      const read = await acts.trackAndCheckStart.executeWithOptions({ summary: `read what the start changed; check every PVC/PV kept its uid; no deprecated type left` }, [{ workflowId, subject, template: input.template, buildId: start.buildId, backupRef: backup.blob.ref }]);
      await watch.judge(read.seen);
      done('start');
      enter('checking');
      check = read.check as PostBuildCheckResult; // absent only when judge threw
    } else {
      await watch.after(start.buildId);
      done('start');
      enter('checking');
      check = await acts.postBuildCheck.executeWithOptions({ summary: 'check every PVC/PV kept its uid; no deprecated type left' }, [{ subject, buildId: start.buildId, backupRef: backup.blob.ref }]);
    }
    done('post-build-check');

    const warnings = [...check.warnings];
    if (pf.prior.transition === 'stop') {
      // It was stopped before we came: leave it stopped, now on the new version (pinned, never the old one).
      const stopAgain = await builds.returnToPrior
        .executeWithOptions({ summary: `stop ${subject} again, pinned to ${pf.targetVersionName} (it was stopped before)` }, [{ workspaceId: pf.workspaceId, subject, prior: { transition: 'stop', templateVersionId: input.targetVersionId }, timeoutMs: buildTimeoutMs }])
        .catch((err: Error) => void warnings.push(`migrated, but stopping it again failed: ${err.message}`));
      await watch.after(stopAgain?.buildId);
    }
    enter('migrated');
    upsertMemo({ outcome: 'migrated', backupSha256: backup.blob.sha256 });
    await acts.notify.executeWithOptions({ summary: 'notify migration-done' }, [{ kind: 'migration-done', workflowId, subject: `Migrated ${subject}`, text: `${rewrite.renamedCount} instance(s) renamed; volumes unchanged.` }]);
    return {
      outcome: 'migrated',
      workspaceId: pf.workspaceId,
      backup: status.backup,
      migratedSha256: rewrite.migrated.sha256,
      renamedCount: rewrite.renamedCount,
      startBuildId: start.buildId,
      verdict: verdict.verdict,
      warnings,
      buildChanges: watch.tracked,
      pvcUidsKept: check.persistentChecked,
    };
  } catch (err) {
    if (isNeedsAttention(err)) throw err;
    status.error = failureMessage(err);
    showDetails();
    const cancelled = isCancellation(err);
    await CancellationScope.nonCancellable(async () => {
      enter('compensating');
      try {
        if (backup) {
          await comp.restoreState.executeWithOptions({ summary: `compensation: put the backed-up state back onto ${subject}` }, [{ subject, workspaceId: pf.workspaceId, backup, ownBuildIds, ownStart: { templateVersionId: input.targetVersionId }, migratedSha256 }]);
          done('restore-state');
        }
        const back = await builds.returnToPrior.executeWithOptions({ summary: `compensation: return ${subject} to ${pf.prior.transition} on its prior version` }, [{ workspaceId: pf.workspaceId, subject, prior: pf.prior, timeoutMs: buildTimeoutMs }]);
        await watch.after(back.buildId);
        done('return-to-prior');
        enter('restored');
        upsertMemo({ outcome: 'restored', reason: status.error?.slice(0, 300) ?? '' });
        await acts.notify.executeWithOptions({ summary: 'notify restored' }, [{ kind: 'restored', workflowId, subject: `Restored ${subject}`, text: `Migration stopped: ${status.error}. State and transition restored.` }]);
      } catch (compErr) {
        enter('needs-attention');
        upsertMemo({ outcome: 'needs-attention' });
        await acts.notify.executeWithOptions({ summary: 'notify migration-failed' }, [{ kind: 'migration-failed', workflowId, subject: `Needs attention: ${subject}`, text: `Restore did not finish: ${failureMessage(compErr)}` }]);
        throw ApplicationFailure.create({
          message: `${subject}: migration failed (${status.error}) and the restore did not finish: ${failureMessage(compErr)}`,
          type: 'WsmigrateNeedsAttention',
          nonRetryable: true,
        });
      }
    });
    if (cancelled) throw err;
    throw ApplicationFailure.create({
      message: `${subject}: migration rolled back, state and transition restored. Cause: ${status.error}`,
      type: 'WsmigrateRolledBack',
      nonRetryable: true,
    });
  }
}
