import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CliRun } from '../harness/cli';
import { registerTemplateCommands } from '../../src/cli/commands/template';
import { EXIT } from '../../src/cli/io';

const run = (...args: string[]): Promise<CliRun> => runCommand(registerTemplateCommands, ...args);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsmigrate-remote-modules-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (path: string, content: string): void => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), content);
};

// The deprecated PVC lives only in the git module: the template's own files are all versioned.
const ROOT = [
  'resource "kubernetes_deployment_v1" "main" {}',
  '',
  'module "home" {',
  '  source = "git::https://deploy:s3cr3t-token@git.example.com/infra/home-volume.git?ref=v1.2.0"',
  '}',
  '',
].join('\n');

describe('template rewrite with modules whose code is not in the template', () => {
  test('--strict-modules: a deprecated type only in a git module is refused with exit 3, naming the module and its source, nothing written', async () => {
    write('main.tf', ROOT);
    const r = await run('template', 'rewrite', dir, '--write', '--strict-modules');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toContain('module.home (main.tf:3, source = "git::https://***@git.example.com/infra/home-volume.git?ref=v1.2.0")');
    expect(r.err).toContain('Migrate the module itself');
    expect(r.err).toContain('vendor it into the template');
    expect(r.out).not.toContain('Nothing to change');
    expect(`${r.out}${r.err}`).not.toContain('s3cr3t-token');
    expect(readFileSync(join(dir, 'main.tf'), 'utf8')).toBe(ROOT);
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(false);
  });

  test('registry modules and modules nested in a local module are named by their full address', async () => {
    write('main.tf', 'module "app" {\n  source = "./modules/app"\n}\nresource "kubernetes_pod" "p" {}\n');
    write('modules/app/main.tf', 'module "db" {\n  source  = "registry.example.com/acme/db/kubernetes"\n  version = "2.0.0"\n}\n');
    const r = await run('template', 'rewrite', dir, '--check', '--strict-modules');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toContain('module.app.module.db (modules/app/main.tf:1, source = "registry.example.com/acme/db/kubernetes")');
  });

  test('a local path that leaves the template folder counts as remote', async () => {
    write('main.tf', 'module "shared" {\n  source = "../shared-modules/pvc"\n}\n');
    const r = await run('template', 'rewrite', dir, '--strict-modules');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toContain('module.shared (main.tf:1, source = "../shared-modules/pvc")');
  });

  test('--json still prints the report (with the modules) before refusing', async () => {
    write('main.tf', ROOT);
    const r = await run('template', 'rewrite', dir, '--json', '--strict-modules');
    expect(r.exitCode).toBe(EXIT.denied);
    const out = JSON.parse(r.out) as { mode: string; report: { externalModules: { module: string; source: string }[] } };
    expect(out.mode).toBe('refused');
    expect(out.report.externalModules).toEqual([expect.objectContaining({ module: 'module.home', source: 'git::https://***@git.example.com/infra/home-volume.git?ref=v1.2.0' })]);
  });

  test('by default the template\'s own files are rewritten and the modules left as they are are listed as a warning', async () => {
    write('main.tf', `${ROOT}resource "kubernetes_persistent_volume_claim" "cache" {}\n`);
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('Remote modules, left as they are');
    expect(r.out).toContain('main.tf:3  module.home');
    expect(r.err).toMatch(/^warning: 1 module\(s\) not inspected .*\n  module\.home \(main\.tf:3, source = "git::https:\/\/\*\*\*@git\.example\.com.*\n  each workspace whose state holds a deprecated kubernetes_\* type inside one is refused before its state is pushed; --strict-modules refuses/);
    expect(r.err).not.toContain('s3cr3t-token');
    const main = readFileSync(join(dir, 'main.tf'), 'utf8');
    expect(main).toContain('resource "kubernetes_persistent_volume_claim_v1" "cache" {}');
    expect(main).toContain('source = "git::https://deploy:s3cr3t-token@git.example.com/infra/home-volume.git?ref=v1.2.0"');
  });

  test('--allow-remote-modules is still accepted (the default now), with a note', async () => {
    write('main.tf', ROOT);
    const r = await run('template', 'rewrite', dir, '--allow-remote-modules');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.err).toContain('note: --allow-remote-modules is the default now and does nothing');
  });

  test("a template like Coder's registry ones (kubernetes-devcontainer: registry.coder.com code-server and jetbrains) rewrites by default", async () => {
    const fixture = join(__dirname, '..', 'fixtures', 'hcl', 'templates', 'registry-modules');
    write('main.tf', readFileSync(join(fixture, 'main.tf'), 'utf8'));
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    const main = readFileSync(join(dir, 'main.tf'), 'utf8');
    expect(main).toContain('resource "kubernetes_persistent_volume_claim_v1" "workspaces"');
    expect(main).toContain('resource "kubernetes_deployment_v1" "main"');
    expect(main).toContain('claim_name = kubernetes_persistent_volume_claim_v1.workspaces.metadata.0.name');
    expect(main).toContain('source   = "registry.coder.com/coder/code-server/coder"');
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(true);
    expect(r.err).toMatch(/2 module\(s\) not inspected.*\n  module\.code-server .*\n  module\.jetbrains /);
  });

  test('local modules only: no refusal', async () => {
    write('main.tf', 'module "app" {\n  source = "./modules/app"\n}\n');
    write('modules/app/main.tf', 'resource "kubernetes_pod_v1" "p" {}\n');
    const r = await run('template', 'rewrite', dir);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('Nothing to change: the template uses only versioned types.');
  });
});
