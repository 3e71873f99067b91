import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Terraform's answer to the same input, kept on disk across test runs, under mutation testing only
 * (`WSMIGRATE_TERRAFORM_MEMO_DIR`, set by stryker.config.mjs; every other run calls Terraform).
 * What Terraform prints depends on the input given to it, not on the mutant under test: a mutant
 * that changes that input (the state it wrote, the template it rewrote) misses and runs the real
 * binary. Without it every mutant of the state rename or the plan reader re-ran `terraform init`,
 * `plan` and `state list` (seconds each), which set the length of the whole domain run.
 * `key` must hold everything the answer depends on; a failed run is not kept.
 */
export async function memoizedTerraform<T>(key: unknown, run: () => Promise<T>): Promise<T> {
  const dir = process.env.WSMIGRATE_TERRAFORM_MEMO_DIR;
  if (!dir) return run();
  const file = join(dir, `${createHash('sha256').update(JSON.stringify(key)).digest('hex')}.json`);
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { value: T }).value;
  } catch {
    // not kept yet
  }
  const value = await run();
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ value }));
  renameSync(tmp, file);
  return value;
}
