import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { decrypt, DecryptionError, encrypt } from './crypto';

export interface BlobRef {
  /** 'sha256:<hex>' of the plaintext. */
  ref: string;
  sha256: string;
  size: number;
  encrypted: boolean;
}

export interface BlobMeta {
  kind: string;
  label?: string;
}

export interface BlobStore {
  /** Content-addressed by the sha256 of the plaintext; the same bytes always give the same ref. */
  put(bytes: Buffer, meta?: BlobMeta): Promise<BlobRef>;
  /** The exact bytes that were put, checked against the ref's sha256. */
  get(ref: string): Promise<Buffer>;
  has(ref: string): Promise<boolean>;
}

export class BlobNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobNotFoundError';
  }
}

/** The blob exists but cannot be trusted: corrupt, swapped, written with another key, or encrypted and no key set. */
export class BlobUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobUnreadableError';
  }
}

/** Every blob file starts with this magic and one mode byte, so a store can hold plain and encrypted blobs. */
const MAGIC = Buffer.from('WSMB', 'ascii');
const MODE_PLAIN = 0;
const MODE_AES_256_GCM = 1;
const HEADER_BYTES = MAGIC.length + 1;
const REF_PATTERN = /^sha256:([0-9a-f]{64})$/;

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function parseRef(ref: string): string {
  const match = REF_PATTERN.exec(ref);
  if (!match) {
    throw new Error(`not a blob ref: ${JSON.stringify(ref.slice(0, 80))}; expected 'sha256:' followed by 64 lowercase hex characters`);
  }
  return match[1];
}

/** Binds a ciphertext to its content hash, so one blob file copied over another fails to decrypt. */
function aadFor(hex: string): Buffer {
  return Buffer.from(`wsmigrate-blob:v1:sha256:${hex}`, 'utf8');
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}

type Decoded = { ok: true; bytes: Buffer; encrypted: boolean } | { ok: false; encrypted: boolean; problem: string; needsKey?: boolean };

/**
 * A directory of content-addressed blobs (`<dir>/sha256/<hex>`), encrypted at rest with
 * AES-256-GCM when a key is given. Writes are atomic (temp file, fsync, rename, fsync dir), so a
 * crash leaves either the whole blob or none; the directory is 0700 and the files 0600.
 */
