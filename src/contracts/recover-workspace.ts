/** recoverWorkspace's contract: the input and status query of migrateWorkspace, and a result that names where the state came back from. */
import type { WorkspaceMigrationResult } from './migrate-workspace';

export type { MigrateWorkspaceInput, WorkspaceMigrationStatus } from './migrate-workspace';
export { workspaceStatusQuery } from './migrate-workspace';

export interface WorkspaceRecoveryResult extends WorkspaceMigrationResult {
  recovery: { fromBuild: number; damagedBuild: number; losses: string[]; damagedBackup: { ref: string; sha256: string } };
}
