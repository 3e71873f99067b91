import { missingRealStackTools } from '../../src/adapters/kube';

/**
 * Real-stack tests (real Terraform, providers and kube-apiserver) run in `make test`, which builds
 * the tools first. In CI a missing tool fails the run; elsewhere the tests are skipped, loudly.
 */
function realStackReady(): boolean {
  const missing = missingRealStackTools();
  if (missing.length === 0) return true;
  const message =
    `REAL-STACK TESTS SKIPPED: missing ${missing.join(', ')}.\n` +
    "Build them with 'bash scripts/bootstrap-tools.sh --real-stack' (about 20 minutes the first time; `make test` does it).";
  if (process.env.CI) throw new Error(`CI is set, so the real-stack tests must run: ${message}`);
  console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  return false;
}

export const REAL_STACK_READY = realStackReady();

/** `describe` when the real stack is built, else a skipped `describe` (with the warning above). */
export const describeRealStack: jest.Describe = REAL_STACK_READY ? describe : describe.skip;

/** Real builds take seconds each, but minutes on a machine loaded ten times over its cores. */
export const REAL_BUILD_TIMEOUT_MS = 300_000;
