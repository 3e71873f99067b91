import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import type { Importer } from '../../ports/importer';
import type { ImportStep } from '../../domain/import-plan';
import type { TemplateFile } from '../../domain/template-rewrite';
import { writeMirrorCliConfig } from './cli-config';
import { executeImportPlan } from './execute-import-plan';
import { withScratchDir } from './scratch-dir';

export interface KubeImporterOptions {
  /** The cluster the workspaces' objects live in; the kubernetes provider reads it as KUBE_CONFIG_PATH. */
  kubeconfigPath: string;
  /** A filesystem mirror holding hashicorp/kubernetes and coder/coder; without it `init` uses Terraform's own config (the registry). */
  providerMirror?: string;
  /** Template variables for `import` (e.g. namespace). */
  vars?: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

async function writeTemplate(dir: string, files: readonly TemplateFile[]): Promise<void> {
  for (const f of files) {
    const rel = normalize(f.path);
    if (rel.startsWith('..') || rel.startsWith('/')) throw new Error(`Template file path ${JSON.stringify(f.path)} leaves the template directory; refusing to write it.`);
    const path = join(dir, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.content);
  }
}

/**
 * The `import` strategy for real: for each step, `terraform state rm` the deprecated address and
 * `terraform import` the `_v1` one, with the target template version's source, the providers and
 * the cluster's kubeconfig. The object is read, never created: its uid is unchanged.
 */
export function createKubeImporter(opts: KubeImporterOptions): Importer {
  return {
    async importInstances(input: { stateText: string; steps: ImportStep[]; templateFiles: TemplateFile[] }): Promise<string> {
      if (input.steps.length === 0) return input.stateText;
      return withScratchDir('importer', async (dir) => {
        const templateDir = join(dir, 'template');
        await mkdir(templateDir);
        await writeTemplate(templateDir, input.templateFiles);
        const env: Record<string, string> = { KUBE_CONFIG_PATH: opts.kubeconfigPath };
        if (opts.providerMirror) {
          const cliConfig = join(dir, 'terraform.rc');
          await writeMirrorCliConfig(cliConfig, opts.providerMirror);
          env.TF_CLI_CONFIG_FILE = cliConfig;
        }
        return executeImportPlan(input.stateText, input.steps, {
          templateDir,
          init: true,
          env,
          ...(opts.vars ? { vars: opts.vars } : {}),
          ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        });
      });
    },
  };
}
