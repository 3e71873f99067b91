import { readTar, writeTar } from '../adapters/template-tar';

/** A template file as the simulator handles it: text, named by its path in the archive. */
export interface ArchiveFile {
  name: string;
  content: string;
}

/** A ustar archive, as `coder templates push` uploads (pax may cause problems for Coder). */
export async function packTar(files: readonly ArchiveFile[]): Promise<Buffer> {
  return writeTar(files.map((f) => ({ path: f.name, bytes: Buffer.from(f.content, 'utf8') })));
}

/** The regular files of a tar archive; throws when the bytes are not a tar. */
export async function unpackTar(bytes: Buffer): Promise<ArchiveFile[]> {
  return (await readTar(bytes)).map((f) => ({ name: f.path, content: f.bytes.toString('utf8') }));
}
