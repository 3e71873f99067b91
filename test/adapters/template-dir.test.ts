import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTemplateDir, writeTemplateFiles } from '../../src/adapters/template-dir';

let dir: string;
let outside: string;

function put(rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), content);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsmigrate-tpl-'));
  outside = mkdtempSync(join(tmpdir(), 'wsmigrate-outside-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('readTemplateDir', () => {
  test('reads text files recursively, sorted, and skips Terraform data, VCS, state, binaries and outside links', async () => {
    put('main.tf', 'resource "kubernetes_pod" "p" {}\n');
    put('modules/vol/main.tf', 'locals {}\n');
    put('README.md', '# hi\n');
    put('.terraform/providers/x.tf', 'ignored\n');
    put('.git/config', 'ignored\n');
    put('terraform.tfstate', '{}');
    put('terraform.tfstate.backup', '{}');
    put('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    put('.terraform.lock.hcl', '# lock\n');
    writeFileSync(join(outside, 'secret.tf'), 'outside\n');
    symlinkSync(join(outside, 'secret.tf'), join(dir, 'linked-outside.tf'));
    symlinkSync(join(dir, 'README.md'), join(dir, 'linked-inside.md'));
    symlinkSync(join(dir, 'modules'), join(dir, 'modules-link'));

    const files = await readTemplateDir(dir);
    expect(files.map((f) => f.path)).toEqual(['.terraform.lock.hcl', 'README.md', 'linked-inside.md', 'main.tf', 'modules/vol/main.tf']);
    expect(files.find((f) => f.path === 'linked-inside.md')!.content).toBe('# hi\n');
  });

  test('keeps a BOM and CRLF line endings as they are', async () => {
    put('main.tf', '\uFEFFlocals {}\r\n');
    expect((await readTemplateDir(dir))[0].content).toBe('\uFEFFlocals {}\r\n');
  });

  test('a missing folder is an error that names it', async () => {
    await expect(readTemplateDir(join(dir, 'nope'))).rejects.toThrow(/nope does not exist or is not a folder/);
  });
});

describe('writeTemplateFiles', () => {
  test('with changedOnly, writes only files whose bytes differ, and creates new ones', async () => {
    put('same.tf', 'locals {}\n');
    put('changed.tf', 'locals { a = 1 }\n');
    const written = await writeTemplateFiles(
      dir,
      [
        { path: 'same.tf', content: 'locals {}\n' },
        { path: 'changed.tf', content: 'locals { a = 2 }\n' },
        { path: 'sub/new.tf', content: 'locals {}\n' },
      ],
      true,
    );
    expect(written).toEqual(['changed.tf', 'sub/new.tf']);
    expect(readFileSync(join(dir, 'changed.tf'), 'utf8')).toBe('locals { a = 2 }\n');
    expect(readFileSync(join(dir, 'sub/new.tf'), 'utf8')).toBe('locals {}\n');
  });

  test('without changedOnly, writes every file', async () => {
    put('same.tf', 'locals {}\n');
    expect(await writeTemplateFiles(dir, [{ path: 'same.tf', content: 'locals {}\n' }], false)).toEqual(['same.tf']);
  });

  test('leaves no temporary file behind and keeps the file mode', async () => {
    put('run.sh', '#!/bin/sh\n');
    chmodSync(join(dir, 'run.sh'), 0o755);
    await writeTemplateFiles(dir, [{ path: 'run.sh', content: '#!/bin/sh\necho hi\n' }], true);
    expect(readdirSync(dir)).toEqual(['run.sh']);
    expect(statSync(join(dir, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  test('writes through a symlink inside the folder and keeps the link', async () => {
    put('real.tf', 'locals {}\n');
    symlinkSync(join(dir, 'real.tf'), join(dir, 'link.tf'));
    await writeTemplateFiles(dir, [{ path: 'link.tf', content: 'locals { a = 1 }\n' }], true);
    expect(readlinkSync(join(dir, 'link.tf'))).toBe(join(dir, 'real.tf'));
    expect(readFileSync(join(dir, 'real.tf'), 'utf8')).toBe('locals { a = 1 }\n');
  });

  test('refuses paths that leave the folder, and symlinks that point outside it', async () => {
    await expect(writeTemplateFiles(dir, [{ path: '../escape.tf', content: 'x' }], false)).rejects.toThrow(/Refusing to write "\.\.\/escape\.tf"/);
    await expect(writeTemplateFiles(dir, [{ path: '/etc/x.tf', content: 'x' }], false)).rejects.toThrow(/must be relative/);
    writeFileSync(join(outside, 'target.tf'), 'outside\n');
    symlinkSync(join(outside, 'target.tf'), join(dir, 'out.tf'));
    await expect(writeTemplateFiles(dir, [{ path: 'out.tf', content: 'x' }], false)).rejects.toThrow(/outside the template folder/);
    expect(readFileSync(join(outside, 'target.tf'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(dir, '..', 'escape.tf'))).toBe(false);
  });
});
