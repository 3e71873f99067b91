#!/usr/bin/env node
// Runs Jest and ends with one plain "N passed, N failed, N skipped" line, which CI reads.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-jest-'));
const out = join(dir, 'results.json');
const run = spawnSync('npx', ['jest', '--json', `--outputFile=${out}`, ...process.argv.slice(2)], { stdio: 'inherit' });
let summary = 'tests: 0 passed, 0 failed';
let skippedInCi = 0;
try {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`;
  if (r.numTotalTests === 0) summary = 'tests: 0 passed, 1 failed (no test ran)';
  // In CI every tool is built, so a skipped test is one that proved nothing: the run fails.
  if (process.env.CI && r.numPendingTests > 0) skippedInCi = r.numPendingTests;
} catch {
  summary = 'tests: 0 passed, 1 failed (jest wrote no results)';
}
rmSync(dir, { recursive: true, force: true });
console.log(summary);
if (skippedInCi > 0) console.log(`CI is set and ${skippedInCi} test(s) were skipped: a skip in CI is a failure (a tool is missing, or a test is marked skip)`);
process.exit(skippedInCi > 0 ? 1 : (run.status ?? 1));
