/** zeroTouchWorkspace's contract: migrateWorkspace's input, and what became of the workspace. */
export type { MigrateWorkspaceInput } from './migrate-workspace';

export interface ZeroTouchWorkspaceResult {
  /**
   * migrated: running, started pinned to the zero-touch version by the runbook, and checked.
   * already-migrated: no deprecated type left (it migrated itself at a build of its own).
   * waiting-for-build: stopped and unmigrated; its next start on the active version migrates it.
   */
  outcome: 'migrated' | 'already-migrated' | 'waiting-for-build';
  workspaceId: string;
  startBuildId?: string;
  pvcUidsKept?: number;
  warnings: string[];
}
