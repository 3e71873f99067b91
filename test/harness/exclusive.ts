import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A lock left by a Jest worker that died is taken over after this long. */
const STALE_MS = 10 * 60_000;
const WAIT_MS = 10 * 60_000;

/** The organization run and schedules the CLI makes over the simulator's one organization, `coder`. */
export const ORG_CODER_LOCK = 'wsmigrate-org-coder';

/** Takes the machine-wide lock `name` (waiting while another Jest worker holds it); returns its release. */
async function acquire(name: string, waitMs = WAIT_MS): Promise<() => void> {
  const dir = join(tmpdir(), `wsmigrate-test-lock-${name.replace(/[^a-z0-9-]/gi, '_')}`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS) rmSync(dir, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`test lock ${name} still held after ${waitMs} ms (${dir})`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Holds `name` for the whole test file: no other file holding it runs meanwhile, on either Jest worker.
 * For what files share on the one dev server and cannot make unique: the CLI's organization run is
 * always `wsmigrate-org/coder`, and a schedule of organization `coder` refuses every organization run
 * beside it, so two such files at once see each other's run or schedule (exit 3 where 0 or 2 is due).
 */
export function exclusiveFile(name: string): void {
  let release: (() => void) | undefined;
  beforeAll(async () => {
    release = await acquire(name);
  }, WAIT_MS + 10_000);
  afterAll(() => release?.());
}
