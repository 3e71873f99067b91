import { ApplicationFailure, isCancellation, proxyActivities, setCurrentDetails, setHandler, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { RecoveryBackups } from '../activities/backup-for-recovery';
import { migrateWorkspaceInputSchema, type MigrateWorkspaceInput, type MigrateWorkspaceParams } from '../domain/migration-input';
import { renderRunDetails, workspaceRunSummary } from '../domain/run-details';
import { endedPhaseText, type RunEnding } from '../domain/phase-note';
import { describeLoss, type ProtectedLoss } from '../domain/protected-loss';
import type { WorkspaceHealth } from '../domain/workspace-health';
import { recoveryNeedsPerson } from '../domain/approval-policy';
import { ApprovalGates } from './approval-gates';
import { gateDecisionText } from '../domain/gate-decision';
import { answerWatchingBuilds } from './gate-watch';
import { parseWorkflowInput } from './workflow-input';
import { FailureType } from '../domain/failure-types';
import { dormantWhoMustAct } from '../domain/dormancy';
import { QUICK_STEP, buildStepOptions, durationMs, failureMessage, failureType, withActivityMessage } from './activity-presets';
import { workspaceStatusQuery, type WorkspaceMigrationResult, type WorkspaceMigrationStatus, type WorkspacePhase } from '../contracts/migrate-workspace';
import type { WorkspaceRecoveryResult } from '../contracts/recover-workspace';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';

type Activities = ReturnType<typeof proxyActivities<WsmigrateActivities>>;

/** Rounds of back up → build when someone keeps building the damaged workspace meanwhile. */
const RECOVERY_ROUNDS = 3;

/** What a migration run hands to the recovery: its activities, gates and status, so both report the same way. */
export interface RecoveryContext {
  input: MigrateWorkspaceParams;
  workspaceId: string;
  subject: string;
  health: WorkspaceHealth;
  acts: Activities;
  builds: Activities;
  gates: ApprovalGates;
  status: WorkspaceMigrationStatus;
  enter(phase: WorkspacePhase): void;
  done(step: string): void;
}

function needsAttention(ctx: RecoveryContext, message: string): ApplicationFailure {
  ctx.enter('needs-attention');
  upsertMemo({ outcome: 'needs-attention' });
  return ApplicationFailure.create({ message, type: FailureType.needsAttention, nonRetryable: true });
}

const backupList = (b: RecoveryBackups) =>
  `backups: current state of build #${b.current.buildNumber} ${b.current.blob.ref}, state of build #${b.good.buildNumber} ${b.good.blob.ref}`;

/**
 * A damaged workspace (a failed build, or a state that lost a protected object): back up the
 * current state and the newest good one, rewrite the good one to _v1, verify it, ask a human
 * (by the run's policy for a plain repair, else always), then one build that starts it on the target version carrying that state, and check
 * every protected object kept its uid. A destroyed object cannot come back from state: that ends
 * needs-attention, naming the loss. Someone building it meanwhile starts the recovery over (bounded).
 */
export async function recoverDamagedWorkspace(ctx: RecoveryContext): Promise<WorkspaceRecoveryResult | WorkspaceMigrationResult> {
  let startedOver: string | undefined;
  for (let round = 1; ; round++) {
    try {
      return await recoverOnce(ctx, round, startedOver);
    } catch (err) {
      if (failureType(err) !== FailureType.builtMeanwhile) throw err;
      if (round >= RECOVERY_ROUNDS) {
        throw needsAttention(ctx, `${ctx.subject}: not recovered: someone built it during each of ${RECOVERY_ROUNDS} tries (${failureMessage(err)}); nothing of ours was written over their builds. Run 'wsmigrate recover' again when it is idle`);
      }
      ctx.status.restarts = round;
      ctx.done(`started over: try ${round + 1} of ${RECOVERY_ROUNDS}`);
      const health = await ctx.acts.assessHealth({ workspaceId: ctx.workspaceId, subject: ctx.subject, targetVersionId: ctx.input.targetVersionId });
      if (health.health !== 'damaged') {
        throw needsAttention(
          ctx,
          `${ctx.subject}: was damaged, but ${failureMessage(err)}; it is now ${health.health} (${health.reason}). Nothing of ours was written over it: look at it, then run 'wsmigrate migrate workspace' or 'wsmigrate recover' again`,
        );
      }
      ctx = { ...ctx, health };
      // The next gate says why it asks again: an approval given before was for a plan that was never applied.
      startedOver = `Try ${round + 1} of ${RECOVERY_ROUNDS}, planned again: ${failureMessage(err)}.`;
    }
  }
}

/** What approving the recover gate does once a build came after its plan: the recovery starts over, or (last try) ends. */
function recoverApproving(subject: string, round: number): string {
  return round >= RECOVERY_ROUNDS
    ? `this is the last of ${RECOVERY_ROUNDS} tries, so approving builds nothing: the recovery ends needs-attention, leaving their build as it is (run 'wsmigrate recover' again when it is idle)`
    : `approving builds nothing on this plan: the recovery reads ${subject} again; still damaged, it backs it up and plans again (and asks again), else it ends saying what it is now`;
}

async function recoverOnce(ctx: RecoveryContext, round: number, startedOver: string | undefined): Promise<WorkspaceRecoveryResult | WorkspaceMigrationResult> {
  const { input, subject, health, acts, builds, gates, status, enter, done } = ctx;
  const { workflowId } = workflowInfo();
  const latest = health.latest;
  if (!latest) throw needsAttention(ctx, `${subject}: damaged but no build was read; run 'wsmigrate scan' and look at it by hand`);
  const destroyed = health.losses.filter((l) => l.kind === 'destroyed');
  // coderd/rbac: a dormant workspace may be started by nobody, not even an Owner; the recovery's start would be refused after its approval.
  if (health.dormantSince && destroyed.length === 0) {
    throw ApplicationFailure.create({
      message:
        `recovery refused for ${subject}: it is damaged (${health.reason}) and dormant since ${health.dormantSince}, and Coder lets nobody start a dormant workspace, so the recovery's start would be refused. ` +
        `Nothing was changed: ${dormantWhoMustAct(ctx.workspaceId)}, then run 'wsmigrate recover' (or the migration) again`,
      type: FailureType.refused,
      nonRetryable: true,
    });
  }

  enter('backing-up');
  const goodBuild = destroyed.length > 0 ? destroyed[0].heldIn : health.recoverFrom;
  if (!goodBuild) {
    throw needsAttention(ctx, `${subject}: damaged (${health.reason}) and no recent build's state holds every protected object; nothing was changed`);
  }
  const backups = await acts.backupForRecovery({ workspaceId: ctx.workspaceId, subject, latestBuildId: latest.id, goodBuildId: goodBuild.id });
  status.backup = { ref: backups.current.blob.ref, sha256: backups.current.blob.sha256 };
  done('backup');

  if (destroyed.length > 0) {
    const lost = destroyed.map((l: ProtectedLoss) => `${l.address} destroyed by build #${l.build.number} at ${l.build.at}`).join('; ');
    await acts.notify({ kind: 'migration-failed', workflowId, subject: `Data lost: ${subject}`, text: `${lost}. ${backupList(backups)}` });
    throw needsAttention(
      ctx,
      `${subject}: ${destroyed.map(describeLoss).join('; ')}. Nothing in Terraform state can bring that data back: restore it from your storage backups. ` +
        `Not migrated. ${backupList(backups)}`,
    );
  }

  enter('rewriting');
  const rewrite = await acts.rewriteState({ subject, backupRef: backups.good.blob.ref, strategy: input.strategy, targetVersionId: input.targetVersionId });
  done('rewrite');
  enter('verifying');
  const verdict = await acts.verifyMigration({ subject, migratedRef: rewrite.migrated.ref, targetVersionId: input.targetVersionId });
  status.verdict = verdict;
  done('verify');
  if (verdict.verdict === 'deny') {
    throw ApplicationFailure.create({
      message: `guard denied the recovery of ${subject} from build #${goodBuild.number}: ${verdict.summary}; ${verdict.reasons.join('; ')}. Nothing was changed; ${backupList(backups)}`,
      type: FailureType.guardDenied,
      nonRetryable: true,
    });
  }
  const recovery = {
    fromBuild: goodBuild.number,
    damagedBuild: latest.number,
    losses: health.losses.map(describeLoss).slice(0, 20),
    damagedBackup: { ref: backups.current.blob.ref, sha256: backups.current.blob.sha256 },
  };
  if (input.dryRun) {
    enter('dry-run');
    upsertMemo({ outcome: 'dry-run', verdict: verdict.verdict });
    return {
      outcome: 'dry-run',
      workspaceId: ctx.workspaceId,
      backup: status.backup,
      migratedSha256: rewrite.migrated.sha256,
      renamedCount: rewrite.renamedCount,
      verdict: verdict.verdict,
      warnings: [`damaged: ${health.reason}; a recovery would start from build #${goodBuild.number}`, ...verdict.reasons],
      recovery,
    };
  }

  enter('awaiting-approval');
  const summary =
    `${startedOver ? `${startedOver} ` : ''}Recover ${subject}: ${health.reason}. Start it on the target version carrying the state of build #${goodBuild.number} (rewritten to _v1), ` +
    `in one build on top of build #${latest.number}. Guard: ${verdict.summary.replace(/\.?$/, '.')} ${backupList(backups)}`;
  const askAnyway = recoveryNeedsPerson(health.losses.map((l) => l.kind), verdict.verdict);
  // Written over a newer build, this state would forget what that build made (a volume made anew
  // since: its data left outside the state): the gate says so, and the build step refuses it.
  const gate = await answerWatchingBuilds(gates.request('recover', verdict.planHash, askAnyway ? `${summary} Asked whatever the policy: ${askAnyway}.` : summary, askAnyway !== undefined), {
    gates,
    acts,
    patchId: 'wsmigrate-recover-gate-watch',
    gateId: 'recover',
    workspaceId: ctx.workspaceId,
    subject,
    plannedOn: backups.current.buildNumber,
    approving: recoverApproving(subject, round),
  });
  if (gate === 'rejected' || gate === 'timed-out') {
    if (gates.lastDecision) status.decision = gates.lastDecision;
    throw ApplicationFailure.create({
      // Reached from a migration too, whose stop did change the workspace: what the recovery did, what is left, what to run.
      message:
        `recovery of ${subject}: ${gates.lastDecision ? gateDecisionText(gates.lastDecision) : gate === 'rejected' ? 'rejected' : 'timed out waiting for approval'}; the recovery built nothing: ${subject} stays damaged (${health.reason}). ` +
        `When you want it repaired: wsmigrate recover ${subject} --template ${input.template} --version ${input.targetVersionId}. ${backupList(backups)}`,
      type: FailureType.rejected,
      nonRetryable: true,
    });
  }

  try {
    enter('building');
    const start = await builds.buildWithState({
      purpose: 'recover',
      workspaceId: ctx.workspaceId,
      subject,
      transition: 'start',
      templateVersionId: input.targetVersionId,
      state: { ref: rewrite.migrated.ref, sha256: rewrite.migrated.sha256 },
      read: { id: backups.current.buildId, buildNumber: backups.current.buildNumber, stateSha256: backups.current.blob.sha256 },
      backupRef: backups.current.blob.ref,
      timeoutMs: durationMs(input.buildTimeout),
      activeVersionRequired: !input.allowInactiveVersion,
    });
    done('build');
    enter('checking');
    const check = await acts.checkProtectedKept({ subject, buildId: start.buildId, referenceRef: backups.good.blob.ref, targetVersionId: input.targetVersionId });
    done('protected-check');
    enter('migrated');
    upsertMemo({ outcome: 'migrated', recoveredFromBuild: goodBuild.number, backupSha256: backups.current.blob.sha256 });
    await acts.notify({
      kind: 'migration-done',
      workflowId,
      subject: `Recovered ${subject}`,
      text: `Recovered from build #${goodBuild.number}; ${check.checked.length} protected object(s) kept their uid.`,
    });
    return {
      outcome: 'migrated',
      workspaceId: ctx.workspaceId,
      backup: status.backup,
      migratedSha256: rewrite.migrated.sha256,
      renamedCount: rewrite.renamedCount,
      startBuildId: start.buildId,
      verdict: verdict.verdict,
      warnings: health.losses.filter((l) => l.kind === 'orphaned').map(
        (l) => `${l.address}: the object that took its place (uid ${l.after?.uid ?? '?'}) is no longer in the state and stays in the cluster; delete it by hand once nothing on it is needed`,
      ),
      // Its volumes kept their uid too: counted with the fleet's kept ones, not taken for lost.
      pvcUidsKept: check.checked.filter((c) => c.address.includes('persistent_volume')).length,
      recovery,
    };
  } catch (err) {
    if (failureType(err) === FailureType.builtMeanwhile) throw err;
    status.error = failureMessage(err);
    await acts.notify({ kind: 'migration-failed', workflowId, subject: `Needs attention: ${subject}`, text: `Recovery failed: ${status.error}` });
    // An object left outside the state fails a restore's start just the same: its own advice (delete or import it) is the way.
    const next = leftOutsideState(err)
      ? 'Nothing was deleted; the backups stay as they are'
      : `Once the workspace is idle, put a backup back with: wsmigrate state restore ${subject} --backup <ref> --yes`;
    throw needsAttention(ctx, `${subject}: recovery from build #${goodBuild.number} failed: ${status.error}. ${backupList(backups)}. ${next}`);
  }
}

/** The build failed on a Kubernetes object that exists outside its state (the build step's failure details say so). */
function leftOutsideState(err: unknown): boolean {
  const e = err as { details?: unknown[]; cause?: { details?: unknown[] } };
  const d = (e?.cause?.details ?? e?.details)?.[0] as { outsideState?: unknown } | undefined;
  return d?.outsideState !== undefined;
}

/**
 * `wsmigrate recover OWNER/WS`: the same recovery on request, under the workspace's migration id
 * (so it never runs beside a migration of the same workspace). A healthy workspace is left alone.
 */
export async function recoverWorkspace(rawInput: MigrateWorkspaceInput): Promise<WorkspaceMigrationResult> {
  const view: { ended?: (how: RunEnding) => void } = {};
  try {
    return await recoverWorkspaceSteps(rawInput, view);
  } catch (err) {
    const failure = withActivityMessage(err);
    // The Web UI's details must not go on showing the step it was in (or a gate to approve) once the run ended.
    view.ended?.(isCancellation(err) ? { cancelled: true } : { failure: (failure as Error).message, declined: (failure as ApplicationFailure).type === FailureType.rejected });
    throw failure;
  }
}

async function recoverWorkspaceSteps(rawInput: MigrateWorkspaceInput, view: { ended?: (how: RunEnding) => void }): Promise<WorkspaceMigrationResult> {
  const { workflowId } = workflowInfo();
  const input: MigrateWorkspaceParams = parseWorkflowInput(migrateWorkspaceInputSchema, rawInput);
  const status: WorkspaceMigrationStatus = { phase: 'preflight', stepsDone: [], approvals: [] };
  const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);
  const builds = proxyActivities<WsmigrateActivities>(buildStepOptions(input));
  const subject = `${input.owner}/${input.workspace}`;
  const title = `recover ${workspaceRunSummary(input.owner, input.workspace, input.template, input.targetVersionId.slice(0, 8))}`;
  // The Web UI's details: what an approver reads there (a gate amended under them included), as for a migration.
  const showDetails = () =>
    setCurrentDetails(
      renderRunDetails({ title, workflowId, phase: gates.pending ? 'awaiting-approval' : status.phase, stepsDone: status.stepsDone, verdict: status.verdict, pending: gates.pending, error: status.error }),
    );
  view.ended = ({ cancelled, failure, declined }) =>
    setCurrentDetails(
      renderRunDetails({
        title,
        workflowId,
        phase: endedPhaseText({ cancelled, failure, declined }, status.phase),
        ...(failure && !declined ? { failure } : {}),
        stepsDone: status.stepsDone,
        verdict: status.verdict,
      }),
    );
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify(n), showDetails);
  setHandler(workspaceStatusQuery, () => ({ ...status, pendingApproval: gates.pending, approvals: [...gates.receipts] }));
  const enter = (phase: WorkspacePhase) => {
    status.phase = phase;
    upsertSearchAttributes([{ key: WsmigratePhase, value: phase }]);
    showDetails();
  };
  const done = (step: string) => {
    if (status.stepsDone.at(-1) !== step) status.stepsDone.push(step);
    showDetails();
  };
  upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  enter('preflight');
  const pf = await acts.preflightWorkspace({
    owner: input.owner,
    workspace: input.workspace,
    template: input.template,
    targetVersionId: input.targetVersionId,
    strategy: input.strategy,
    allowInactiveVersion: input.allowInactiveVersion || input.dryRun,
  });
  if (pf.inactiveTarget) status.warnings = [pf.inactiveTarget];
  const health = await acts.assessHealth({ workspaceId: pf.workspaceId, subject, targetVersionId: input.targetVersionId });
  done('preflight');
  if (health.health === 'migrated') {
    enter('already-migrated');
    upsertMemo({ outcome: 'already-migrated' });
    return { outcome: 'already-migrated', workspaceId: pf.workspaceId, renamedCount: 0, warnings: [] };
  }
  if (health.health !== 'damaged') {
    throw ApplicationFailure.create({
      message: `recover refused for ${subject}: it is ${health.health} (${health.reason}), not damaged; ${health.health === 'unmigrated' ? "use 'wsmigrate migrate workspace'" : 'nothing was changed'}`,
      type: FailureType.refused,
      nonRetryable: true,
    });
  }
  const result = await recoverDamagedWorkspace({ input, workspaceId: pf.workspaceId, subject, health, acts, builds, gates, status, enter, done });
  return pf.inactiveTarget ? { ...result, warnings: [pf.inactiveTarget, ...result.warnings] } : result;
}
