import { blobStep } from './blob-step';
import { coderStep, conflict } from './failures';
import type { ActivityDeps } from './ports';
import type { StateBackup } from './backup-state';
import { putStateAndReadBack, stateSha256 } from './state-io';

export interface RestoreStateInput {
  subject: string;
  workspaceId: string;
  backup: StateBackup;
  /** Builds this migration made; state on any other build since the backup is someone else's and is left alone. */
  ownBuildIds: string[];
  /** The pinned start this migration makes: a failed attempt never reports its id, so it is known by its shape. */
  ownStart?: { templateVersionId: string };
  /** The state this migration pushes: on the backed-up build, anything but it or the backup is someone else's. */
  migratedSha256?: string;
}

export interface RestoreStateResult {
  restored: boolean;
  buildId: string;
  sha256: string;
}

/** Compensation: puts the backed-up bytes back on the latest build and checks the hash. Idempotent. */
export function makeRestoreState({ coder, blobs }: ActivityDeps) {
  return async function restoreState(input: RestoreStateInput): Promise<RestoreStateResult> {
    const step = 'restore state';
    const ws = await coderStep(step, input.subject, () => coder.workspace(input.workspaceId));
    const latest = ws.latest_build;
    const known = new Set([input.backup.buildId, ...input.ownBuildIds]);
    const isOwnStart =
      input.ownStart !== undefined &&
      latest.build_number > input.backup.buildNumber &&
      latest.transition === 'start' &&
      latest.template_version_id === input.ownStart.templateVersionId;
    if (!known.has(latest.id) && !isOwnStart) {
      throw conflict(
        step,
        input.subject,
        `build #${latest.build_number} was made by ${latest.initiator_name ?? 'someone else'} after the backup; not restoring over it. ` +
          `Once the workspace is idle, restore the backup with: wsmigrate state restore ${input.subject} --backup ${input.backup.blob.ref} --yes`,
      );
    }
    const current = await coderStep(step, input.subject, () => stateSha256(coder, latest.id));
    if (current === input.backup.blob.sha256) return { restored: false, buildId: latest.id, sha256: current };
    if (latest.id === input.backup.buildId && input.migratedSha256 !== undefined && current !== input.migratedSha256) {
      throw conflict(
        step,
        input.subject,
        `someone else pushed a state onto build #${latest.build_number} after the backup (sha256 ${current.slice(0, 12)}…, neither the backup nor the migration); ` +
          `not restoring over it. Ask who pushed it (coder state pull ${input.subject} --build ${latest.build_number}); to put the backup back instead: ` +
          `wsmigrate state restore ${input.subject} --backup ${input.backup.blob.ref} --yes`,
      );
    }
    const coderCopy =
      input.backup.buildNumber > 1
        ? ` Coder keeps its own copy of the state from before the migration on build #${input.backup.buildNumber - 1} (coder state pull ${input.subject} --build ${input.backup.buildNumber - 1}); ` +
          `build #${input.backup.buildNumber}, the one backed up, now holds the migrated state.`
        : ` Coder holds no other copy of the state from before the migration (build #${input.backup.buildNumber}, the one backed up, now holds the migrated state).`;
    const bytes = await blobStep(
      step,
      input.subject,
      () => blobs.get(input.backup.blob.ref),
      `Nothing was written to Coder.${coderCopy} Make the backup readable (or find it), then restore it by hand: wsmigrate state restore ${input.subject} --backup ${input.backup.blob.ref} --yes`,
    );
    const after = await coderStep(step, input.subject, () => putStateAndReadBack(coder, latest.id, bytes));
    if (after !== input.backup.blob.sha256) {
      throw conflict(step, input.subject, `Coder holds sha256 ${after.slice(0, 12)}… after the restore, not the backup's ${input.backup.blob.sha256.slice(0, 12)}…; retrying`);
    }
    return { restored: true, buildId: latest.id, sha256: after };
  };
}
