import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `work` in a fresh private temp dir and removes the dir afterwards, whatever happens. State
 * files, Terraform's backups of them and template copies live only there: they hold secrets.
 */
export async function withScratchDir<T>(purpose: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `wsmigrate-${purpose}-`));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
