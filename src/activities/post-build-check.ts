import { blobStep } from './blob-step';
import { ApplicationFailure } from '@temporalio/common';
import { sha256Hex } from '../adapters/hash';
import { findPersistentLosses, leftoverDeprecated } from '../domain/migration-check';
import { parseStateV4 } from '../domain/state';
import { FailureType, coderStep } from './failures';
import type { ActivityDeps } from './ports';
import type { StepReads } from './step-reads';

export interface PostBuildCheckInput {
  subject: string;
  buildId: string;
  backupRef: string;
}

export interface PostBuildCheckResult {
  stateSha256: string;
  persistentChecked: number;
  warnings: string[];
}

const PERSISTENT_DESTROY_LINE = /kubernetes_persistent_volume(?:_claim)?(?:_v1)?\.[\w-]+(?:\[[^\]]*\])?[^\n]*(?:Destroying|will be destroyed|must be replaced|Destruction complete)/;

/** After the start: every PVC/PV of the backup is still there with the same uid, and no deprecated type is left. */
export function makePostBuildCheck({ coder, blobs }: ActivityDeps) {
  /** `reads`: the ended build's logs as the build watch read them just before (complete once the build ended). */
  return async function postBuildCheck(input: PostBuildCheckInput, reads?: StepReads): Promise<PostBuildCheckResult> {
    const step = 'post-build check';
    const before = parseStateV4((await blobStep(step, input.subject, () => blobs.get(input.backupRef))).toString('utf8')).resources;
    const afterBytes = await coderStep(step, input.subject, () => coder.getWorkspaceBuildState(input.buildId));
    const after = parseStateV4(afterBytes.toString('utf8')).resources;
    const losses = findPersistentLosses(before, after);
    const logsRead = reads?.endedBuild?.id === input.buildId ? reads.endedBuildLogs : undefined;
    const logs = logsRead ?? (await coderStep(step, input.subject, () => coder.workspaceBuildLogs(input.buildId)));
    const destroyLines = logs.filter((l) => PERSISTENT_DESTROY_LINE.test(l.output)).length;
    if (losses.length > 0) {
      throw ApplicationFailure.create({
        message: `${step}: ${input.subject}: persistent data lost in build ${input.buildId}: ${losses
          .map((l) => `${l.address} ${l.problem}${l.after?.uid ? ` (uid ${l.before.uid} -> ${l.after.uid})` : ''}`)
          .join('; ')}. Restore the volume from your storage backups; the state backup is kept.`,
        type: FailureType.dataLoss,
        nonRetryable: true,
        // Replaced (a new uid at the address): the object is gone from the cluster, not only from the state.
        details: [{ replaced: losses.filter((l) => l.problem === 'replaced').map((l) => `${l.address} (replaced: uid ${l.before.uid} -> ${l.after?.uid})`) }],
      });
    }
    const leftovers = leftoverDeprecated(after);
    const warnings = [
      ...leftovers.map((a) => `${a} still has a deprecated type after the build`),
      ...(destroyLines > 0 ? [`the build log mentions destroying a persistent volume ${destroyLines} time(s); uids are unchanged`] : []),
    ];
    if (leftovers.length > 0) {
      throw ApplicationFailure.create({ message: `${step}: ${input.subject}: ${warnings.join('; ')}`, type: FailureType.conflict, nonRetryable: true });
    }
    return { stateSha256: sha256Hex(afterBytes), persistentChecked: before.filter((r) => r.type.includes('persistent_volume')).length, warnings };
  };
}
