import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { stateRmArgs } from '../../domain/import-plan';
import { runTerraform } from './run';
import { withScratchDir } from './scratch-dir';

/**
 * `terraform state rm -state=FILE ADDR...`, run in `cwd`, which must hold no *.tf files
 * (state rm loads the config there to check required_version and the backend).
 *
 * Backup: in state commands `-backup=-` does NOT turn the backup off (1.8 and 1.11 both read "-"
 * as "use the default", a timestamped FILE.<unix>.backup beside the state). The caller keeps its
 * own backup of the input, so this one is pointed into the same private dir as the state and
 * removed with it, instead of being left next to a state it might confuse.
 */
export async function stateRmFile(stateFile: string, addresses: readonly string[], cwd: string): Promise<void> {
  if (addresses.length === 0) return;
  const backup = join(dirname(stateFile), `${basename(stateFile)}.rm-backup`);
  await runTerraform(stateRmArgs(stateFile, addresses, [`-backup=${backup}`]), { cwd, subject: addresses.join(', ') });
}

/** Forgets the given instances; returns the new state text (serial bumped by Terraform). The input is untouched. */
export async function stateRm(stateText: string, addresses: readonly string[]): Promise<string> {
  return withScratchDir('state-rm', async (dir) => {
    const stateFile = join(dir, 'in.tfstate');
    await writeFile(stateFile, stateText, { mode: 0o600 });
    await stateRmFile(stateFile, addresses, dir);
    return readFile(stateFile, 'utf8');
  });
}
