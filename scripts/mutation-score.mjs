// Prints each area's mutation score from its Stryker JSON report (reports/mutation/<area>.json), as
// Stryker counts it: killed and timed-out mutants over those plus survivors and mutants no test
// covers; mutants left out (static ones, `ignoreStatic`) and those that did not compile are not
// counted. The activities' parts are also summed into one line.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.slice(2);
const areas = given.length ? given : ['domain', 'activities-a-c', 'activities-d-p', 'activities-q-z', 'workflows'];

function countsOf(area) {
  const file = join(root, 'reports', 'mutation', `${area}.json`);
  if (!existsSync(file)) return undefined;
  const count = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0 };
  for (const f of Object.values(JSON.parse(readFileSync(file, 'utf8')).files)) for (const m of f.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  return count;
}

function line(name, c) {
  const detected = c.Killed + c.Timeout;
  const total = detected + c.Survived + c.NoCoverage;
  const score = total ? ((100 * detected) / total).toFixed(2) : 'n/a';
  return `mutation score ${name}: ${score}% (${detected} of ${total}: killed ${c.Killed}, timed out ${c.Timeout}, survived ${c.Survived}, no coverage ${c.NoCoverage}; left out ${c.Ignored})`;
}

const parts = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0 };
let partsSeen = 0;
for (const area of areas) {
  const c = countsOf(area);
  if (!c) {
    console.log(`mutation score ${area}: no report (reports/mutation/${area}.json)`);
    continue;
  }
  console.log(line(area, c));
  if (area.startsWith('activities-')) {
    partsSeen++;
    for (const k of Object.keys(parts)) parts[k] += c[k];
  }
}
if (partsSeen > 1) console.log(line(`activities (${partsSeen} parts)`, parts));
