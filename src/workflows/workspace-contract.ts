import { defineQuery } from '@temporalio/workflow';
import type { TrackedBuild } from '../activities/track-build-changes';
import type { VerificationResult } from '../activities/verify-migration';
import type { PendingApproval } from '../domain/approval-policy';
import type { ApprovalReceipt } from './approval-gates';

/** What the workspace workflows (migrate, recover) show: one contract, so neither imports the other. */
export type WorkspacePhase =
  | 'preflight'
  | 'stopping'
  | 'backing-up'
  | 'rewriting'
  | 'verifying'
  | 'awaiting-approval'
  | 'building'
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
  /** Times the run started over because someone built the workspace between a read and our write. */
  restarts?: number;
}

export interface WorkspaceMigrationResult {
  outcome: 'migrated' | 'already-migrated' | 'dry-run';
  workspaceId: string;
  backup?: { ref: string; sha256: string };
  migratedSha256?: string;
  renamedCount: number;
  /** The build that carried the migrated state on the new version (a start, or a stop for a stopped workspace). */
  startBuildId?: string;
  verdict?: VerificationResult['verdict'];
  warnings: string[];
  buildChanges?: TrackedBuild[];
  /** Persistent volumes checked after the build to have kept their uid (the fleet sums them). */
  pvcUidsKept?: number;
}

export const workspaceStatusQuery = defineQuery<WorkspaceMigrationStatus>('status');

/** An activity's own message, not the wrapper's 'Activity task failed'. */
export function failureMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** The failure type an activity threw, seen through the workflow's ActivityFailure wrapper. */
export function failureType(err: unknown): string | undefined {
  const e = err as { type?: string; cause?: { type?: string } };
  return e?.cause?.type ?? e?.type;
}
