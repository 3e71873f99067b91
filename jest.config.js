/** Unit and integration tests share one run; global setup starts one Temporal dev server for all of them. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  setupFiles: ['<rootDir>/test/harness/quiet-runtime.ts'],
  // The longest files first, by this checkout's record or else a committed list (test/harness/test-sequencer.js).
  testSequencer: '<rootDir>/test/harness/test-sequencer.js',
  testTimeout: 60_000,
  maxWorkers: 2,
};
