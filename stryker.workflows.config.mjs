// The mutants of the workflows' safety branches (PARTS.workflows in stryker.shared.mjs), for
// scripts/workflow-mutants.mjs: Stryker only lists them here (its command runner with `true`, so each
// "survives" at once); that script applies each to a copy of the project and runs the part's
// dev-server tests on it with plain jest (why: the script's header).
import { PARTS } from './stryker.shared.mjs';

const part = process.env.WSMIGRATE_MUTATE_PART;
const listFile = process.env.WSMIGRATE_MUTANTS_LIST;
if (!part || !PARTS.workflows[part] || !listFile) {
  throw new Error(`run the workflows' parts through scripts/workflow-mutants.mjs <part> (make mutate): the parts are ${Object.keys(PARTS.workflows).join(', ')}`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'command',
  commandRunner: { command: 'true' },
  coverageAnalysis: 'off',
  checkers: [],
  mutate: PARTS.workflows[part].mutate,
  ignorePatterns: ['dist', 'coverage', '.wsmigrate', 'reports', 'deploy', '.stryker-tmp*', '.tmp', 'node_modules'],
  concurrency: 2,
  reporters: ['json'],
  jsonReporter: { fileName: listFile },
  tempDirName: `.stryker-tmp-workflows-${part}`,
  cleanTempDir: 'always',
  thresholds: { high: 100, low: 100, break: null },
};
