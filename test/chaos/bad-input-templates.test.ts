import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pack } from 'tar-stream';
import { registerTemplateCommands } from '../../src/cli/commands/template';
import { EXIT } from '../../src/cli/io';
import { readTar } from '../../src/adapters/template-tar';
import { runCommand } from '../harness/cli';

// Bad templates: `wsmigrate template rewrite DIR --write` refuses each with the file and line and
// writes nothing; archives pulled from Coder are refused before any file is read.
const PVC = 'resource "kubernetes_persistent_volume_claim" "home" {\n  metadata {\n    name = "home"\n  }\n}\n';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'wsmigrate-bad-tpl-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function templateDir(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'utf8')]));

async function expectRefused(name: string, files: Record<string, string>, ...messages: RegExp[]) {
  const dir = templateDir(name, files);
  const before = snapshot(dir);
  const r = await runCommand(registerTemplateCommands, 'template', 'rewrite', dir, '--write');
  expect(r.exitCode).toBe(EXIT.failure);
  for (const m of messages) expect(r.err).toMatch(m);
  expect(snapshot(dir)).toEqual(before); // nothing written, no guard file
}

type Entry = { name: string; type?: 'file' | 'symlink' | 'link'; linkname?: string; content?: string };
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve(Buffer.concat(chunks)));
    p.on('error', reject);
  });
  for (const e of entries) {
    if (e.type === 'symlink' || e.type === 'link') p.entry({ name: e.name, type: e.type, linkname: e.linkname });
    else p.entry({ name: e.name }, e.content ?? '');
  }
  p.finalize();
  return done;
}

describe('bad input: templates', () => {
  it('an HCL syntax error (a block never closed)', async () => {
    await expectRefused('syntax', { 'main.tf': `${PVC}resource "kubernetes_deployment" "main" {\n  spec {\n` }, /main\.tf:\d+: expected a closing `}`/);
  });

  it('an HCL syntax error (a stray brace)', async () => {
    await expectRefused('brace', { 'main.tf': `${PVC}resource "kubernetes_deployment" {{ "main"\n` }, /main\.tf:6: expected an attribute or a block but found `{`/);
  });

  it('an unterminated heredoc', async () => {
    await expectRefused('heredoc', { 'main.tf': `${PVC}locals {\n  script = <<EOT\necho hi\n` }, /main\.tf:\d+: unterminated heredoc: no line holding only `EOT` closes `<<EOT`/);
  });

  it('an unterminated block comment', async () => {
    await expectRefused('comment', { 'main.tf': `${PVC}/* never closed\nresource "kubernetes_deployment" "x" {}\n` }, /main\.tf:6: unterminated comment/);
  });

  it('a .tf.json file that is not valid JSON', async () => {
    await expectRefused('tfjson-bad', { 'main.tf': PVC, 'extra.tf.json': '{"resource": {' }, /extra\.tf\.json:1: invalid JSON/);
  });

  it('a template archive with a ../ path', async () => {
    await expect(readTar(await tarOf([{ name: 'main.tf', content: PVC }, { name: '../../etc/cron.d/x.tf', content: 'x' }]))).rejects.toThrow(/unsafe path '..\/..\/etc\/cron.d\/x.tf'; refusing to read it/);
  });

  it('a template archive with an absolute path', async () => {
    await expect(readTar(await tarOf([{ name: '/etc/passwd.tf', content: 'x' }]))).rejects.toThrow(/unsafe path/);
  });

  it('a template archive with a symlink leaving the folder', async () => {
    await expect(readTar(await tarOf([{ name: 'main.tf', content: PVC }, { name: 'modules/creds.tf', type: 'symlink', linkname: '../../../home/coder/.kube/config' }]))).rejects.toThrow(
      /symlink 'modules\/creds.tf' -> '..\/..\/..\/home\/coder\/.kube\/config' that leaves the template folder.*Replace the link/,
    );
  });

  it('a template archive with an absolute symlink', async () => {
    await expect(readTar(await tarOf([{ name: 'secrets.tf', type: 'symlink', linkname: '/etc/shadow' }]))).rejects.toThrow(/symlink 'secrets.tf' -> '\/etc\/shadow' that leaves the template folder/);
  });

  it('a template archive with a hard link leaving the folder', async () => {
    await expect(readTar(await tarOf([{ name: 'x.tf', type: 'link', linkname: '../outside.tf' }]))).rejects.toThrow(/hard link 'x.tf' -> '..\/outside.tf' that leaves the template folder/);
  });

  it('a template archive over 100 MB', async () => {
    await expect(readTar(Buffer.alloc(100 * 1024 * 1024 + 1))).rejects.toThrow(/over Coder's 100 MiB limit/);
  });

  it('bytes that are not a tar archive', async () => {
    await expect(readTar(Buffer.from('<html><body>502 Bad Gateway</body></html>'.repeat(20)))).rejects.toThrow(/not a readable tar/);
  });
});

describe('bad input: templates, accepted', () => {
  it('a valid .tf.json template is renamed and guarded like HCL', async () => {
    const dir = templateDir('tfjson', { 'main.tf.json': JSON.stringify({ resource: { kubernetes_persistent_volume_claim: { home: { metadata: [{ name: 'home' }] } } } }, null, 2) });
    const r = await runCommand(registerTemplateCommands, 'template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(JSON.parse(readFileSync(join(dir, 'main.tf.json'), 'utf8')).resource).toHaveProperty('kubernetes_persistent_volume_claim_v1');
    expect(readFileSync(join(dir, 'wsmigrate_guards.tf'), 'utf8')).toMatch(/from\s*=\s*kubernetes_persistent_volume_claim\.home/);
  });

  it('a deprecated type used only inside a local module is renamed, and its guard carries the module address', async () => {
    const dir = templateDir('module', { 'main.tf': 'module "storage" {\n  source = "./storage"\n}\n', 'storage/main.tf': PVC });
    const r = await runCommand(registerTemplateCommands, 'template', 'rewrite', dir, '--write');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(readFileSync(join(dir, 'storage', 'main.tf'), 'utf8')).toContain('resource "kubernetes_persistent_volume_claim_v1" "home"');
    expect(readFileSync(join(dir, 'wsmigrate_guards.tf'), 'utf8')).toMatch(/from\s*=\s*module\.storage\.kubernetes_persistent_volume_claim\.home/);
  });

  it('a symlink that stays inside the archive is not an error', async () => {
    const files = await readTar(await tarOf([{ name: 'main.tf', content: PVC }, { name: 'modules/main.tf', type: 'symlink', linkname: '../main.tf' }]));
    expect(files.map((f) => f.path)).toEqual(['main.tf']);
  });
});
