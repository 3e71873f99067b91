import type { BlobRef } from '../adapters/blob-store';
import { blobStep, currentWorkflowRun } from './blob-step';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface BackupStateInput {
  workspaceId: string;
  subject: string;
}

export interface StateBackup {
  /** The build whose state was saved; the migrated state goes back onto this same build. */
  buildId: string;
  buildNumber: number;
  blob: BlobRef;
}

/** Saves the latest build's state in the blob store. Content-addressed, so a retry writes nothing new. */
export function makeBackupState({ coder, blobs }: ActivityDeps) {
  return async function backupState(input: BackupStateInput): Promise<StateBackup> {
    const ws = await coderStep('back up state', input.subject, () => coder.workspace(input.workspaceId));
    const build = ws.latest_build;
    // A running job writes its own state over the build's when it completes: a backup taken now would be stale.
    if (['pending', 'running', 'canceling'].includes(build.job.status)) {
      throw ApplicationFailure.create({ message: `back up state: ${input.subject}: build #${build.build_number} (${build.transition}) is ${build.job.status}; waiting for it`, type: FailureType.busy });
    }
    const state = await coderStep('back up state', input.subject, () => coder.getWorkspaceBuildState(build.id));
    // Nothing has changed yet when this fails: the workflow rolls back having written nothing.
    const blob = await blobStep('back up state', input.subject, () =>
      blobs.put(state, { kind: 'state-backup', label: `${input.subject} build #${build.build_number}`, workspace: input.subject, ...currentWorkflowRun() }),
    );
    return { buildId: build.id, buildNumber: build.build_number, blob };
  };
}
