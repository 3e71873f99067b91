import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportStep } from '../../domain/import-plan';
import { importIntoStateFile, prepareTemplateWorkdir, type TemplateWorkdirOptions } from './import';
import { stateRmFile } from './state-rm';
import { withScratchDir } from './scratch-dir';

export interface ExecuteImportPlanOptions extends TemplateWorkdirOptions {
  readonly vars?: Readonly<Record<string, string>>;
  /** Called before each step, e.g. to heartbeat an activity. */
  readonly onStep?: (index: number, step: ImportStep) => void;
}

/** A step failed; the caller's state text was not changed. */
export class ImportPlanExecutionError extends Error {
  constructor(
    readonly stepIndex: number,
    readonly step: ImportStep,
    readonly phase: 'state rm' | 'import',
    cause: Error,
  ) {
    super(
      `Import plan step ${stepIndex + 1} (${step.oldAddress} -> ${step.newAddress}) failed at ${phase}: ${cause.message}\n` +
        'Nothing was written back: the input state is unchanged. Fix the cause and run the whole plan again.',
    );
    this.name = 'ImportPlanExecutionError';
  }
}

/**
 * Runs the steps in order on a private copy of the state (for each: `state rm` the old address,
 * then `import` the new one) and returns the resulting state text. Only the addresses and import
 * ID of each step are used; the -state path is this run's own.
 */
export async function executeImportPlan(stateText: string, steps: readonly ImportStep[], opts: ExecuteImportPlanOptions): Promise<string> {
  return withScratchDir('import-plan', async (dir) => {
    const stateFile = join(dir, 'state', 'in.tfstate');
    // state rm loads any config in its working dir; this one stays empty.
    const emptyDir = join(dir, 'empty');
    const workdir = join(dir, 'template');
    await mkdir(join(dir, 'state'), { mode: 0o700 });
    await mkdir(emptyDir);
    await writeFile(stateFile, stateText, { mode: 0o600 });
    await prepareTemplateWorkdir(workdir, opts);
    for (const [index, step] of steps.entries()) {
      opts.onStep?.(index, step);
      try {
        await stateRmFile(stateFile, [step.oldAddress], emptyDir);
      } catch (e) {
        throw new ImportPlanExecutionError(index, step, 'state rm', e as Error);
      }
      try {
        await importIntoStateFile(workdir, stateFile, { address: step.newAddress, id: step.importId }, opts.vars, opts.timeoutMs, opts.env);
      } catch (e) {
        throw new ImportPlanExecutionError(index, step, 'import', e as Error);
      }
    }
    return readFile(stateFile, 'utf8');
  });
}
