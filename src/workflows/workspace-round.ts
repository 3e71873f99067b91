import type { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { MigrateWorkspaceParams } from '../domain/migration-input';
import type { ApprovalGates } from './approval-gates';
import type { BuildWatch } from './build-watch';
import type { WorkspaceMigrationStatus, WorkspacePhase } from '../contracts/migrate-workspace';

type Activities = ReturnType<typeof proxyActivities<WsmigrateActivities>>;

/** What one round of a workspace migration works with: its input, status, activity proxies (by their options), gates and build watch. */
export interface RoundContext {
  input: MigrateWorkspaceParams;
  subject: string;
  workflowId: string;
  status: WorkspaceMigrationStatus;
  /** Quick reads, pure steps and idempotent quick writes: local activities. */
  acts: ReturnType<typeof proxyLocalActivities<WsmigrateActivities>>;
  durable: Activities;
  builds: Activities;
  restoring: Activities;
  gates: ApprovalGates;
  watch: BuildWatch;
  enter(phase: WorkspacePhase): void;
  done(step: string): void;
}
