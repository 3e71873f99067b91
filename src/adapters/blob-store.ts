import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { decodeBlob, encodeBlob } from './blob-codec';
import { blobKey, formatBlobRef, formatLocation, parseBlobRef } from '../domain/blob-ref';
import { sha256Hex } from './hash';

export type { BlobRef } from '../domain/blob-ref';
import type { BlobRef } from '../domain/blob-ref';

export type { BlobMeta, BlobRecord, BlobStore, StoredBlob } from '../ports/blob-store';
import type { BlobMeta, BlobRecord, BlobStore, StoredBlob } from '../ports/blob-store';

/** A blob store failure that names the store and the key, so an operator can go and look. */
export class BlobStoreError extends Error {
  constructor(
    message: string,
    readonly location: string,
    readonly key: string,
  ) {
    super(message);
    this.name = 'BlobStoreError';
  }
}

export class BlobNotFoundError extends BlobStoreError {
  constructor(message: string, location: string, key: string) {
    super(message, location, key);
    this.name = 'BlobNotFoundError';
  }
}

/** The blob exists but cannot be trusted: corrupt, swapped, written with another key, or encrypted and no key set. */
export class BlobUnreadableError extends BlobStoreError {
  constructor(message: string, location: string, key: string) {
    super(message, location, key);
    this.name = 'BlobUnreadableError';
  }
}

/** The store did not answer (down, unreachable, 5xx): worth retrying. */
export class BlobStoreUnavailableError extends BlobStoreError {
  constructor(message: string, location: string, key: string) {
    super(message, location, key);
    this.name = 'BlobStoreUnavailableError';
  }
}

/** The store refused us (credentials, permissions, no such bucket): no retry fixes it. */
export class BlobStoreAccessError extends BlobStoreError {
  constructor(message: string, location: string, key: string) {
    super(message, location, key);
    this.name = 'BlobStoreAccessError';
  }
}

export const BLOB_HEX = /^[0-9a-f]{64}$/;

/** One record per (blob, kind, label, workflow run): a retried put rewrites the same record. */
export function recordId(sha256: string, meta: BlobMeta): string {
  return sha256Hex(JSON.stringify([sha256, meta.kind, meta.label ?? '', meta.workflowId ?? '', meta.runId ?? ''])).slice(0, 16);
}

export function metaKey(sha256: string, id: string): string {
  return `meta/${sha256}/${id}.json`;
}

export function makeRecord(location: string, hex: string, size: number, encrypted: boolean, meta: BlobMeta, now: Date): BlobRecord {
  const record: BlobRecord = { ref: formatBlobRef(location, hex), sha256: hex, size, encrypted, kind: meta.kind, storedAt: now.toISOString() };
  for (const field of ['label', 'workspace', 'workflowId', 'runId'] as const) if (meta[field] !== undefined) record[field] = meta[field];
  return record;
}

/** Reads a record written by any wsmigrate; a damaged one is skipped rather than trusted. */
export function parseRecord(text: string): BlobRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<BlobRecord>;
    if (typeof r.sha256 !== 'string' || typeof r.kind !== 'string' || typeof r.storedAt !== 'string') return undefined;
    return r as BlobRecord;
  } catch {
    return undefined;
  }
}

