import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CLOSED_PIPE } from '../../src/cli/io';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const REPORT_MODULES = join(__dirname, '..', 'harness', 'report-loaded-modules.js');
const fixture = (...p: string[]) => join(ROOT, 'test', 'fixtures', ...p);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsmigrate-startup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI from source in a child process and returns the modules it loaded. */
function loadedModules(args: string[]): { status: number | null; stderr: string; modules: string[] } {
  const file = join(dir, `modules-${args.join('-').replace(/\W+/g, '_').slice(0, 60)}.txt`);
  const r = spawnSync(process.execPath, ['-r', '@swc-node/register', '-r', REPORT_MODULES, MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, WSMIGRATE_LOADED_MODULES_FILE: file },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr, modules: readFileSync(file, 'utf8').split('\n') };
}

describe('offline commands do not load the Temporal SDK', () => {
  const offline: [string, string[]][] = [
    ['--help', ['--help']],
    ['template rewrite', ['template', 'rewrite', fixture('hcl', 'templates', 'coder-k8s')]],
    ['state rewrite', ['state', 'rewrite', fixture('state', 'count.tfstate')]],
    ['plan check', ['plan', 'check', fixture('plan', 'show', 'rename-old-to-new.json')]],
    ['plan structural', ['plan', 'structural', '--template', fixture('plan', 'templates', 'k8s-new'), '--state', fixture('plan', 'states', 'old-stopped.tfstate')]],
  ];
  test.each(offline)('%s', (_name, args) => {
    const r = loadedModules(args);
    expect(r.stderr).not.toMatch(/Error:|at .*\(/);
    // The command really ran (our own modules for it were loaded), without any @temporalio package.
    expect(r.modules.some((m) => m.includes(join('src', 'cli', 'main.ts')))).toBe(true);
    expect(r.modules.filter((m) => m.includes('@temporalio'))).toEqual([]);
  });

  test('the check can fail: an online command does load it', () => {
    const r = loadedModules(['status', 'wsmigrate/x/a/b', '--json']);
    // No server at this address: the command fails, but only after loading the client.
    expect(r.modules.some((m) => m.includes('@temporalio'))).toBe(true);
  }, 60_000);
});

describe('a closed stdout ends the CLI quietly', () => {
  test('the reader closes the pipe before the help is written: no stack trace, exit 141 like cat or git', async () => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, '--help'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the only read end: every write of the child now fails with EPIPE
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(EXIT_CLOSED_PIPE);
  });

  test('`wsmigrate --help | head -1` prints the usage line and no EPIPE stack trace', () => {
    const r = spawnSync('bash', ['-c', `node -r @swc-node/register ${MAIN} --help | head -1`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toBe('Usage: wsmigrate [options] [command]\n');
    expect(r.stderr).toBe('');
  });
});
