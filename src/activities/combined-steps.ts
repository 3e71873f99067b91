import type { WorkspaceHealth } from '../domain/workspace-health';
import type { AssessHealthInput } from './assess-health';
import type { PostBuildCheckInput, PostBuildCheckResult } from './post-build-check';
import type { WorkspacePreflight, WorkspacePreflightInput } from './preflight-workspace';
import type { RewriteStateInput, RewriteStateResult } from './rewrite-state';
import type { TrackedBuild, VerificationResult } from '../contracts/migrate-workspace';
import type { TrackBuildChangesInput } from './track-build-changes';
import type { VerifyMigrationInput } from './verify-migration';

interface Steps {
  preflightWorkspace(input: WorkspacePreflightInput): Promise<WorkspacePreflight>;
  assessHealth(input: AssessHealthInput): Promise<WorkspaceHealth>;
  rewriteState(input: RewriteStateInput): Promise<RewriteStateResult>;
  verifyMigration(input: VerifyMigrationInput): Promise<VerificationResult>;
  trackBuildChanges(input: TrackBuildChangesInput): Promise<TrackedBuild>;
  postBuildCheck(input: PostBuildCheckInput): Promise<PostBuildCheckResult>;
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
      const preflight = await steps.preflightWorkspace(input);
      const health = await steps.assessHealth({ workspaceId: preflight.workspaceId, subject: preflight.subject, targetVersionId: input.targetVersionId });
      return { preflight, health };
    },

    async rewriteAndVerify(input: RewriteStateInput): Promise<{ rewrite: RewriteStateResult; verdict: VerificationResult }> {
      const rewrite = await steps.rewriteState(input);
      const verdict = await steps.verifyMigration({ subject: input.subject, migratedRef: rewrite.migrated.ref, targetVersionId: input.targetVersionId });
      return { rewrite, verdict };
    },

    /** The build watch's reading first: when it saw a protected resource destroyed, the workflow judges that alone (needs attention, no restore). */
    async trackAndCheckStart(input: TrackBuildChangesInput & PostBuildCheckInput): Promise<{ seen: TrackedBuild; check?: PostBuildCheckResult }> {
      const seen = await steps.trackBuildChanges({ workflowId: input.workflowId, subject: input.subject, template: input.template, buildId: input.buildId });
      if (seen.protectedDestroyed.length > 0) return { seen };
      return { seen, check: await steps.postBuildCheck({ subject: input.subject, buildId: input.buildId, backupRef: input.backupRef }) };
    },
  };
}
