import { ApplicationFailure } from '@temporalio/common';
import { sha256Hex } from '../adapters/hash';
import { leftoverDeprecated } from '../domain/migration-check';
import { parseStateV4 } from '../domain/state';
import { protectedIdentities } from '../domain/workspace-health';
import { FailureType, coderStep } from './failures';
import type { ActivityDeps } from './ports';
import { protectionOf } from './template-facts';
import type { LoadTemplateSource } from './template-source';

export interface CheckProtectedKeptInput {
  subject: string;
  buildId: string;
  /** The state whose objects must still be there, with the same uid. */
  referenceRef: string;
  targetVersionId: string;
}

export interface CheckProtectedKeptResult {
  stateSha256: string;
  checked: { address: string; uid?: string }[];
}

/** After the recovery's start: every protected object of the good state is in the new state with the uid it had; no deprecated type is left. */
export function makeCheckProtectedKept({ coder, blobs }: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  return async function checkProtectedKept(input: CheckProtectedKeptInput): Promise<CheckProtectedKeptResult> {
    const step = 'protected-object check';
    const { annotatedAddresses } = protectionOf((await loadTemplateSource(input.targetVersionId, input.subject)).terraform);
    const before = protectedIdentities(parseStateV4((await blobs.get(input.referenceRef)).toString('utf8')).resources, annotatedAddresses);
    const afterBytes = await coderStep(step, input.subject, () => coder.getWorkspaceBuildState(input.buildId));
    const afterResources = parseStateV4(afterBytes.toString('utf8')).resources;
    const after = new Map(protectedIdentities(afterResources, annotatedAddresses).map((p) => [p.key, p]));
    const problems: string[] = [];
    for (const b of before) {
      const a = after.get(b.key);
      if (!a) problems.push(`${b.address} is missing`);
      else if (b.uid && a.uid !== b.uid) problems.push(`${b.address} has uid ${a.uid ?? '(none)'}, not ${b.uid}`);
      else if (b.id && a.id !== b.id) problems.push(`${b.address} has id ${a.id ?? '(none)'}, not ${b.id}`);
    }
    if (problems.length > 0) {
      throw ApplicationFailure.create({
        message: `${step}: ${input.subject}: after build ${input.buildId}: ${problems.join('; ')}. Restore the volume from your storage backups; the state backups are kept.`,
        type: FailureType.dataLoss,
        nonRetryable: true,
      });
    }
    const leftovers = leftoverDeprecated(afterResources);
    if (leftovers.length > 0) {
      throw ApplicationFailure.create({ message: `${step}: ${input.subject}: ${leftovers.join(', ')} still deprecated after the start`, type: FailureType.conflict, nonRetryable: true });
    }
    return { stateSha256: sha256Hex(afterBytes), checked: before.map((b) => ({ address: b.key, uid: b.uid })) };
  };
}
