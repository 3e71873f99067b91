// Mutation testing of the workflows' safety branches (`make mutate`, second run) against the
// dev-server workflow tests that reach them: the guard's deny and needs-approval in a migration
// and a recovery, the recovery's protected-object check, zero-touch's health check and loss
// handling. Mutants run inside Temporal's workflow sandbox through a bundling banner
// (test/harness/stryker-workflow-sandbox.ts). Per-test coverage cannot see into the sandbox, so
// every mutant runs these test files whole: keep the line ranges to the safety branches.
// The ranges follow the files: after an edit above them, check them with `grep -n` (README).
// Run it through scripts/with-dev-server.ts (as `make mutate` does): one dev server for every jest run.
if (!process.env.TEMPORAL_ADDRESS) throw new Error('run this through scripts/with-dev-server.ts (make mutate): Stryker runs jest many times in one process, so they must share one Temporal dev server');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    enableFindRelatedTests: false,
    config: {
      testMatch: ['<rootDir>/test/workflows/guard-verdicts.test.ts', '<rootDir>/test/workflows/zero-touch-safety.test.ts'],
      setupFiles: ['<rootDir>/test/harness/quiet-runtime.ts', '<rootDir>/test/harness/stryker-workflow-sandbox.ts'],
    },
  },
  coverageAnalysis: 'off',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [
    // migrateWorkspace: the guard's deny, and the apply gate forced open by needs-approval.
    'src/workflows/migrate-workspace.ts:237-246',
    // recovery: the guard's deny, the gate asked whatever the policy (recoveryNeedsPerson), and the
    // protected-object check after the start.
    'src/workflows/recover-workspace.ts:106-112',
    'src/workflows/recover-workspace.ts:138-139',
    'src/workflows/recover-workspace.ts:163-163',
    // zero-touch: the health check before "already migrated", and a lost volume after the start.
    'src/workflows/zero-touch-workspace.ts:37-56',
    'src/workflows/zero-touch-workspace.ts:72-79',
  ],
  ignorePatterns: ['dist', 'coverage', '.wsmigrate', 'reports', 'deploy', '.stryker-tmp*'],
  incremental: true,
  incrementalFile: 'reports/mutation/workflows-incremental.json',
  concurrency: 2,
  timeoutMS: 240_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/workflows.html' },
  jsonReporter: { fileName: 'reports/mutation/workflows.json' },
  tempDirName: '.stryker-tmp-workflows',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: 75 },
};
