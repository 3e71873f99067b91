import { pack as tarPack, extract as tarExtract } from 'tar-stream';

export interface ArchiveFile {
  name: string;
  content: string;
}

/** A ustar archive, as `coder templates push` uploads (pax may cause problems for Coder). */
export async function packTar(files: readonly ArchiveFile[]): Promise<Buffer> {
  const archive = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on('data', (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  for (const file of files) {
    archive.entry({ name: file.name, mode: 0o644, mtime: new Date(0) }, file.content);
  }
  archive.finalize();
  return done;
}

/** The regular files of a tar archive; throws when the bytes are not a tar. */
export async function unpackTar(bytes: Buffer): Promise<ArchiveFile[]> {
  const files: ArchiveFile[] = [];
  const extractor = tarExtract();
  const done = new Promise<ArchiveFile[]>((resolve, reject) => {
    extractor.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => {
        chunks.push(chunk as Buffer);
      });
      stream.on('end', () => {
        if (header.type === 'file' || header.type === 'contiguous-file') {
          files.push({ name: header.name, content: Buffer.concat(chunks).toString('utf8') });
        }
        next();
      });
      stream.resume();
    });
    extractor.on('finish', () => resolve(files));
    extractor.on('error', reject);
  });
  extractor.end(bytes);
  return done;
}
