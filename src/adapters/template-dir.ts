import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readFile, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { TemplateFile } from '../domain/template-rewrite';

/** Folders that hold Terraform's own working data or VCS history, never template source. */
const SKIPPED_DIRS = new Set(['.terraform', '.git']);
// ignoreBOM keeps a leading BOM in the text, so a file written back keeps its bytes.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text files of a template folder, recursively, sorted by path ('/' separators).
 * Skips .terraform/ and .git/, state files (*.tfstate*), symlinks that point outside the folder,
 * symlinked folders (their real location is read if it is inside), and files that are not UTF-8
 * text (binaries are never rewritten, so they are never written back either).
 */
export async function readTemplateDir(dir: string): Promise<TemplateFile[]> {
  const root = await realTemplateRoot(dir);
  const files: TemplateFile[] = [];

  const walk = async (relDir: string): Promise<void> => {
    const entries = await readdir(join(root, relDir), { withFileTypes: true });
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      const abs = join(root, rel);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(rel);
        continue;
      }
      if (entry.name.includes('.tfstate')) continue;
      let target = abs;
      if (entry.isSymbolicLink()) {
        const resolved = await realpath(abs).catch(() => undefined);
        if (resolved === undefined || !isInside(root, resolved)) continue;
        if ((await stat(resolved)).isDirectory()) continue;
        target = resolved;
      } else if (!entry.isFile()) {
        continue;
      }
      const text = decodeText(await readFile(target));
      if (text !== undefined) files.push({ path: rel, content: text });
    }
  };

  await walk('');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Writes `files` into `dir`, each atomically (a temporary file in the same folder, then a rename),
 * keeping an existing file's permissions and writing through a symlink to its target.
 * With `changedOnly`, a file whose bytes on disk already match is left alone. Returns the paths written.
 */
export async function writeTemplateFiles(dir: string, files: readonly TemplateFile[], changedOnly: boolean): Promise<string[]> {
  const root = await realTemplateRoot(dir);
  const written: string[] = [];
  for (const file of files) {
    const target = await writableTarget(root, file.path);
    const existing = await lstat(target).catch(() => undefined);
    if (changedOnly && existing) {
      const onDisk = await readFile(target);
      if (onDisk.equals(Buffer.from(file.content, 'utf8'))) continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeAtomically(target, file.content, existing ? existing.mode & 0o7777 : 0o644);
    written.push(file.path);
  }
  return written;
}

async function realTemplateRoot(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new Error(`Template folder ${dir} does not exist or is not a folder. Pass the folder that holds the template's .tf files.`);
  }
  return realpath(dir);
}

/** The file to write for a template-relative path; refuses paths that would land outside the template. */
async function writableTarget(root: string, path: string): Promise<string> {
  const parts = path.split('/');
  if (path === '' || isAbsolute(path) || path.includes('\\') || parts.some((p) => p === '..' || p === '')) {
    throw new Error(`Refusing to write "${path}": template file paths must be relative, use '/' separators and stay inside the template folder.`);
  }
  const abs = join(root, ...parts);
  const link = await lstat(abs).catch(() => undefined);
  if (!link?.isSymbolicLink()) return abs;
  const resolved = await realpath(abs);
  if (!isInside(root, resolved)) {
    throw new Error(`Refusing to write "${path}": it is a symlink to ${resolved}, outside the template folder.`);
  }
  return resolved;
}

async function writeAtomically(target: string, content: string, mode: number): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.wsmigrate-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.chmod(mode);
    await handle.sync();
  } catch (e) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  await handle.close();
  try {
    await rename(temp, target);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

function decodeText(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
