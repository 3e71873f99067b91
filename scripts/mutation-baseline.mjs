// Saves a part's incremental result as its committed baseline (mutation/<part>-incremental.json.gz),
// unless it says the same as the baseline already does: a run that re-tested nothing rewrites the
// report with another project root, config and empty lists, which would show as a change to commit.
// Usage: node scripts/mutation-baseline.mjs <working.json> <baseline.json.gz>
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

const [working, baseline] = process.argv.slice(2);
if (!working || !baseline) throw new Error('usage: mutation-baseline.mjs <working.json> <baseline.json.gz>');

/** What a result says: each file's source and mutants (status, covering and killing tests), and the tests. */
function meaning(report) {
  const files = Object.entries(report.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, f]) => [
      name,
      f.source,
      f.mutants
        .map((m) => [JSON.stringify(m.location), m.mutatorName, m.replacement, m.status, [...(m.coveredBy ?? [])].sort(), [...(m.killedBy ?? [])].sort()])
        .sort((x, y) => x.join('|').localeCompare(y.join('|'))),
    ]);
  const tests = Object.entries(report.testFiles ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, t]) => [name, t.source, t.tests.map((x) => [x.id, x.name]).sort()]);
  return JSON.stringify([files, tests]);
}

const text = readFileSync(working, 'utf8');
if (existsSync(baseline) && meaning(JSON.parse(gunzipSync(readFileSync(baseline)).toString('utf8'))) === meaning(JSON.parse(text))) {
  console.log(`mutate: ${baseline}: unchanged`);
} else {
  writeFileSync(baseline, gzipSync(text, { level: 9 }));
  console.log(`mutate: ${baseline}: written (commit it with the change that moved it)`);
}
