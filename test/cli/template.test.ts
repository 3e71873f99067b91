import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CliRun } from '../harness/cli';
import { registerTemplateCommands } from '../../src/cli/commands/template';
import { EXIT } from '../../src/cli/io';

const TEMPLATES = join(__dirname, '..', 'fixtures', 'hcl', 'templates');

const run = (...args: string[]): Promise<CliRun> => runCommand(registerTemplateCommands, ...args);

let work: string;
const copyOf = (name: string): string => {
  const dir = join(work, name);
  cpSync(join(TEMPLATES, name), dir, { recursive: true });
  return dir;
};
const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'wsmigrate-cli-template-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('wsmigrate template rewrite', () => {
  test('by default prints the report and the changed lines, writes nothing, exits 0', async () => {
    const dir = copyOf('coder-k8s');
    const before = read(dir, 'main.tf');
    const r = await run('template', 'rewrite', dir);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain(
      ['main.tf:25', '  - resource "kubernetes_persistent_volume_claim" "home" {', '  + resource "kubernetes_persistent_volume_claim_v1" "home" {'].join('\n'),
    );
    expect(r.out).toContain('modules/cache/main.tf:9');
    expect(r.out).toMatch(/wsmigrate_guards\.tf: removed .* guards on the old addresses:\n {2}kubernetes_persistent_volume_claim\.home\n/);
    expect(r.out).toContain('main.tf:42  kubernetes_secret.ssh  (# wsmigrate:protect)');
    expect(r.out).toContain('Dry run: nothing written.');
    expect(read(dir, 'main.tf')).toBe(before);
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(false);
  });

  test('names why each resource is protected: a stateful set that deletes its claims, the namespace holding them', async () => {
    const dir = join(work, 'sts');
    cpSync(join(TEMPLATES, 'coder-k8s'), dir, { recursive: true });
    writeFileSync(
      join(dir, 'db.tf'),
      [
        'resource "kubernetes_namespace" "db" {}',
        'resource "kubernetes_stateful_set" "db" {',
        '  metadata { namespace = kubernetes_namespace.db.metadata[0].name }',
        '  spec {',
        '    persistent_volume_claim_retention_policy { when_deleted = "Delete" }',
        '    volume_claim_template { metadata { name = "data" } }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const r = await run('template', 'rewrite', dir);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('db.tf:2  kubernetes_stateful_set.db  (stateful set whose claims Kubernetes deletes with it: when_deleted = "Delete")');
    expect(r.out).toContain("db.tf:1  kubernetes_namespace.db  (namespace holding a protected resource or a stateful set's claims: deleting it deletes them)");
    expect(r.out).toMatch(/guards on the old addresses:\n(  \S+\n)*  kubernetes_stateful_set\.db\n/);
  });

  test('--check exits 4 while a rewrite is pending', async () => {
    const dir = copyOf('coder-k8s');
    const r = await run('template', 'rewrite', dir, '--check');
    expect(r.exitCode).toBe(EXIT.changesPending);
    // The same count as the report's first line (the template's own files); the guard file named apart.
    expect(r.out).toMatch(/ in 2 file\(s\), /);
    expect(r.err).toContain(`2 file(s) still need rewriting and wsmigrate_guards.tf is to be written: run wsmigrate template rewrite ${dir} --write`);
  });

  test('--write rewrites in place, adds the guard file, and a later --check passes', async () => {
    const dir = copyOf('coder-k8s');
    const readme = read(dir, 'README.md');
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('Wrote main.tf, modules/cache/main.tf, wsmigrate_guards.tf.');
    expect(read(dir, 'main.tf')).toContain('resource "kubernetes_deployment_v1" "main" {');
    expect(read(dir, 'wsmigrate_guards.tf')).toContain('from = kubernetes_persistent_volume_claim.home');
    expect(read(dir, 'README.md')).toBe(readme);

    const again = await run('template', 'rewrite', dir, '--check');
    expect(again.exitCode).toBe(EXIT.ok);
    expect(again.out).toContain('Nothing to change');
  });

  test('exits 3 when DIFFERENT types are refused, and still writes the SAME renames with --write', async () => {
    const dir = copyOf('coder-k8s-ingress');
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.out).toMatch(/main\.tf:7 {2}kubernetes_ingress: kubernetes_ingress and kubernetes_ingress_v1 are different implementations/);
    expect(r.err).toMatch(/refused .*\(kubernetes_ingress\).*--rename-different/);
    expect(read(dir, 'main.tf')).toContain('resource "kubernetes_service_v1" "web"');
    expect(read(dir, 'main.tf')).toContain('resource "kubernetes_ingress" "web"');
  });

  test('--rename-different renames those too', async () => {
    const dir = copyOf('coder-k8s-ingress');
    const r = await run('template', 'rewrite', dir, '--write', '--rename-different');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(read(dir, 'main.tf')).toContain('resource "kubernetes_ingress_v1" "web"');
  });

  test('--json prints the report and the changed lines as JSON', async () => {
    const dir = copyOf('coder-k8s');
    const r = await run('template', 'rewrite', dir, '--json', '--check');
    expect(r.exitCode).toBe(EXIT.changesPending);
    const parsed = JSON.parse(r.out);
    expect(parsed.mode).toBe('check');
    expect(parsed.report.changedFiles).toEqual(['main.tf', 'modules/cache/main.tf', 'wsmigrate_guards.tf']);
    expect(parsed.report.guards).toContainEqual({ from: 'module.cache.kubernetes_persistent_volume_claim.cache' });
    expect(parsed.diff).toContainEqual({
      file: 'main.tf',
      line: 49,
      old: 'resource "kubernetes_deployment" "main" {',
      new: 'resource "kubernetes_deployment_v1" "main" {',
    });
    expect(parsed.written).toEqual([]);
  });

  test('--guard-file names the guard file', async () => {
    const dir = copyOf('coder-k8s');
    await run('template', 'rewrite', dir, '--write', '--guard-file', 'zz_guards.tf');
    expect(existsSync(join(dir, 'zz_guards.tf'))).toBe(true);
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(false);
  });

  test('a syntax error exits 1 and names the file and line', async () => {
    const dir = copyOf('coder-k8s');
    writeFileSync(join(dir, 'broken.tf'), 'locals {\n  a = 1\n}\n/* never closed\n');
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.err).toContain(`${join(dir, 'broken.tf')}:4: unterminated comment`);
    expect(read(dir, 'main.tf')).toContain('"kubernetes_deployment"');
  });

  test('a hashicorp/kubernetes pin older than the _v1 types (2.7.0) exits 1 naming it, and writes nothing', async () => {
    const dir = copyOf('coder-k8s');
    writeFileSync(join(dir, 'versions.tf'), 'terraform {\n  required_providers {\n    kubernetes = {\n      source  = "hashicorp/kubernetes"\n      version = "~> 2.6.0"\n    }\n  }\n}\n');
    const r = await run('template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.err).toContain('versions.tf:5: required_providers pins hashicorp/kubernetes to "~> 2.6.0": no release it allows has the _v1 types');
    expect(read(dir, 'main.tf')).toContain('"kubernetes_deployment"');
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(false);
  });

  test('a folder without Terraform files, or no folder at all, exits 1', async () => {
    expect((await run('template', 'rewrite', join(work, 'missing'))).exitCode).toBe(EXIT.failure);
    writeFileSync(join(work, 'notes.txt'), 'hi');
    const r = await run('template', 'rewrite', work);
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.err).toContain('no .tf or .tf.json files');
  });

  test('--check with --write is a usage error', async () => {
    const dir = copyOf('coder-k8s');
    expect((await run('template', 'rewrite', dir, '--check', '--write')).exitCode).toBe(EXIT.usage);
  });

  test('--help teaches what it does, the protect rule, an example and the exit codes', async () => {
    const r = await run('template', 'rewrite', '--help');
    expect(r.out).toContain('# wsmigrate:protect');
    expect(r.out).toContain('A blank line between that comment and the resource block does NOT count.');
    expect(r.out).toContain('wsmigrate template rewrite ./k8s-template --write');
    expect(r.out).toMatch(/Exit codes:\n {2}0 .*\n {2}3 .*refused.*\n {2}4 .*--check/);
  });
});

