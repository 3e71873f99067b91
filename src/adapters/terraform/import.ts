import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importArgs } from '../../domain/import-plan';
import { runTerraform } from './run';
import { withScratchDir } from './scratch-dir';

export interface ImportTarget {
  /** The new instance address, e.g. `module.app[0].kubernetes_deployment_v1.main["a"]`. */
  readonly address: string;
  /** The provider's import ID, e.g. `coder/coder-…-home` (namespace/name). */
  readonly id: string;
}

export interface TemplateWorkdirOptions {
  /** The template's Terraform source (what `coder templates pull` gives), after the HCL rewrite. */
  readonly templateDir: string;
  /** Run `terraform init -backend=false` in the copy first (needs the providers, from the registry or a mirror). */
  readonly init?: boolean;
  readonly timeoutMs?: number;
  /** Extra environment for every Terraform command (provider mirror, cluster credentials). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Copies the template into `dest` so `import`, which reads the config and may write `.terraform`
 * and lock files, never changes the user's template directory.
 */
export async function prepareTemplateWorkdir(dest: string, opts: TemplateWorkdirOptions): Promise<void> {
  await mkdir(dest, { recursive: true });
  await cp(opts.templateDir, dest, { recursive: true });
  if (opts.init) {
    await runTerraform(['init', '-input=false', '-backend=false'], { cwd: dest, timeoutMs: opts.timeoutMs, subject: 'the template copy', ...(opts.env ? { env: opts.env } : {}) });
  }
}

/**
 * `terraform import -state=FILE -var K=V ADDR ID` in an already prepared template copy. Terraform
 * writes its own `FILE.backup` beside the state; the state lives in a private scratch dir, so that
 * backup goes away with it.
 */
export async function importIntoStateFile(
  workdir: string,
  stateFile: string,
  target: ImportTarget,
  vars: Readonly<Record<string, string>> = {},
  timeoutMs?: number,
  env?: Readonly<Record<string, string>>,
): Promise<void> {
  await runTerraform(importArgs(stateFile, target.address, target.id, vars), {
    cwd: workdir,
    timeoutMs,
    ...(env ? { env } : {}),
    subject: `${target.address} (import ID ${target.id})`,
  });
}

/** Imports one object into a copy of the state; returns the new state text. The input is untouched. */
export async function importResource(
  stateText: string,
  target: ImportTarget,
  opts: TemplateWorkdirOptions & { vars?: Readonly<Record<string, string>> },
): Promise<string> {
  return withScratchDir('import', async (dir) => {
    const workdir = join(dir, 'template');
    const stateFile = join(dir, 'in.tfstate');
    await writeFile(stateFile, stateText, { mode: 0o600 });
    await prepareTemplateWorkdir(workdir, opts);
    await importIntoStateFile(workdir, stateFile, target, opts.vars, opts.timeoutMs, opts.env);
    return readFile(stateFile, 'utf8');
  });
}
