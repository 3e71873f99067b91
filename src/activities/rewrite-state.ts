import { blobStep, currentWorkflowRun } from './blob-step';
import type { BlobRef } from '../adapters/blob-store';
import { planImports } from '../domain/import-plan';
import { renameStateTypes, StateRenameError, type AddressChange } from '../domain/state-rename';
import { refuse } from './failures';
import type { ActivityDeps } from './ports';
import type { LoadTemplateSource } from './template-source';

export interface RewriteStateInput {
  subject: string;
  backupRef: string;
  strategy: 'rename' | 'import';
  targetVersionId: string;
}

export interface RewriteStateResult {
  migrated: BlobRef;
  alreadyMigrated: boolean;
  /** At most 50 entries, so the workflow history stays small; `renamedCount` has the total. */
  renamed: AddressChange[];
  renamedCount: number;
  imported: string[];
}

const REPORT_LIMIT = 50;

/** Rewrites the backed-up state offline (rename), or re-creates DIFFERENT types by import, and stores the result. */
export function makeRewriteState(deps: ActivityDeps, loadTemplateSource: LoadTemplateSource) {
  return async function rewriteState(input: RewriteStateInput): Promise<RewriteStateResult> {
    const step = 'rewrite state';
    const text = (await blobStep(step, input.subject, () => deps.blobs.get(input.backupRef))).toString('utf8');
    let renamedText: string;
    let renamed: AddressChange[];
    let alreadyMigrated: boolean;
    try {
      const r = renameStateTypes(text, { skipDifferent: input.strategy === 'import' });
      renamedText = r.stateText;
      renamed = r.report.renamed;
      alreadyMigrated = r.report.alreadyMigrated;
    } catch (err) {
      if (err instanceof StateRenameError) throw refuse(step, input.subject, err.message);
      throw err;
    }
    let imported: string[] = [];
    let finalText = renamedText;
    if (input.strategy === 'import') {
      const steps = planImports(renamedText, { which: 'different' });
      if (steps.length > 0) {
        if (!deps.importer) {
          throw refuse(
            step,
            input.subject,
            `${steps.map((s) => s.oldAddress).join(', ')} need terraform import, but this worker has no importer configured (it needs Terraform, the provider and cluster credentials)`,
          );
        }
        const templateFiles = await loadTemplateSource(input.targetVersionId, input.subject);
        finalText = await deps.importer.importInstances({ stateText: renamedText, steps, templateFiles: templateFiles.terraform });
        imported = steps.map((s) => `${s.oldAddress} -> ${s.newAddress}`);
        alreadyMigrated = false;
      }
    }
    const migrated = await blobStep(step, input.subject, () =>
      deps.blobs.put(Buffer.from(finalText, 'utf8'), { kind: 'state-migrated', label: input.subject, workspace: input.subject, ...currentWorkflowRun() }),
    );
    return { migrated, alreadyMigrated, renamed: renamed.slice(0, REPORT_LIMIT), renamedCount: renamed.length, imported };
  };
}