describe('wsmigrate template rewrite --zero-touch', () => {
  test('--write writes the _v1 template and wsmigrate_zero_touch.tf, no guard file; the report lists the adopted resources', async () => {
    const dir = join(work, 'zt');
    cpSync(join(__dirname, '..', 'fixtures', 'sim', 'template-v1'), dir, { recursive: true });
    const { K8S_TEMPLATE_MAIN_TF } = await import('../../src/sim/template-source');
    writeFileSync(join(dir, 'main.tf'), K8S_TEMPLATE_MAIN_TF);
    const r = await run('template', 'rewrite', dir, '--zero-touch', '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toContain('kubernetes_deployment.main -> kubernetes_deployment_v1.main[0]  (Deployment)');
    expect(read(dir, 'wsmigrate_zero_touch.tf')).toContain('to       = kubernetes_persistent_volume_claim_v1.home');
    expect(existsSync(join(dir, 'wsmigrate_guards.tf'))).toBe(false);
  });

  test('exits 3 naming the resource whose name is only known after apply, and writes nothing', async () => {
    const dir = join(work, 'zt-refused');
    cpSync(join(__dirname, '..', 'fixtures', 'sim', 'template-v1'), dir, { recursive: true });
    const main = 'resource "kubernetes_secret" "token" {\n  metadata {\n    name = "t-${random_id.x.hex}"\n  }\n}\n';
    writeFileSync(join(dir, 'main.tf'), main);
    const r = await run('template', 'rewrite', dir, '--zero-touch', '--write');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(/main\.tf:1: kubernetes_secret\.token: its metadata\.name uses random_id\.x/);
    expect(read(dir, 'main.tf')).toBe(main);
    expect(existsSync(join(dir, 'wsmigrate_zero_touch.tf'))).toBe(false);
  });
});
