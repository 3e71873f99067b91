#!/usr/bin/env node
// Writes test/harness/test-durations.json (the test sequencer's order) from whole runs' results:
//   node scripts/test-durations.js <jest --json results or perf-cache file>...
// Each file's duration is its mean over the given runs, in seconds.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const sums = new Map();
const add = (path, ms) => {
  const m = /(?:^|\/)(test\/.+\.test\.ts)$/.exec(path);
  if (!m || !(ms > 0)) return;
  const s = sums.get(m[1]) ?? { ms: 0, n: 0 };
  s.ms += ms;
  s.n += 1;
  sums.set(m[1], s);
};
const inputs = process.argv.slice(2);
if (inputs.length === 0) {
  console.error('usage: node scripts/test-durations.js <jest --json results or perf-cache file>...');
  process.exit(2);
}
for (const file of inputs) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  if (Array.isArray(doc.testResults)) {
    for (const r of doc.testResults) add(r.name, (r.perfStats?.runtime ?? r.endTime - r.startTime));
  } else {
    for (const [path, [, ms]] of Object.entries(doc)) add(path, ms);
  }
}
const files = Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, s]) => [path, Math.round(s.ms / s.n / 100) / 10]));
const out = join(__dirname, '..', 'test', 'harness', 'test-durations.json');
writeFileSync(out, `${JSON.stringify({ from: inputs.length === 1 ? '1 run' : `mean of ${inputs.length} runs`, files }, null, 1)}\n`);
console.log(`${Object.keys(files).length} files written to ${out}`);
