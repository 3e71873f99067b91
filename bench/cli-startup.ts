/**
 * How long the CLI takes to start for commands that never talk to Temporal, and whether any of
 * them loads the Temporal SDK (they must not: target ≤ 0.35 s).
 *
 *   node -r @swc-node/register bench/cli-startup.ts [--runs 7]
 *
 * Times `node dist/cli/main.js …` (what users run; `make build` first) and, for comparison,
 * `node` itself doing nothing. Prints the median wall time and CPU time of each command.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const REPORT_MODULES = join(ROOT, 'test', 'harness', 'report-loaded-modules.js');
const fixture = (...p: string[]) => join(ROOT, 'test', 'fixtures', ...p);
const runsIdx = process.argv.indexOf('--runs');
const RUNS = runsIdx >= 0 ? Number(process.argv[runsIdx + 1]) : 7;

const COMMANDS: [string, string[]][] = [
  ['node -e 0 (floor)', []],
  ['--help', ['--help']],
  ['template rewrite', ['template', 'rewrite', fixture('hcl', 'templates', 'coder-k8s')]],
  ['state rewrite', ['state', 'rewrite', fixture('state', 'count.tfstate')]],
  ['plan check', ['plan', 'check', fixture('plan', 'show', 'rename-old-to-new.json')]],
  ['plan structural', ['plan', 'structural', '--template', fixture('plan', 'templates', 'k8s-new'), '--state', fixture('plan', 'states', 'old-stopped.tfstate')]],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main(): void {
  if (!existsSync(MAIN)) {
    console.error(`${MAIN} is missing: run 'make build' first (the bench times the built CLI users run).`);
    process.exit(1);
  }
  const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-cli-startup-'));
  try {
    console.log(`CLI start-up, median of ${RUNS} runs (target: ≤ 0.35 s wall, no @temporalio module loaded)\n`);
    console.log(`${'command'.padEnd(22)} ${'wall s'.padStart(7)} ${'cpu s'.padStart(7)}  modules  @temporalio`);
    for (const [name, args] of COMMANDS) {
      const wall: number[] = [];
      const cpu: number[] = [];
      const modulesFile = join(dir, 'modules.txt');
      for (let i = 0; i < RUNS; i++) {
        const argv = args.length === 0 ? ['-e', '0'] : ['-r', REPORT_MODULES, MAIN, ...args];
        const t0 = performance.now();
        const r = spawnSync(process.execPath, argv, {
          cwd: ROOT,
          env: { ...process.env, WSMIGRATE_LOADED_MODULES_FILE: modulesFile },
          stdio: 'ignore',
        });
        wall.push((performance.now() - t0) / 1000);
        if (r.error) throw r.error;
        cpu.push(childCpuSeconds());
      }
      const modules = args.length === 0 ? [] : readFileSync(modulesFile, 'utf8').split('\n');
      const temporal = modules.filter((m) => m.includes('@temporalio')).length;
      console.log(
        `${name.padEnd(22)} ${median(wall).toFixed(3).padStart(7)} ${median(cpu).toFixed(3).padStart(7)}  ${String(modules.length).padStart(7)}  ${temporal === 0 ? 'none' : `${temporal} LOADED`}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let lastChildCpu = 0;
/** CPU seconds (user + system) of the child that just ended, from the cumulative children's usage. */
function childCpuSeconds(): number {
  const total = cumulativeChildrenCpu();
  const delta = total - lastChildCpu;
  lastChildCpu = total;
  return delta;
}

function cumulativeChildrenCpu(): number {
  // /proc/self/stat fields 16 and 17: cutime and cstime, in clock ticks (100 per second on Linux).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

lastChildCpu = cumulativeChildrenCpu();
main();
