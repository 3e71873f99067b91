// Prints each area's mutation score from its Stryker JSON report (reports/mutation/<area>.json), as
// Stryker counts it: killed and timed-out mutants over those plus survivors and mutants no test
// covers; mutants left out (static ones, `ignoreStatic`) and those that did not compile are not
// counted. The parts of each area are also summed, one line each.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PARTS } from '../stryker.shared.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.slice(2);
const partsOf = (area) => Object.keys(PARTS[area]).map((p) => `${area}-${p}`);
const areas = given.length ? given : [...partsOf('domain'), ...partsOf('activities'), ...partsOf('workflows')];

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

const sums = new Map();
for (const area of areas) {
  const c = countsOf(area);
  if (!c) {
    console.log(`mutation score ${area}: no report (reports/mutation/${area}.json)`);
    continue;
  }
  console.log(line(area, c));
  const whole = /^(domain|activities|workflows)-/.exec(area)?.[1];
  if (whole) {
    const sum = sums.get(whole) ?? { parts: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0 };
    sum.parts++;
    for (const k of ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored']) sum[k] += c[k];
    sums.set(whole, sum);
  }
}
for (const [whole, sum] of sums) if (sum.parts > 1) console.log(line(`${whole} (${sum.parts} parts)`, sum));
