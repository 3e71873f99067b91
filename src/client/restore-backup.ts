import type { CoderApi } from '../activities/ports';
import { putStateAndReadBack } from '../activities/state-io';
import type { BlobStore } from '../adapters/blob-store';
import { sha256Hex } from '../adapters/hash';
import { parseStateV4 } from '../domain/state';

export interface RestorePlan {
  workspace: string;
  buildId: string;
  buildNumber: number;
  backupRef: string;
  currentSha256: string;
  /** True when Coder already holds exactly the backup: nothing to do. */
  alreadyRestored: boolean;
}

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

const ACTIVE_JOB = new Set(['pending', 'running', 'canceling']);

/**
 * The by-hand restore an operator runs when a migration ended `needs-attention`: the backup goes
 * back onto the workspace's latest build with no build. It refuses anything that could put the
 * wrong state on the wrong workspace: a backup that fails its hash or is not a v4 state, a state
 * of another lineage (another workspace's backup), or a build in progress.
 */
export async function planRestore(coder: CoderApi, blobs: BlobStore, owner: string, workspace: string, backupRef: string): Promise<RestorePlan & { bytes: Buffer }> {
  const subject = `${owner}/${workspace}`;
  const bytes = await blobs.get(backupRef); // verifies the sha256
  const backup = parseStateV4(bytes.toString('utf8'));
  const ws = await coder.workspaceByOwnerAndName(owner, workspace);
  const latest = ws.latest_build;
  if (ACTIVE_JOB.has(latest.job.status)) {
    throw new RestoreRefused(`${subject} has build #${latest.build_number} ${latest.job.status}; wait until it finishes, then run this again`);
  }
  const current = await coder.getWorkspaceBuildState(latest.id);
  const currentSha256 = sha256Hex(current);
  const plan = { workspace: subject, buildId: latest.id, buildNumber: latest.build_number, backupRef, currentSha256, alreadyRestored: currentSha256 === sha256Hex(bytes), bytes };
  if (plan.alreadyRestored) return plan;
  const currentLineage = current.length > 0 ? parseStateV4(current.toString('utf8')).lineage : '';
  if (currentLineage && currentLineage !== backup.lineage) {
    throw new RestoreRefused(
      `the backup's lineage ${backup.lineage} is not ${subject}'s (${currentLineage}): it is another workspace's state. Check the backup ref in the workflow's status`,
    );
  }
  return plan;
}

/** Writes the backup and reads it back; throws when Coder holds other bytes afterwards. */
export async function applyRestore(coder: CoderApi, plan: RestorePlan & { bytes: Buffer }): Promise<void> {
  const after = await putStateAndReadBack(coder, plan.buildId, plan.bytes);
  if (after !== sha256Hex(plan.bytes)) {
    throw new Error(`Coder holds sha256 ${after.slice(0, 12)}… on build #${plan.buildNumber} after the restore, not the backup; run this again`);
  }
}
