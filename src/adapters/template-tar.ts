import { extract, pack } from 'tar-stream';
import { Readable } from 'node:stream';

/** One file of a template version's source archive. Binary files stay bytes; only text is decoded for rewriting. */
export interface ArchiveFile {
  path: string;
  bytes: Buffer;
  mode?: number;
}

/** The archive itself is unusable (too big, not a tar, a path or link leaving the folder): no retry helps. */
export class TemplateArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateArchiveError';
  }
}

const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024; // Coder's own upload limit

/** A symlink or hard link whose target lies outside the archive's folder, described; undefined otherwise. */
function linkLeavingArchive(header: { type?: string | null; name: string; linkname?: string | null }): string | undefined {
  if ((header.type !== 'symlink' && header.type !== 'link') || !header.linkname) return undefined;
  const target = header.linkname;
  const what = `a ${header.type === 'symlink' ? 'symlink' : 'hard link'} '${header.name}' -> '${target}' that leaves the template folder`;
  if (target.startsWith('/')) return what;
  // A symlink resolves from its own folder, a hard link from the archive root.
  const parts = header.type === 'symlink' ? header.name.replace(/^\.\//, '').split('/').slice(0, -1) : [];
  for (const part of target.split('/')) {
    if (part === '..') {
      if (parts.length === 0) return what;
      parts.pop();
    } else if (part !== '.' && part !== '') parts.push(part);
  }
  return undefined;
}

export async function readTar(archive: Buffer): Promise<ArchiveFile[]> {
  if (archive.length > MAX_ARCHIVE_BYTES) throw new TemplateArchiveError(`template archive is ${archive.length} bytes, over Coder's 100 MiB limit`);
  const files: ArchiveFile[] = [];
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        const escape = linkLeavingArchive(header);
        if (escape) {
          reject(new TemplateArchiveError(`template archive has ${escape}; refusing to read it. Replace the link with the file it points to (or drop it) and push the template again`));
          return;
        }
        if (header.type === 'file' || header.type === 'contiguous-file') {
          const path = header.name.replace(/^\.\//, '');
          if (path.split('/').includes('..') || path.startsWith('/')) {
            reject(new TemplateArchiveError(`template archive has an unsafe path '${header.name}'; refusing to read it`));
            return;
          }
          files.push({ path, bytes: Buffer.concat(chunks), mode: header.mode });
        }
        next();
      });
      stream.on('error', reject);
    });
    ex.on('finish', resolve);
    ex.on('error', (err: Error) => reject(new TemplateArchiveError(`template archive is not a readable tar: ${err.message}`)));
  });
  Readable.from(archive).pipe(ex);
  await done;
  return files;
}

/** A ustar archive (Coder warns that pax may cause problems), entries in the given order, fixed mtime so equal input gives equal bytes. */
export async function writeTar(files: ArchiveFile[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const collected = new Promise<Buffer>((resolve, reject) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve(Buffer.concat(chunks)));
    p.on('error', reject);
  });
  for (const f of files) {
    p.entry({ name: f.path, size: f.bytes.length, mode: f.mode ?? 0o644, mtime: new Date(0), type: 'file' }, f.bytes);
  }
  p.finalize();
  return collected;
}

const TEXT_EXTENSIONS = ['.tf', '.tf.json', '.tftest.hcl', '.tfmock.hcl'];

/**
 * Terraform source files, the only ones the rewriter reads, and the root folder's dependency lock
 * file, which `terraform init` honours there (the rewrite refuses one that selects a provider
 * release without the _v1 types).
 */
export function isTerraformSource(path: string): boolean {
  return TEXT_EXTENSIONS.some((ext) => path.endsWith(ext)) || path === '.terraform.lock.hcl';
}
