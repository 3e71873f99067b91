import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An oracle's answer (real Terraform's `state list`, `plan`, `fmt`; HashiCorp's HCL parser in
 * hcl2json) to the same input, kept on disk across test runs, under mutation testing only
 * (`WSMIGRATE_ORACLE_MEMO_DIR`, set by stryker.shared.mjs; every other run asks the oracle).
 * What an oracle answers depends on the input given to it, not on the mutant under test: a mutant
 * that changes that input (the state it wrote, the template it rewrote) misses and asks the real
 * one. Without it every mutant of the state rename or the plan reader re-ran `terraform init`,
 * `plan` and `state list`, and every parser mutant re-ran hcl2json on the 45 corpus templates
 * (1.1 s of the corpus file's 2.7 s). `key` must hold everything the answer depends on; a failure
 * is not kept.
 */
export async function memoizedOracle<T>(key: unknown, run: () => Promise<T>): Promise<T> {
  const dir = process.env.WSMIGRATE_ORACLE_MEMO_DIR;
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