/** The sha256 of a ref this store can read, or an error naming both stores when the ref lives elsewhere. */
export function ownHex(location: string, ref: string, hint: string): string {
  const parsed = parseBlobRef(ref);
  if (parsed.location !== undefined && parsed.location !== location) {
    throw new BlobNotFoundError(
      `blob ${ref} lives in store ${parsed.location}, key ${blobKey(parsed.sha256)}; this store is ${location}. ${hint}`,
      parsed.location,
      blobKey(parsed.sha256),
    );
  }
  return parsed.sha256;
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

/**
 * A directory of content-addressed blobs (`<dir>/sha256/<hex>`, records in `<dir>/meta/<hex>/`),
 * encrypted at rest with AES-256-GCM when a key is given. Writes are atomic (temp file, fsync,
 * rename, fsync dir), so a crash leaves either the whole blob or none; directories 0700, files 0600.
 * Only this machine can read it: with more than one worker, use an S3 store.
 */
export function createFileBlobStore(opts: { dir: string; encryptionKey?: Buffer; now?: () => Date }): BlobStore {
  const objectsDir = join(opts.dir, 'sha256');
  const metaDir = join(opts.dir, 'meta');
  const key = opts.encryptionKey;
  const now = opts.now ?? (() => new Date());
  if (key && key.length !== 32) {
    throw new Error(`blob store ${opts.dir}: the encryption key must be 32 bytes, got ${key.length}; generate one with: openssl rand -hex 32`);
  }
  const location = formatLocation({ kind: 'file', dir: opts.dir.replace(/\/+$/, '') });
  const pathOf = (hex: string) => join(objectsDir, hex);
  const describe = (hex: string) => `blob ${formatBlobRef(location, hex)} (${pathOf(hex)})`;

  const createdStoreDir = (first: string): boolean => {
    const storeDir = resolve(opts.dir);
    const made = resolve(first);
    return made === storeDir || storeDir.startsWith(`${made}${sep}`);
  };

  async function ensureDir(dir: string): Promise<void> {
    const created = await mkdir(dir, { recursive: true, mode: 0o700 });
    // Only tighten directories this store created; WSMIGRATE_BLOB_DIR may point into a shared parent.
    // `created` is the first directory mkdir made: the store's own when it is that or one above it,
    // a subdirectory (sha256/, meta/) when the store's directory was already there.
    if (created !== undefined && createdStoreDir(created)) await chmod(opts.dir, 0o700).catch(() => undefined);
    await chmod(dir, 0o700);
  }

  async function writeAtomically(dir: string, path: string, content: Buffer): Promise<void> {
    const temp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(content);
      await handle.sync();
    } catch (err) {
      // A full disk: leave no half-written temp file taking the space a retry needs.
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw err;
    } finally {
      await handle.close().catch(() => undefined);
    }
    try {
      await rename(temp, path);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await fsyncDirectory(dir);
  }

  async function readIfPresent(path: string): Promise<Buffer | undefined> {
    try {
      return await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async function writeRecord(hex: string, size: number, encrypted: boolean, meta: BlobMeta | undefined): Promise<void> {
    if (!meta) return;
    const dir = join(metaDir, hex);
    const path = join(dir, `${recordId(hex, meta)}.json`);
    if (await readIfPresent(path)) return;
    await ensureDir(metaDir);
    await ensureDir(dir);
    const record = makeRecord(location, hex, size, encrypted, meta, now());
    await writeAtomically(dir, path, Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'));
  }

  async function recordsOf(hex: string): Promise<BlobRecord[]> {
    const dir = join(metaDir, hex);
    const names = await readdir(dir).catch(() => [] as string[]);
    const records: BlobRecord[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const text = await readIfPresent(join(dir, name));
      const record = text && parseRecord(text.toString('utf8'));
      if (record) records.push(record);
    }
    // Stores written before records had their own directory kept one hint file beside the blob.
    const legacy = await readIfPresent(`${pathOf(hex)}.json`);
    const hint = legacy && parseRecord(legacy.toString('utf8'));
    if (hint) records.push({ ...hint, sha256: hex, ref: formatBlobRef(location, hex) });
    return records;
  }

  const refOf = (hex: string, size: number, encrypted: boolean): BlobRef => ({ ref: formatBlobRef(location, hex), sha256: hex, size, encrypted });
  const elsewhere = 'A file store is one machine\'s disk: point every worker at one S3 store (WSMIGRATE_BLOB_URL=s3://…) so any of them can read every backup.';

  return {
    location,

    async put(bytes, meta) {
      const hex = sha256Hex(bytes);
      await ensureDir(objectsDir);
      const existing = await readIfPresent(pathOf(hex));
      if (existing) {
        const decoded = decodeBlob(hex, existing, key, describe(hex));
        if (decoded.ok && (decoded.encrypted || !key)) {
          await writeRecord(hex, bytes.length, decoded.encrypted, meta);
          return refOf(hex, bytes.length, decoded.encrypted);
        }
        if (!decoded.ok && decoded.needsKey) {
          // A backup this process cannot read back is no backup; and writing plaintext beside it would undo the encryption.
          throw new Error(`cannot store: ${decoded.problem}`);
        }
        // Otherwise the file is unreadable or a plaintext copy while we hold a key: we have the exact
        // bytes in hand, so replacing it with a verified (encrypted) copy loses nothing.
      }
      await writeAtomically(objectsDir, pathOf(hex), encodeBlob(hex, bytes, key));
      await writeRecord(hex, bytes.length, key !== undefined, meta);
      return refOf(hex, bytes.length, key !== undefined);
    },

    async get(ref) {
      const hex = ownHex(location, ref, elsewhere);
      const file = await readIfPresent(pathOf(hex));
      if (!file) {
        throw new BlobNotFoundError(
          `${describe(hex)} does not exist in store ${location} (key ${blobKey(hex)}); check WSMIGRATE_BLOB_DIR points at the store the backup was written to`,
          location,
          blobKey(hex),
        );
      }
      const decoded = decodeBlob(hex, file, key, describe(hex));
      if (!decoded.ok) throw new BlobUnreadableError(decoded.problem, location, blobKey(hex));
      return decoded.bytes;
    },

    async has(ref) {
      const parsed = parseBlobRef(ref);
      if (parsed.location !== undefined && parsed.location !== location) return false;
      return stat(pathOf(parsed.sha256)).then(
        (s) => s.isFile(),
        () => false,
      );
    },

    async list() {
      const names = await readdir(objectsDir).catch(() => [] as string[]);
      const blobs: StoredBlob[] = [];
      for (const hex of names.filter((n) => BLOB_HEX.test(n))) {
        const s = await stat(pathOf(hex)).catch(() => undefined);
        if (!s) continue;
        blobs.push({ ref: formatBlobRef(location, hex), sha256: hex, lastModified: s.mtime.toISOString(), records: await recordsOf(hex) });
      }
      return blobs;
    },

    async records(hex) {
      if (!BLOB_HEX.test(hex)) throw new Error(`not a blob sha256: ${JSON.stringify(hex.slice(0, 80))}`);
      return recordsOf(hex);
    },

    async remove(hex) {
      if (!BLOB_HEX.test(hex)) throw new Error(`not a blob sha256: ${JSON.stringify(hex.slice(0, 80))}`);
      await rm(pathOf(hex), { force: true });
      await rm(`${pathOf(hex)}.json`, { force: true });
      await rm(join(metaDir, hex), { recursive: true, force: true });
    },
  };
}
