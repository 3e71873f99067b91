import { existsSync } from 'node:fs';
import execa from 'execa';
import { terraformPath } from '../../src/config/tools';

export const TERRAFORM_HINT = 'put terraform >= 1.8 on PATH or run bash scripts/bootstrap-tools.sh';

/** The Terraform binary wsmigrate would run, if this machine has it (for itNeeds/describeNeeds). */
export function installedTerraform(): string | undefined {
  try {
    const path = terraformPath();
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** `terraform fmt -check -diff` in `dir`: 0 and no diff when the files are fmt-clean. */
export async function terraformFmtCheck(terraform: string, dir: string, args: readonly string[]): Promise<{ exitCode: number; diff: string }> {
  const result = await execa(terraform, ['fmt', '-check', '-diff', ...args], {
    cwd: dir,
    reject: false,
    env: { CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
  });
  return { exitCode: result.exitCode, diff: result.stdout };
}
