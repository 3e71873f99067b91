import { blobStep, currentWorkflowRun } from './blob-step';
import type { BlobRef } from '../adapters/blob-store';
import { ImportPlanError, planImports, type ImportStep } from '../domain/import-plan';
import { deprecatedInstancesOutsideTemplate } from '../domain/module-coverage';
import { JsonSyntaxError, parseStateV4, StateFormatError } from '../domain/state';
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
    await refuseModulesTheTargetCannotRename(text, input, loadTemplateSource);
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
      let steps: ImportStep[];
      try {
        steps = planImports(renamedText, { which: 'different' });
      } catch (err) {
        // An instance without attributes.id: its import ID is unknown, and no retry finds it.
        if (err instanceof ImportPlanError) throw refuse(step, input.subject, err.message);
        throw err;
      }
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

/**
 * A deprecated instance inside a module the target version does not rename (a registry or git
 * module, or a local one left unrewritten) must keep its type: renaming it in the state would make
 * the start build destroy it and create an empty twin. The structural verify step does not model
 * module contents, so this is where such a workspace is stopped, before anything is pushed.
 */
async function refuseModulesTheTargetCannotRename(stateText: string, input: RewriteStateInput, loadTemplateSource: LoadTemplateSource): Promise<void> {
  const step = 'rewrite state';
  let resources;
  try {
    resources = parseStateV4(stateText).resources;
  } catch (err) {
    if (err instanceof StateFormatError || err instanceof JsonSyntaxError) return; // renameStateTypes refuses it with the full reason
    throw err;
  }
  if (!resources.some((r) => r.module && r.mode === 'managed')) return;
  const target = await loadTemplateSource(input.targetVersionId, input.subject);
  const uncovered = deprecatedInstancesOutsideTemplate(resources, target.terraform);
  if (uncovered.length === 0) return;
  const shown = uncovered.slice(0, 10).map((u) => `${u.address} (${u.reason})`).join('; ');
  throw refuse(
    step,
    input.subject,
    `${uncovered.length} deprecated instance(s) live in a module the target version cannot rename: ${shown}${uncovered.length > 10 ? '; …' : ''}. ` +
      'Nothing was pushed. Migrate that module to the _v1 types or vendor it into the template (source = "./modules/NAME"), push that version, then migrate the workspace to it',
  );
}
