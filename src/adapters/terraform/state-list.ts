import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTerraform } from './run';
import { withScratchDir } from './scratch-dir';

/** `terraform state list -state=FILE`: the instance addresses Terraform itself reads from the file. */
export async function stateListFile(stateFile: string, cwd: string): Promise<string[]> {
  const { stdout } = await runTerraform(['state', 'list', `-state=${stateFile}`], { cwd, subject: 'the state file' });
  return stdout.split(/\r?\n/).filter((line) => line.trim() !== '');
}

/** The same for state text: written to a private temp dir that holds nothing else (no *.tf for Terraform to load). */
export async function stateList(stateText: string): Promise<string[]> {
  return withScratchDir('state-list', async (dir) => {
    const stateFile = join(dir, 'in.tfstate');
    await writeFile(stateFile, stateText, { mode: 0o600 });
    return stateListFile(stateFile, dir);
  });
}
