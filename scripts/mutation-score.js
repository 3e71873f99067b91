// Prints each area's mutation score from its Stryker JSON report (reports/mutation/<area>.json), as
// Stryker counts it: killed and timed-out mutants over those plus survivors and mutants no test
// covers; mutants left out (static ones, `ignoreStatic`) and those that did not compile are not counted.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const areas = process.argv.slice(2);
for (const area of areas.length ? areas : ['domain', 'activities', 'workflows']) {
  const file = join(root, 'reports', 'mutation', `${area}.json`);
  if (!existsSync(file)) {
    console.log(`mutation score ${area}: no report (${file})`);
    continue;
  }
  const count = {};
  for (const f of Object.values(JSON.parse(readFileSync(file, 'utf8')).files)) for (const m of f.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  const detected = (count.Killed ?? 0) + (count.Timeout ?? 0);
  const undetected = (count.Survived ?? 0) + (count.NoCoverage ?? 0);
  const score = detected + undetected ? (100 * detected) / (detected + undetected) : NaN;
  console.log(
    `mutation score ${area}: ${score.toFixed(2)}% (${detected} of ${detected + undetected}: killed ${count.Killed ?? 0}, timed out ${count.Timeout ?? 0}, survived ${count.Survived ?? 0}, no coverage ${count.NoCoverage ?? 0}; left out ${count.Ignored ?? 0})`,
  );
}
