import { blobStep } from './blob-step';
import { sha256Hex } from '../adapters/hash';
import { parseTemplateFiles } from '../adapters/hcl-parse';
import { protectedConfigAddresses } from '../domain/hcl/protect-annotations';
import { leftoverDeprecated } from '../domain/migration-check';
import { classifyChanges } from '../domain/plan/classify';
import { planGuardVerdict } from '../domain/plan/guard';
import { planStructurally } from '../domain/plan/structural-plan';
import { parseStateV4 } from '../domain/state';
import { buildTemplateModel } from '../domain/template-model';
import type { VerificationResult } from '../contracts/migrate-workspace';
import type { ActivityDeps } from './ports';
import type { LoadTemplateSource } from './template-source';

export interface VerifyMigrationInput {
  subject: string;
  migratedRef: string;
  targetVersionId: string;
}

interface TargetModel {
  model: ReturnType<typeof buildTemplateModel>;
  protectedAddresses: ReturnType<typeof protectedConfigAddresses>;
}

/**
 * Parsing a version's HCL (a WASM parser) is the same work for every workspace of a fleet: done
 * once per version per worker, keeping the last few. A failed parse is not kept.
 */
function cachedTemplateModel(loadTemplateSource: LoadTemplateSource, maxEntries = 8): (versionId: string, subject: string) => Promise<TargetModel> {
  const cache = new Map<string, Promise<TargetModel>>();
  return (versionId, subject) => {
    const hit = cache.get(versionId);
    if (hit) return hit;
    const loading = (async () => {
      const source = await loadTemplateSource(versionId, subject);
      const protectedAddresses = protectedConfigAddresses(source.terraform);
      return { model: buildTemplateModel(await parseTemplateFiles(source.terraform), protectedAddresses), protectedAddresses };
    })();
    cache.set(versionId, loading);
    loading.catch(() => cache.delete(versionId));
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return loading;
  };
}

/**
 * Plans the target version against the migrated state with no provider and no cluster, the way
 * the start build will, and runs the guard: no protected delete, no leftover deprecated type.
 */
export function makeVerifyMigration({ blobs }: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  const modelOf = cachedTemplateModel(loadTemplateSource);
  return async function verifyMigration(input: VerifyMigrationInput): Promise<VerificationResult> {
    const stateBytes = await blobStep('verify migration', input.subject, () => blobs.get(input.migratedRef));
    const resources = parseStateV4(stateBytes.toString('utf8')).resources;
    const { model, protectedAddresses } = await modelOf(input.targetVersionId, input.subject);
    const classified = classifyChanges(planStructurally(model, resources, 'start'));
    const guard = planGuardVerdict(classified, { transition: 'start', protectedAddresses });
    const leftovers = leftoverDeprecated(resources);
    const plannedChanges: Record<string, number> = {};
    for (const c of classified) plannedChanges[c.kind] = (plannedChanges[c.kind] ?? 0) + 1;
    const meaningful = classified.filter((c) => c.kind !== 'no-op' && c.kind !== 'read').map((c) => `${c.kind} ${c.address}`).sort();
    const planHash = `sha256:${sha256Hex(JSON.stringify({ state: sha256Hex(stateBytes), version: input.targetVersionId, changes: meaningful }))}`;
    const verdict = leftovers.length > 0 ? 'deny' : guard.verdict;
    const reasons = [
      ...leftovers.map((a) => `${a} still has a deprecated type after the rewrite`),
      ...guard.reasons.filter((r) => r.severity !== 'info').map((r) => r.message),
    ];
    return {
      verdict,
      summary: leftovers.length > 0 ? `${leftovers.length} deprecated instance(s) left after the rewrite` : guard.summary,
      reasons: reasons.slice(0, 20),
      leftovers,
      planHash,
      plannedChanges,
    };
  };
}
