import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * bench/reliability/RESULTS.md and results.json are written by `make bench-reliability`, never by
 * hand: the table in RESULTS.md must be exactly results.json's cases, its counts must be counts of
 * those cases (inputs tried, not test titles), and each case must be a test in test/chaos/.
 */
const BENCH = join(__dirname, '..', '..', 'bench', 'reliability');
interface Case {
  name: string;
  category: string;
  expected: 'refused' | 'accepted';
  passed: boolean;
  notMeasuredYet?: boolean;
}
const results = JSON.parse(readFileSync(join(BENCH, 'results.json'), 'utf8')) as { badInput: Case[] };
const markdown = readFileSync(join(BENCH, 'RESULTS.md'), 'utf8');

/** Test titles of test/chaos/bad-input*.test.ts, as Jest reports them (quotes unescaped). */
function badInputTestTitles(): string[] {
  const dir = __dirname;
  const source = readdirSync(dir)
    .filter((f) => /^bad-input.*\.test\.ts$/.test(f))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  return [...source.matchAll(/\b(?:it|test)\(\s*(['`"])((?:\\.|(?!\1).)*)\1/g)].map((m) => m[2].replace(/\\(.)/g, '$1'));
}

describe('the reliability figures are the output of a run', () => {
  it("RESULTS.md's case table is results.json's cases, row for row", () => {
    const table = markdown.slice(markdown.indexOf('## Bad-input cases'));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| category'))
      .map((l) => l.slice(2, -2).split(' | '));
    expect(rows).toEqual(
      results.badInput.map((c) => [c.category, c.name, c.notMeasuredYet ? 'not measured yet' : c.expected, c.notMeasuredYet ? '–' : c.passed ? 'yes' : '**no**']),
    );
  });

  it('"bad inputs refused / tried" counts the cases tried, per category', () => {
    const tried = results.badInput.filter((c) => !c.notMeasuredYet && c.expected === 'refused');
    const refused = tried.filter((c) => c.passed);
    const categories = [...new Set(results.badInput.filter((c) => !c.notMeasuredYet).map((c) => c.category))];
    const perCategory = categories.map((cat) => `${cat} ${refused.filter((c) => c.category === cat).length}/${tried.filter((c) => c.category === cat).length}`);
    expect(markdown).toContain(`| bad inputs refused / tried `);
    expect(markdown).toMatch(new RegExp(`\\| ${refused.length} / ${tried.length} \\(${perCategory.join(', ').replace(/[()/]/g, '\\$&')}\\) \\|`));
  });

  it('every case in the figures is a test in test/chaos/, and every bad-input test is in the figures (re-run make bench-reliability after adding one)', () => {
    const titles = badInputTestTitles();
    expect(results.badInput.map((c) => c.name).filter((n) => !titles.includes(n))).toEqual([]);
    expect(titles.filter((t) => !results.badInput.some((c) => c.name === t))).toEqual([]);
  });
});
