import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceHealth } from '../domain/workspace-health';
import type { BackupStateInput, StateBackup } from './backup-state';
import type { BuildWithStateInput, BuiltWithState } from './build-with-state';
import { heartbeatIfInActivity, heartbeatedSucceededBuild } from './heartbeat';
import type { StopWorkspaceInput } from './stop-workspace';
import type { AssessHealthInput } from './assess-health';
import type { PostBuildCheckInput, PostBuildCheckResult } from './post-build-check';
import type { WorkspacePreflight, WorkspacePreflightInput } from './preflight-workspace';
import type { RewriteStateInput, RewriteStateResult } from './rewrite-state';
import type { TrackedBuild, VerificationResult } from '../contracts/migrate-workspace';
import type { TrackBuildChangesInput } from './track-build-changes';
import type { VerifyMigrationInput } from './verify-migration';
import type { StepReads } from './step-reads';

/** The parts; `reads` carries what one part read to the next (step-reads.ts), never across a write. */
interface Steps {
  stopWorkspace(input: StopWorkspaceInput, reads?: StepReads): Promise<{ buildId: string; buildNumber: number }>;
  backupState(input: BackupStateInput): Promise<StateBackup>;
  buildWithState(input: BuildWithStateInput, reads?: StepReads): Promise<BuiltWithState>;
  preflightWorkspace(input: WorkspacePreflightInput, reads?: StepReads): Promise<WorkspacePreflight>;
  assessHealth(input: AssessHealthInput, reads?: StepReads): Promise<WorkspaceHealth>;
  rewriteState(input: RewriteStateInput): Promise<RewriteStateResult>;
  verifyMigration(input: VerifyMigrationInput): Promise<VerificationResult>;
  trackBuildChanges(input: TrackBuildChangesInput, reads?: StepReads): Promise<TrackedBuild>;
  postBuildCheck(input: PostBuildCheckInput, reads?: StepReads): Promise<PostBuildCheckResult>;
}

/**
 * Steps the workspace workflow always runs back to back, as one local activity each pair: every
 * activity result is a round trip through the workflow (an activation, a history marker), and at
 * fleet scale those round trips, not Coder, were the worker's CPU. Each part is a read or an
 * idempotent write, so a retry of the pair is as safe as a retry of either; each part keeps its own
 * metrics and error text.
 */
