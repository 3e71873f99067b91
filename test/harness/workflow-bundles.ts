import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultWorkflowsPath } from '../../src/worker/create-worker';

/** The folder (made by global-setup for one test run) where the run's workflow bundles are kept. */
export const TEST_BUNDLE_DIR_ENV = 'WSMIGRATE_TEST_BUNDLE_DIR';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

/**
 * The workflows of this package bundled with `workflowInterceptorModules`, made once per test run
 * and loaded by every worker of every test file after that, instead of each worker running webpack
 * at its start (1–3 s of a core each, for ~130 worker starts of the suite). The first file to ask
 * makes it (two at once may both make it; the rename keeps whole files only). Undefined outside a
 * test run's global setup: the worker then bundles at start, as before.
 */
export async function sharedWorkflowBundle(workflowInterceptorModules: readonly string[] = []): Promise<string | undefined> {
  const dir = process.env[TEST_BUNDLE_DIR_ENV];
  if (!dir) return undefined;
  const key = createHash('sha256').update(JSON.stringify([...workflowInterceptorModules].sort())).digest('hex').slice(0, 16);
  const path = join(dir, `workflows-${key}.js`);
  if (existsSync(path)) return path;
  const { code } = await bundleWorkflowCode({ workflowsPath: defaultWorkflowsPath(), workflowInterceptorModules: [...workflowInterceptorModules], logger: quiet });
  const part = `${path}.${randomUUID()}.part`;
  writeFileSync(part, code);
  renameSync(part, path);
  return path;
}
