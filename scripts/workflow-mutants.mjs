// make mutate's workflows parts: each mutant of a workflow's safety branches applied to a copy of the
// project, one at a time, and that part's dev-server tests run on it with plain jest (a fresh process
// and a fresh Temporal dev server each): killed when they fail, survived when they pass.
//
// Why not Stryker's jest runner, as the other areas: workflow code runs in Temporal's sandbox, where
// Stryker's switch cannot reach, and with a banner handing it the active mutant a run whose tests
// caught nothing never returned to Stryker (2026-12-06: `verdict.reasons.join("")` passes its tests
// in 11 s applied by hand, and was reported a timeout; all 16 of workflows-recover were). Stryker
// still finds the mutants (its command runner with `true`, in seconds): only the verdicts are ours.
//
// Usage: node scripts/workflow-mutants.mjs <part> [--all | --survivors]. Results are reused from the part's
// baseline (mutation/workflows-<part>-results.json.gz) for a mutant whose file and tests are
// unchanged; --all (MUTATE_FULL) tests every one. --survivors, after tests were only added to the
// part's (none changed or removed): a mutant the baseline's tests killed stays killed, as Stryker's
// incremental mode keeps a kill while its killing test is unchanged; only the rest are tested again. Writes reports/mutation/workflows-<part>.json in
// Stryker's report format (so scripts/mutation-score.mjs counts it) and exits 1 under the part's break.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PARTS } from '../stryker.shared.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [part, ...flags] = process.argv.slice(2);
const spec = PARTS.workflows[part];
if (!spec) {
  console.error(`workflow-mutants: unknown part '${part ?? ''}': the workflows have the parts ${Object.keys(PARTS.workflows).join(', ')}`);
  process.exit(2);
}
const name = `workflows-${part}`;
const testFiles = spec.tests.map((t) => t.replace('<rootDir>/', ''));
const timeoutMs = Number(process.env.WSMIGRATE_MUTANT_TIMEOUT_MS ?? 180_000);
const breakAt = spec.break ?? 75;
const reportFile = join(root, 'reports', 'mutation', `${name}.json`);
const baselineFile = join(root, 'mutation', `${name}-results.json.gz`);
mkdirSync(dirname(reportFile), { recursive: true });

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const testsSha256 = sha256(testFiles.map((f) => readFileSync(join(root, f), 'utf8')).join('\0') + `\0${spec.testNamePattern}`);
const keyOf = (m) => `${m.mutatorName}|${JSON.stringify(m.location)}|${m.replacement}`;

// 1. The mutants, as Stryker makes them.
const listFile = join(root, 'reports', 'mutation', `${name}-mutants.json`);
const listed = spawnSync('npx', ['stryker', 'run', 'stryker.workflows.config.mjs'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, WSMIGRATE_MUTATE_PART: part, WSMIGRATE_MUTANTS_LIST: listFile },
});
if (listed.status !== 0 || !existsSync(listFile)) {
  console.error(`workflow-mutants: ${name}: Stryker could not list the mutants (exit ${listed.status})`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(listFile, 'utf8'));
rmSync(listFile);

// 2. Earlier verdicts that still hold: same file, same tests.
const earlier = new Map();
if (!flags.includes('--all') && existsSync(baselineFile)) {
  const base = JSON.parse(gunzipSync(readFileSync(baselineFile)).toString('utf8'));
  const sameTests = base.wsmigrate?.testsSha256 === testsSha256;
  if (sameTests || flags.includes('--survivors')) {
    for (const [file, f] of Object.entries(base.files)) {
      if (report.files[file]?.source !== f.source) continue;
      for (const m of f.mutants) if (sameTests || m.status === 'Killed' || m.status === 'Timeout') earlier.set(`${file}|${keyOf(m)}`, m);
    }
  }
}

// 3. A copy of the project (working tree, not only what is committed) with node_modules linked.
const sandbox = mkdtempSync(join(tmpdir(), 'wsmigrate-mutants-'));
const tracked = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
for (const f of tracked) if (existsSync(join(root, f))) cpSync(join(root, f), join(sandbox, f), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(sandbox, 'node_modules'));
const cleanUp = () => rmSync(sandbox, { recursive: true, force: true });
process.on('SIGINT', () => {
  cleanUp();
  process.exit(130);
});

function runTests() {
  return new Promise((resolve) => {
    // stryker.shared.mjs sets the unit areas' switches in this process: these tests need a dev server.
    const env = { ...process.env };
    for (const k of ['TEMPORAL_ADDRESS', 'WSMIGRATE_UNIT_ONLY', 'WSMIGRATE_ORACLE_MEMO_DIR', 'WSMIGRATE_PROPERTY_RUNS_CAP']) delete env[k];
    const child = spawn('node', ['scripts/run-tests.js', ...testFiles, '-t', spec.testNamePattern], { cwd: sandbox, env, stdio: process.env.WSMIGRATE_MUTANTS_VERBOSE ? 'inherit' : 'ignore', detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      resolve('Timeout');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? 'Survived' : 'Killed');
    });
  });
}

// 4. Each mutant on its own.
const started = Date.now();
let tested = 0;
const all = Object.values(report.files).reduce((n, f) => n + f.mutants.length, 0);
try {
  if ((await runTests()) !== 'Survived') throw new Error(`${name}: the tests fail without any mutant: fix them first`);
  for (const [file, f] of Object.entries(report.files)) {
    const lines = f.source.split('\n');
    for (const m of f.mutants) {
      const before = earlier.get(`${file}|${keyOf(m)}`);
      if (before) {
        m.status = before.status;
        continue;
      }
      const { start, end } = m.location;
      const head = lines.slice(0, start.line - 1).join('\n') + (start.line > 1 ? '\n' : '') + lines[start.line - 1].slice(0, start.column - 1);
      const tail = lines[end.line - 1].slice(end.column - 1) + (end.line < lines.length ? '\n' : '') + lines.slice(end.line).join('\n');
      writeFileSync(join(sandbox, file), head + m.replacement + tail);
      m.status = await runTests();
      writeFileSync(join(sandbox, file), f.source);
      tested++;
      const mark = m.status === 'Survived' ? 'SURVIVED' : m.status.toLowerCase();
      console.log(`${name}: ${tested} tested (${all} in all), ${Math.round((Date.now() - started) / 1000)} s: ${file}:${start.line}:${start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement).slice(0, 80)}: ${mark}`);
    }
  }
} finally {
  cleanUp();
}

// 5. The report, the baseline, the verdict.
writeFileSync(reportFile, JSON.stringify(report));
const kept = { ...report, wsmigrate: { testsSha256 } };
const text = JSON.stringify(kept);
const same = existsSync(baselineFile) && gunzipSync(readFileSync(baselineFile)).toString('utf8') === text;
if (!same) writeFileSync(baselineFile, gzipSync(text));
console.log(`workflow-mutants: ${name}: ${tested} tested, ${all - tested} from the baseline; ${baselineFile.replace(`${root}/`, '')}: ${same ? 'unchanged' : 'written (commit it with the change that moved it)'}`);
const count = (s) => Object.values(report.files).reduce((n, f) => n + f.mutants.filter((m) => m.status === s).length, 0);
const score = (100 * (count('Killed') + count('Timeout'))) / all;
for (const f of Object.entries(report.files)) for (const m of f[1].mutants) if (m.status === 'Survived') console.log(`  survived: ${f[0]}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${m.replacement}`);
console.log(`workflow-mutants: ${name}: ${score.toFixed(2)}% (break ${breakAt})`);
process.exit(score < breakAt ? 1 : 0);