export function makeCombinedSteps(steps: Steps) {
  return {
    async preflightAndAssess(input: WorkspacePreflightInput): Promise<{ preflight: WorkspacePreflight; health: WorkspaceHealth }> {
      // Reads only, both: the health check starts from the workspace and latest state the preflight read.
      const reads: StepReads = {};
      const preflight = await steps.preflightWorkspace(input, reads);
      const health = await steps.assessHealth({ workspaceId: preflight.workspaceId, subject: preflight.subject, targetVersionId: input.targetVersionId }, reads);
      return { preflight, health };
    },

    async rewriteAndVerify(input: RewriteStateInput): Promise<{ rewrite: RewriteStateResult; verdict: VerificationResult }> {
      const rewrite = await steps.rewriteState(input);
      const verdict = await steps.verifyMigration({ subject: input.subject, migratedRef: rewrite.migrated.ref, targetVersionId: input.targetVersionId });
      return { rewrite, verdict };
    },

    /** The build watch's reading first: when it saw a protected resource destroyed, the workflow judges that alone (needs attention, no restore). */
    async trackAndCheckStart(input: TrackBuildChangesInput & PostBuildCheckInput): Promise<{ seen: TrackedBuild; check?: PostBuildCheckResult }> {
      const reads: StepReads = {};
      const seen = await steps.trackBuildChanges({ workflowId: input.workflowId, subject: input.subject, template: input.template, buildId: input.buildId }, reads);
      if (seen.protectedDestroyed.length > 0) return { seen };
      return { seen, check: await steps.postBuildCheck({ subject: input.subject, buildId: input.buildId, backupRef: input.backupRef }, reads) };
    },

    /**
     * The migrated-state build, what it changed and the post-build check: one durable activity, as
     * the check always follows the build at once. A retry after the build ended checks that build
     * again (heartbeated); one during the build finds it (heartbeated id, else build number + 1 with
     * our transition, version and state) and waits for it; it never builds twice. A failure after the build names it (details),
     * so the compensation builds over it as ours.
     */
    async buildWithStateAndCheck(
      input: BuildWithStateInput & { backupRef: string; workflowId: string; template: string },
    ): Promise<{ built: BuiltWithState; seen: TrackedBuild; check?: PostBuildCheckResult }> {
      const { workflowId, template, ...build } = input;
      // Someone may build right after ours: a retry that built before must not take theirs for a reason to start over.
      // The build as its wait saw it end, then its logs, are read once for both checks; the state is read back fresh.
      const reads: StepReads = {};
      const built = heartbeatedSucceededBuild() ?? (await steps.buildWithState(build, reads));
      let seen: TrackedBuild | undefined;
      try {
        heartbeatIfInActivity({ ...built, succeeded: true });
        seen = await steps.trackBuildChanges({ workflowId, subject: input.subject, template, buildId: built.buildId }, reads);
        if (seen.protectedDestroyed.length > 0) return { built, seen };
        return { built, seen, check: await steps.postBuildCheck({ subject: input.subject, buildId: built.buildId, backupRef: input.backupRef }, reads) };
      } catch (err) {
        // Replaced with no delete in the log is as lost as destroyed: judged the same (needs-attention), never
        // "restored" by a build of the old state, which cannot bring the object back.
        const replaced = replacedProtected(err);
        if (seen && replaced.length > 0) return { built, seen: { ...seen, protectedDestroyed: [...seen.protectedDestroyed, ...replaced] } };
        throw namingOwnBuild(err, built);
      }
    },

    /**
     * Option A's stop, what that build changed, then the backup of the stopped state: one durable
     * activity, because nothing is decided between them (the workflow judges the stop's changes and
     * the backup's build number afterwards, before anything else is written). A retry finds its own
     * stop (heartbeated id, or build number + 1 by this token) instead of making another, and the
     * backup is content-addressed. A failure after the stop names that build (details), so the
     * compensation knows it for ours and starts the workspace again.
     */
    async stopAndBackUp(input: StopWorkspaceInput & { workflowId: string; template: string }): Promise<{ stop: { buildId: string; buildNumber: number }; seen: TrackedBuild; backup: StateBackup }> {
      // The stop as its wait saw it end is not read again; the backup reads the workspace and its state afresh.
      const reads: StepReads = {};
      const stop = await steps.stopWorkspace({ workspaceId: input.workspaceId, subject: input.subject, afterBuildNumber: input.afterBuildNumber, timeoutMs: input.timeoutMs }, reads);
      try {
        const seen = await steps.trackBuildChanges({ workflowId: input.workflowId, subject: input.subject, template: input.template, buildId: stop.buildId }, reads);
        heartbeatIfInActivity({ buildId: stop.buildId });
        const backup = await steps.backupState({ workspaceId: input.workspaceId, subject: input.subject });
        return { stop, seen, backup };
      } catch (err) {
        throw namingOwnBuild(err, stop);
      }
    },
  };
}

/** The same failure (message, type, retryability), carrying the build this activity made so the workflow counts it as its own. */
function namingOwnBuild(err: unknown, build: { buildId: string; buildNumber: number }): ApplicationFailure {
  const e = err as Error;
  return ApplicationFailure.create({
    message: e?.message ?? String(err),
    type: err instanceof ApplicationFailure ? (err.type ?? undefined) : e?.name,
    nonRetryable: err instanceof ApplicationFailure ? err.nonRetryable === true : false,
    details: [build],
    cause: e instanceof Error ? e : undefined,
  });
}

/** The protected objects a post-build check found replaced (its failure's details), else none. */
function replacedProtected(err: unknown): string[] {
  if (!(err instanceof ApplicationFailure)) return [];
  const detail = (err.details ?? [])[0] as { replaced?: unknown } | undefined;
  return Array.isArray(detail?.replaced) ? detail.replaced.filter((r): r is string => typeof r === 'string') : [];
}
