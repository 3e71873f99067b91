import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerSimCommands } from '../../src/cli/commands/sim';
import { buildProgram } from '../../src/cli/main';
import { configVariableNames } from '../../src/config/env';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The rows of the first markdown table under `heading`, up to the first line that is not a row. */
function tableUnder(heading: string): string[] {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => l === heading);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const rows: string[] = [];
  for (let i = first; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i]);
  return rows;
}

/** The text from `heading` to the next heading of the same or a higher level. */
function sectionUnder(heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length ?? 1;
  const lines = README.split('\n');
  const start = lines.indexOf(heading);
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The variable names in the first column of the configuration table. */
function configTableNames(): string[] {
  return tableUnder('## Configuration').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('README, as a new user reads it (#22 item 15)', () => {
  it('the configuration table is one table holding every variable the config loader reads', () => {
    const names = configTableNames();
    // A blank line inside the table ends it in markdown: the rows after it would be missing here.
    expect(configVariableNames().filter((name) => !names.includes(name))).toEqual([]);
  });

  it('every environment variable read outside the config loader (tool paths, the S3 region chain, --org) is in Configuration', () => {
    const read = new Set(
      sourceFiles(join(ROOT, 'src')).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)|process\.env\[['"]([A-Z][A-Z0-9_]*)['"]\]|\.env\('([A-Z][A-Z0-9_]*)'\)/g)].map((m) => m[1] ?? m[2] ?? m[3]),
      ),
    );
    // The scan finds them where they are read (src/config/tools.ts, commander's env for --org).
    expect([...read]).toEqual(expect.arrayContaining(['WSMIGRATE_TERRAFORM_BIN', 'WSMIGRATE_TOOLS_DIR', 'CODER_ORGANIZATION', 'AWS_REGION']));
    const own = [...read].filter((name) => /^(WSMIGRATE|CODER|TEMPORAL|SLACK)_/.test(name));
    expect(own.filter((name) => !configTableNames().includes(name))).toEqual([]);
    // Others' variables (the AWS chain) are named where Configuration says what falls back to them.
    const configuration = sectionUnder('## Configuration');
    expect([...read].filter((name) => !own.includes(name) && !configuration.includes(`\`${name}\``))).toEqual([]);
  });

  it('every link of README reaches a file of the repository or a heading of README', () => {
    const prose = README.replace(/^```[\s\S]*?^```/gm, ''); // a shell comment in a code block is no heading
    const anchors = new Set(prose.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchorOf(l.replace(/^#+ /, ''))));
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^https?:/.test(target));
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((target) => (target.startsWith('#') ? !anchors.has(target.slice(1)) : !existsSync(join(ROOT, target.split('#')[0]))))).toEqual([]);
  });

  it('shows the paced fleet table with all three scenarios and recommends a provisioner share (#25)', () => {
    const paced = sectionUnder('#### Paced fleets (`bench/fleet-paced.ts`, in `make bench`)');
    const rows = paced.split('\n').filter((l) => /^\| \([abc]\) /.test(l));
    expect(rows.map((r) => r.slice(2, 5))).toEqual(['(a)', '(b)', '(c)']);
    expect(paced).toMatch(/\*\*Recommended share: (0\.\d+|1)\*\* when/);
    expect(paced).toContain('[docs/benchmarks.md](docs/benchmarks.md)');
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

  it('every option of every wsmigrate command is named in README', () => {
    const missing: string[] = [];
    const walk = (cmd: Command, path: string): void => {
      for (const o of cmd.options) if (o.long && !new RegExp(`(?<![\\w-])${o.long}(?![\\w-])`).test(README)) missing.push(`${path} ${o.long}`);
      for (const sub of cmd.commands) walk(sub, `${path} ${sub.name()}`);
    };
    const program = buildProgram({ out: () => undefined, err: () => undefined });
    walk(program, 'wsmigrate');
    expect(program.commands.length).toBeGreaterThan(15);
    expect(missing).toEqual([]);
  });

  it("says how a status read exits for a run that failed: 0 (it read), and how to exit by the run's outcome (hazard drive round 2)", () => {
    const start = README.indexOf('- Exit codes of every command');
    const paragraph = README.slice(start, README.indexOf('\n\n', start)).replace(/\s+/g, ' ');
    expect(paragraph).toContain('`status`, and `fleet status` of a fleet or an organization\'s run without `--wait`, exit 0 whatever the phase they show');
    expect(paragraph).toContain('`fleet status <id> --wait`: for a run that has ended it returns at once with the codes of `--wait` above');
  });
});
