// Mutation testing of the workflows' safety branches (`make mutate`, after the domain and the
// activities) against the dev-server workflow tests that reach them: the guard's deny and
// needs-approval in a migration and a recovery, the recovery's protected-object check, zero-touch's
// health check and loss handling. The parts (PARTS.workflows in stryker.shared.mjs, picked by
// WSMIGRATE_MUTATE_PART) each write their own results, so a run stopped midway keeps the parts it
// finished. Mutants run inside Temporal's workflow sandbox through a bundling banner
// (test/harness/stryker-workflow-sandbox.ts).
// Run it through scripts/with-dev-server.ts (as `make mutate` does): one dev server for every jest run.
import { PARTS } from './stryker.shared.mjs';

if (!process.env.TEMPORAL_ADDRESS) throw new Error('run this through scripts/with-dev-server.ts (make mutate): Stryker runs jest many times in one process, so they must share one Temporal dev server');
const part = process.env.WSMIGRATE_MUTATE_PART;
if (!part || !PARTS.workflows[part]) throw new Error(`WSMIGRATE_MUTATE_PART=${part ?? ''}: the workflows have the parts ${Object.keys(PARTS.workflows).join(', ')}`);
const { mutate, tests, testNamePattern, break: breakAt = 75 } = PARTS.workflows[part];
const name = `workflows-${part}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    enableFindRelatedTests: false,
    config: {
      testMatch: tests,
      testNamePattern,
      setupFiles: ['<rootDir>/test/harness/quiet-runtime.ts', '<rootDir>/test/harness/stryker-workflow-sandbox.ts'],
    },
  },
  coverageAnalysis: 'off',
  // No TypeScript checker: it held one of the two slots and set the pace (2026-12-06: one mutant
  // every one to two minutes). A mutant that would not type-check fails the workflows' bundle or
  // its tests, as in the other areas.
  checkers: [],
  mutate,
  ignorePatterns: ['dist', 'coverage', '.wsmigrate', 'reports', 'deploy', '.stryker-tmp*', '.tmp'],
  incremental: true,
  incrementalFile: `reports/mutation/${name}-incremental.json`,
  concurrency: 2,
  timeoutMS: 240_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: `.stryker-tmp-${name}`,
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: breakAt },
};
