/**
 * migrateWorkspace's contract (recoverWorkspace and zeroTouchWorkspace answer the same status query):
 * input, status, result. Shared by the workflows, the client, chat and the tests.
 */
import { defineQuery } from '@temporalio/workflow';
import type { BuildChange } from '../domain/build-changes';
import type { PendingApproval } from '../domain/approval-policy';
import type { ApprovalReceipt, GateDecision } from './approval';

export type { MigrateWorkspaceInput } from '../domain/migration-input';

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
  /** What the operator must act on though the run goes on (a target that is not the template's active version). */
  warnings?: string[];
  /** The gate that ended the run without a yes: who rejected it, or how long it waited unanswered. A decision, not a failure. */
  decision?: GateDecision;
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

/** A build this run triggered, and what it replaced, destroyed or type-rename-deleted (seed 003). */
export interface TrackedBuild {
  buildId: string;
  buildNumber: number;
  transition: string;
  /** At most 50, sorted by address; `changeCount` has the total. */
  changes: BuildChange[];
  changeCount: number;
  protectedDestroyed: string[];
}

/** The guard's verdict on the migrated state, planned against the target version. */
export interface VerificationResult {
  verdict: 'allow' | 'needs-approval' | 'deny';
  summary: string;
  /** At most 20, each naming an address. */
  reasons: string[];
  leftovers: string[];
  /** What an approver approves: the migrated state, the target version and the planned changes. */
  planHash: string;
  plannedChanges: Record<string, number>;
}
