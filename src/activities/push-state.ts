import { blobStep } from './blob-step';
import { coderStep, conflict } from './failures';
import type { ActivityDeps } from './ports';
import type { StateBackup } from './backup-state';
import { putStateAndReadBack, stateSha256 } from './state-io';

export interface PushStateInput {
  subject: string;
  workspaceId: string;
  backup: StateBackup;
  migratedRef: string;
  migratedSha256: string;
}

export interface PushStateResult {
  pushed: boolean;
  note: string;
}

/**
 * PUTs the migrated state onto the backed-up build, with no build. Safe to repeat: it first reads
 * what Coder holds, skips when that is already the migrated state, and refuses when it is neither
 * the backup nor the migration (someone else changed it; a human must look).
 */
export function makePushState({ coder, blobs }: ActivityDeps) {
  return async function pushState(input: PushStateInput): Promise<PushStateResult> {
    const step = 'push state';
    const ws = await coderStep(step, input.subject, () => coder.workspace(input.workspaceId));
    if (ws.latest_build.id !== input.backup.buildId) {
      throw conflict(step, input.subject, `build #${ws.latest_build.build_number} ran after the backup of build #${input.backup.buildNumber}; not pushing over it`);
    }
    const current = await coderStep(step, input.subject, () => stateSha256(coder, input.backup.buildId));
    if (current === input.migratedSha256) return { pushed: false, note: 'Coder already holds the migrated state (an earlier attempt pushed it)' };
    if (current !== input.backup.blob.sha256) {
      throw conflict(step, input.subject, `the state of build #${input.backup.buildNumber} changed since the backup (sha256 ${current.slice(0, 12)}…); not overwriting it`);
    }
    // Never push without a backup that reads back intact: once Coder holds the migrated state, it is the way back.
    await blobStep(
      step,
      input.subject,
      () => blobs.get(input.backup.blob.ref),
      `Nothing was pushed: Coder's own copy, the state of build #${input.backup.buildNumber}, is unchanged; run the migration again to take a fresh backup`,
    );
    const migrated = await blobStep(step, input.subject, () => blobs.get(input.migratedRef));
    const stored = await coderStep(step, input.subject, () => putStateAndReadBack(coder, input.backup.buildId, migrated));
    if (stored !== input.migratedSha256) {
      throw conflict(step, input.subject, 'Coder returned different bytes than were pushed; the compensation will restore the backup');
    }
    return { pushed: true, note: `pushed onto build #${input.backup.buildNumber}` };
  };
}
