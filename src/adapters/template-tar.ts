import { extract, pack } from 'tar-stream';
import { Readable } from 'node:stream';

/** One file of a template version's source archive. Binary files stay bytes; only text is decoded for rewriting. */
export interface ArchiveFile {
  path: string;
  bytes: Buffer;
  mode?: number;
}

const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024; // Coder's own upload limit

export async function readTar(archive: Buffer): Promise<ArchiveFile[]> {
  if (archive.length > MAX_ARCHIVE_BYTES) throw new Error(`template archive is ${archive.length} bytes, over Coder's 100 MiB limit`);
  const files: ArchiveFile[] = [];
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file' || header.type === 'contiguous-file') {
          const path = header.name.replace(/^\.\//, '');
          if (path.split('/').includes('..') || path.startsWith('/')) {
            reject(new Error(`template archive has an unsafe path '${header.name}'; refusing to read it`));
            return;
          }
          files.push({ path, bytes: Buffer.concat(chunks), mode: header.mode });
        }
        next();
      });
      stream.on('error', reject);
    });
    ex.on('finish', resolve);
    ex.on('error', (err: Error) => reject(new Error(`template archive is not a readable tar: ${err.message}`)));
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

/** Terraform source files, the only ones the rewriter reads. */
export function isTerraformSource(path: string): boolean {
  return TEXT_EXTENSIONS.some((ext) => path.endsWith(ext));
}
