import { blobStep, currentWorkflowRun } from './blob-step';
import { builtMeanwhile } from './builds';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';
import type { StateBackup } from './backup-state';

export interface BackupForRecoveryInput {
  workspaceId: string;
  subject: string;
  /** The build the health check saw as latest: anything newer means someone built meanwhile. */
  latestBuildId: string;
  /** The build whose state holds every protected object (or, for a destroyed object, last held it). */
  goodBuildId: string;
}

export interface RecoveryBackups {
  /** The damaged state as Coder holds it now, on the latest build; the recovered state goes onto this build. */
  current: StateBackup;
  good: StateBackup;
}

/**
 * Saves both the current (damaged) state and the good build's state in the blob store. Content-addressed: a retry writes nothing new.
 * Each record names the workspace and the recovery's run, as backupState's do: retention keeps a
 * running recovery's blobs and each workspace's newest backup by those two fields.
 */
export function makeBackupForRecovery({ coder, blobs }: ActivityDeps) {
  return async function backupForRecovery(input: BackupForRecoveryInput): Promise<RecoveryBackups> {
    const step = 'back up for recovery';
    const ws = await coderStep(step, input.subject, () => coder.workspace(input.workspaceId));
    const latest = ws.latest_build;
    if (latest.id !== input.latestBuildId) {
      throw builtMeanwhile(step, input.subject, latest, 'the health check');
    }
    const save = async (buildId: string, what: string): Promise<StateBackup> => {
      const build = await coderStep(step, input.subject, () => coder.workspaceBuild(buildId));
      const bytes = await coderStep(step, input.subject, () => coder.getWorkspaceBuildState(buildId));
      // Nothing has been written to Coder yet: a store that stays down ends the recovery having changed nothing.
      const blob = await blobStep(step, input.subject, () =>
        blobs.put(bytes, { kind: 'state-backup', label: `${input.subject} build #${build.build_number} (${what})`, workspace: input.subject, ...currentWorkflowRun() }),
      );
      return { buildId, buildNumber: build.build_number, blob };
    };
    return { current: await save(latest.id, 'damaged, before recovery'), good: await save(input.goodBuildId, 'last good state') };
  };
}
