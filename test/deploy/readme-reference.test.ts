import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerSimCommands } from '../../src/cli/commands/sim';
import { configVariableNames } from '../../src/config/env';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The rows of the first markdown table under `heading`, up to the first line that is not a row. */
function tableUnder(heading: string): string[] {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => l === heading);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const rows: string[] = [];
  for (let i = first; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i]);
  return rows;
}

describe('README, as a new user reads it (#22 item 15)', () => {
  it('the configuration table is one table holding every variable the config loader reads', () => {
    const names = tableUnder('## Configuration').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
    // A blank line inside the table ends it in markdown: the rows after it would be missing here.
    expect(configVariableNames().filter((name) => !names.includes(name))).toEqual([]);
  });

  it("every option of `wsmigrate sim` is named in README, and how to get a template's source is said", () => {
    const program = new Command();
    registerSimCommands(program, { out: () => undefined, err: () => undefined });
    const sim = program.commands.find((c) => c.name() === 'sim');
    const flags = (sim?.options ?? []).map((o) => o.long).filter((f): f is string => Boolean(f));
    expect(flags.length).toBeGreaterThan(8);
    expect(flags.filter((f) => !README.includes(`\`${f}`))).toEqual([]);
    expect(README).toMatch(/`coder templates pull k8s-dev \.\/k8s-dev` writes the active\s+version's files/);
  });
});
