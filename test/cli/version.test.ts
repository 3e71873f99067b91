import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { EXIT } from '../../src/cli/io';
import { unsupportedNodeWarning, versionText } from '../../src/cli/version';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string; engines: { node: string }; dependencies: Record<string, string> };

async function run(args: string[], nodeVersion: string) {
  const out: string[] = [];
  const err: string[] = [];
  const exitCode = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, nodeVersion);
  return { out: out.join(''), err: err.join('\n'), exitCode };
}

describe('wsmigrate --version: what a bug report needs', () => {
  test.each([['--version'], ['-V'], ['version']])('%s prints wsmigrate, Node.js and the Temporal SDK versions and exits 0', async (flag) => {
    const r = await run([flag], '24.22.3');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out.trim()).toBe(`wsmigrate ${pkg.version} (Node.js 24.22.3, Temporal TypeScript SDK ${pkg.dependencies['@temporalio/client']})`);
    expect(r.err).toBe('');
  });

  test('the help lists both', async () => {
    const r = await run(['--help'], '24.22.3');
    expect(r.out).toMatch(/-V, --version +print wsmigrate's version/);
    expect(r.out).toMatch(/\n {2}version +print wsmigrate's version/);
  });

  test('versionText reads the running Node.js by default', () => {
    expect(versionText()).toContain(`Node.js ${process.versions.node},`);
  });
});

describe('an unsupported Node.js is named before the command runs, and the command still runs', () => {
  test('Node 20: a warning naming the version, the supported one and how to get it; the command exits as it would', async () => {
    const r = await run(['state', 'rewrite', '/nonexistent/terraform.tfstate'], '20.20.2');
    expect(r.err).toMatch(/^wsmigrate: warning: Node\.js 20\.20\.2 is not supported: wsmigrate is built and tested on Node\.js 24 .*bootstrap-tools\.sh --node-bin-dir/);
    // The command's own error follows, with its own exit code.
    expect(r.err).toMatch(/\nwsmigrate: \/nonexistent\/terraform\.tfstate: cannot read the state file/);
    expect(r.exitCode).toBe(EXIT.failure);
  });

  test('Node 24 and later: no warning', async () => {
    for (const v of ['24.0.0', '24.22.3', '26.1.0']) {
      const r = await run(['version'], v);
      expect(r.err).toBe('');
    }
  });

  test.each([
    ['20.20.2', true],
    ['v22.12.0', true],
    ['23.11.1', true],
    ['24.0.0', false],
    ['v25.2.0', false],
  ])('unsupportedNodeWarning(%s) warns: %s', (v, warns) => {
    expect(unsupportedNodeWarning(v) !== undefined).toBe(warns);
  });

  test("the supported major is package.json's engines floor", () => {
    expect(pkg.engines.node).toBe('>=24');
    expect(unsupportedNodeWarning('23.99.0')).toBeDefined();
  });
});

test("an unknown option at the top says 'wsmigrate --help' (no empty command name)", async () => {
  const r = await run(['--bogus'], '24.22.3');
  expect(r.exitCode).toBe(EXIT.usage);
  expect(r.err).toContain("unknown option --bogus; 'wsmigrate --help' lists the options");
});

test("a command's own --version (a template version) is the command's, not wsmigrate's", async () => {
  // `recover` takes --version <id>; without its workspace argument it is a usage error, not wsmigrate's version and 0.
  const r = await run(['recover', '--version', '0b9e5c1e-0000-4000-8000-000000000000'], '24.22.3');
  expect(r.out).not.toContain(`wsmigrate ${pkg.version}`);
  expect(r.err).toMatch(/required option '--template <name>' not specified/);
  expect(r.exitCode).toBe(EXIT.usage);
});