export function createFileBlobStore(opts: { dir: string; encryptionKey?: Buffer }): BlobStore {
  const objectsDir = join(opts.dir, 'sha256');
  const key = opts.encryptionKey;
  if (key && key.length !== 32) {
    throw new Error(`blob store ${opts.dir}: the encryption key must be 32 bytes, got ${key.length}; generate one with: openssl rand -hex 32`);
  }
  const pathOf = (hex: string) => join(objectsDir, hex);
  const describe = (hex: string) => `blob sha256:${hex} (${pathOf(hex)})`;

  async function ensureDirs(): Promise<void> {
    const created = await mkdir(objectsDir, { recursive: true, mode: 0o700 });
    // Only tighten directories this store created; WSMIGRATE_BLOB_DIR may point into a shared parent.
    if (created !== undefined) await chmod(opts.dir, 0o700).catch(() => undefined);
    await chmod(objectsDir, 0o700);
  }

  async function writeAtomically(path: string, content: Buffer): Promise<void> {
    const temp = join(objectsDir, `.tmp-${randomBytes(8).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, path);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await fsyncDirectory(objectsDir);
  }

  function decode(hex: string, file: Buffer): Decoded {
    const corrupt = (what: string) => `${describe(hex)} ${what}; do not restore from it: find another copy of this backup`;
    if (file.length < HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) {
      return { ok: false, encrypted: false, problem: corrupt('is not a wsmigrate blob file (bad header)') };
    }
    const mode = file[MAGIC.length];
    const body = file.subarray(HEADER_BYTES);
    let bytes: Buffer;
    if (mode === MODE_PLAIN) {
      bytes = body;
    } else if (mode === MODE_AES_256_GCM) {
      if (!key) {
        return {
          ok: false,
          encrypted: true,
          needsKey: true,
          problem: `${describe(hex)} is encrypted at rest but WSMIGRATE_ENCRYPTION_KEY is not set; set it to the key the blob was written with`,
        };
      }
      try {
        bytes = decrypt(key, body, aadFor(hex), describe(hex));
      } catch (err) {
        if (err instanceof DecryptionError) {
          return { ok: false, encrypted: true, problem: `${err.message}; check the key against the worker that wrote it, else find another copy of this backup` };
        }
        throw err;
      }
    } else {
      return { ok: false, encrypted: false, problem: corrupt(`has unknown storage mode ${mode} (written by a newer wsmigrate, or damaged)`) };
    }
    const actual = sha256Hex(bytes);
    if (actual !== hex) {
      return { ok: false, encrypted: mode === MODE_AES_256_GCM, problem: corrupt(`is corrupt: its content hashes to sha256:${actual}`) };
    }
    return { ok: true, bytes, encrypted: mode === MODE_AES_256_GCM };
  }

  async function readFileIfPresent(hex: string): Promise<Buffer | undefined> {
    try {
      return await readFile(pathOf(hex));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async function writeMetaOnce(hex: string, size: number, encrypted: boolean, meta: BlobMeta | undefined): Promise<void> {
    if (!meta) return;
    const metaPath = `${pathOf(hex)}.json`;
    // Content-addressed: the first writer's description stands; it is a hint for operators browsing the directory.
    const exists = await stat(metaPath).then(
      () => true,
      () => false,
    );
    if (exists) return;
    const record = { ref: `sha256:${hex}`, size, encrypted, kind: meta.kind, label: meta.label, storedAt: new Date().toISOString() };
    await writeAtomically(metaPath, Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'));
  }

  return {
    async put(bytes, meta) {
      const hex = sha256Hex(bytes);
      const refOf = (encrypted: boolean): BlobRef => ({ ref: `sha256:${hex}`, sha256: hex, size: bytes.length, encrypted });
      await ensureDirs();
      const existing = await readFileIfPresent(hex);
      if (existing) {
        const decoded = decode(hex, existing);
        if (decoded.ok && (decoded.encrypted || !key)) {
          await writeMetaOnce(hex, bytes.length, decoded.encrypted, meta);
          return refOf(decoded.encrypted);
        }
        if (!decoded.ok && decoded.needsKey) {
          // A backup this process cannot read back is no backup; and writing plaintext beside it would undo the encryption.
          throw new Error(`cannot store: ${decoded.problem}`);
        }
        // Otherwise the file is unreadable or a plaintext copy while we hold a key: we have the exact
        // bytes in hand, so replacing it with a verified (encrypted) copy loses nothing.
      }
      const content = key
        ? Buffer.concat([MAGIC, Buffer.from([MODE_AES_256_GCM]), encrypt(key, bytes, aadFor(hex))])
        : Buffer.concat([MAGIC, Buffer.from([MODE_PLAIN]), bytes]);
      await writeAtomically(pathOf(hex), content);
      await writeMetaOnce(hex, bytes.length, key !== undefined, meta);
      return refOf(key !== undefined);
    },

    async get(ref) {
      const hex = parseRef(ref);
      const file = await readFileIfPresent(hex);
      if (!file) {
        throw new BlobNotFoundError(
          `${describe(hex)} does not exist; check WSMIGRATE_BLOB_DIR points at the store the backup was written to`,
        );
      }
      const decoded = decode(hex, file);
      if (!decoded.ok) {
        throw new BlobUnreadableError(decoded.problem);
      }
      return decoded.bytes;
    },

    async has(ref) {
      const hex = parseRef(ref);
      return stat(pathOf(hex)).then(
        (s) => s.isFile(),
        () => false,
      );
    },
  };
}
