import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { defaultWorkflowsPath } from './create-worker';
import { WORKFLOW_BUNDLE_FILE } from './workflow-bundle';

/**
 * `node dist/worker/write-workflow-bundle.js [path]`: the build's last step (see Makefile `build`
 * and the Dockerfile); a path writes it elsewhere (the benchmarks, which run from source).
 */
async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: defaultWorkflowsPath(), logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } });
  const path = process.argv[2] ?? join(__dirname, '..', WORKFLOW_BUNDLE_FILE);
  writeFileSync(path, code);
  process.stdout.write(`workflow bundle: ${path} (${(code.length / 1024 / 1024).toFixed(1)} MB)\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
