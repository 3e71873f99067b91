import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobNotFoundError, BlobUnreadableError, createFileBlobStore } from '../../src/adapters/blob-store';

const MARKER = 'PLAINTEXT-MARKER-7f3a9c';

function terraformState(serial: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: 4,
      serial,
      lineage: 'a1b2c3',
      resources: [{ mode: 'managed', type: 'kubernetes_persistent_volume_claim', name: 'home', instances: [{ attributes: { id: `coder/${MARKER}` } }] }],
    }),
  );
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file under dir, recursively (the store keeps blobs in a subdirectory). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wsmigrate-blobs-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.each([
  ['plaintext', undefined],
  ['encrypted', randomBytes(32)],
])('file blob store (%s)', (_mode, encryptionKey) => {
  const open = () => createFileBlobStore({ dir: join(root, 'store'), encryptionKey });
  const blobFile = (hex: string) => join(root, 'store', 'sha256', hex);

  it('round-trips bytes under a ref that is the sha256 of the plaintext', async () => {
    const store = open();
    const bytes = terraformState(1);
    const ref = await store.put(bytes, { kind: 'terraform-state', label: 'alice/dev' });
    expect(ref).toEqual({ ref: `file://${join(root, 'store')}/sha256/${sha256(bytes)}`, sha256: sha256(bytes), size: bytes.length, encrypted: encryptionKey !== undefined });
    expect(await store.has(ref.ref)).toBe(true);
    expect(await store.get(ref.ref)).toEqual(bytes);
    // Refs written before refs named their store still read from the configured store.
    expect(await store.get(`sha256:${ref.sha256}`)).toEqual(bytes);
    // A fresh store over the same directory (the next activity attempt, another worker) reads it too.
    expect(await open().get(ref.ref)).toEqual(bytes);
  });

  it('round-trips empty and binary content', async () => {
    const store = open();
    for (const bytes of [Buffer.alloc(0), randomBytes(100_000)]) {
      const ref = await store.put(bytes);
      expect(await store.get(ref.ref)).toEqual(bytes);
    }
  });

  it('is idempotent: the same bytes give the same ref and the file is not rewritten', async () => {
    const store = open();
    const bytes = terraformState(2);
    const first = await store.put(bytes);
    const before = readFileSync(blobFile(first.sha256));
    const inode = statSync(blobFile(first.sha256)).ino;
    const second = await store.put(Buffer.from(bytes));
    expect(second).toEqual(first);
    // With encryption a rewrite would show as a new random IV, so unchanged bytes prove no rewrite.
    expect(readFileSync(blobFile(first.sha256)).equals(before)).toBe(true);
    expect(statSync(blobFile(first.sha256)).ino).toBe(inode);
  });

  it('keeps different contents apart', async () => {
    const store = open();
    const a = await store.put(terraformState(3));
    const b = await store.put(terraformState(4));
    expect(a.ref).not.toBe(b.ref);
    expect(await store.get(a.ref)).toEqual(terraformState(3));
    expect(await store.get(b.ref)).toEqual(terraformState(4));
  });

  it("gives one blob's records, the same as its list gives, and none for an absent blob; refuses a path for a sha256", async () => {
    const store = open();
    const a = await store.put(terraformState(5), { kind: 'template-lock', label: 'coder/k8s', workflowId: 'wsmigrate-fleet/coder/k8s' });
    await store.put(terraformState(5), { kind: 'template-lock', label: 'coder/k8s', workflowId: 'wsmigrate-fleet/coder/k8s-later' });
    await store.put(terraformState(6), { kind: 'state-backup', workspace: 'alice/dev' });
    const listed = (await store.list()).find((x) => x.sha256 === a.sha256)!.records;
    expect(listed.map((r) => r.workflowId).sort()).toEqual(['wsmigrate-fleet/coder/k8s', 'wsmigrate-fleet/coder/k8s-later']);
    expect((await store.records(a.sha256)).sort((x, y) => String(x.workflowId).localeCompare(String(y.workflowId)))).toEqual(listed.sort((x, y) => String(x.workflowId).localeCompare(String(y.workflowId))));
    await store.remove(a.sha256);
    expect(await store.records(a.sha256)).toEqual([]);
    await expect(store.records('../etc')).rejects.toThrow(/not a blob sha256/);
  });

  it('detects a tampered file and names the ref', async () => {
    const store = open();
    const ref = await store.put(terraformState(5));
    const file = readFileSync(blobFile(ref.sha256));
    file[file.length - 20] ^= 0x01;
    writeFileSync(blobFile(ref.sha256), file);
    const attempt = store.get(ref.ref);
    await expect(attempt).rejects.toThrow(BlobUnreadableError);
    await expect(store.get(ref.ref)).rejects.toThrow(new RegExp(`blob ${ref.ref} .*(corrupt|wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data)`));
  });

  it('detects one blob file swapped for another', async () => {
    const store = open();
    const a = await store.put(terraformState(6));
    const b = await store.put(terraformState(7));
    copyFileSync(blobFile(a.sha256), blobFile(b.sha256));
    await expect(store.get(b.ref)).rejects.toThrow(BlobUnreadableError);
    await expect(store.get(b.ref)).rejects.toThrow(b.ref);
  });

  it('repairs a damaged blob when the same bytes are put again', async () => {
    const store = open();
    const bytes = terraformState(8);
    const ref = await store.put(bytes);
    writeFileSync(blobFile(ref.sha256), 'garbage');
    await expect(store.get(ref.ref)).rejects.toThrow(/not a wsmigrate blob \(bad header\)/);
    expect(await store.put(bytes)).toEqual(ref);
    expect(await store.get(ref.ref)).toEqual(bytes);
  });

  it('names a missing ref and says where it looked', async () => {
    const store = open();
    const missing = `sha256:${sha256(Buffer.from('never stored'))}`;
    expect(await store.has(missing)).toBe(false);
    await expect(store.get(missing)).rejects.toThrow(BlobNotFoundError);
    await expect(store.get(missing)).rejects.toThrow(
      new RegExp(`blob file://${join(root, 'store')}/sha256/${missing.slice(7)} .*does not exist in store file://${join(root, 'store')} \\(key sha256/${missing.slice(7)}\\); check WSMIGRATE_BLOB_DIR`),
    );
    // A ref of another machine's directory: named, with the way out.
    const foreign = `file:///elsewhere/blobs/sha256/${missing.slice(7)}`;
    expect(await store.has(foreign)).toBe(false);
    await expect(store.get(foreign)).rejects.toThrow(/lives in store file:\/\/\/elsewhere\/blobs, key sha256\/[0-9a-f]{64}; this store is file:.*WSMIGRATE_BLOB_URL=s3:/);
  });

  it('rejects refs that are not sha256 refs, including path tricks', async () => {
    const store = open();
    for (const bad of ['../../etc/passwd', 'sha256:../x', `sha256:${'A'.repeat(64)}`, 'md5:abc']) {
      await expect(store.get(bad)).rejects.toThrow(/not a blob ref/);
      await expect(store.has(bad)).rejects.toThrow(/not a blob ref/);
    }
  });

  it('makes its directories 0700 and its files 0600', async () => {
    const store = open();
    const ref = await store.put(terraformState(9), { kind: 'terraform-state', label: 'bob/main' });
    expect(statSync(join(root, 'store')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'store', 'sha256')).mode & 0o777).toBe(0o700);
    const files = filesUnder(join(root, 'store'));
    expect(files).toEqual(expect.arrayContaining([blobFile(ref.sha256)]));
    expect(files.filter((f) => f.startsWith(join(root, 'store', 'meta', ref.sha256)) && f.endsWith('.json'))).toHaveLength(1);
    for (const file of files) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('handles concurrent puts of the same bytes: one ref, one readable file, no temp files left', async () => {
    const store = open();
    const bytes = terraformState(10);
    const refs = await Promise.all(Array.from({ length: 12 }, () => store.put(Buffer.from(bytes), { kind: 'terraform-state' })));
    expect(new Set(refs.map((r) => r.ref)).size).toBe(1);
    expect(await open().get(refs[0].ref)).toEqual(bytes);
    const names = readdirSync(join(root, 'store', 'sha256'));
    expect(names).toEqual([refs[0].sha256]);
    expect(readdirSync(join(root, 'store', 'meta', refs[0].sha256))).toHaveLength(1);
  });
});

describe('file blob store encryption at rest', () => {
  const key = randomBytes(32);

  it('never writes the plaintext to disk, in blobs, metadata or temp files', async () => {
    const store = createFileBlobStore({ dir: root, encryptionKey: key });
    await Promise.all([store.put(terraformState(1), { kind: 'terraform-state', label: 'carol/ws' }), store.put(terraformState(2))]);
    const files = filesUnder(root);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) expect(readFileSync(file).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('does write it without a key, which is what the marker check would catch', async () => {
    const store = createFileBlobStore({ dir: root });
    await store.put(terraformState(1));
    expect(filesUnder(root).some((file) => readFileSync(file).includes(Buffer.from(MARKER)))).toBe(true);
  });

  it('fails clearly with a wrong key, naming the ref, without showing content', async () => {
    const ref = await createFileBlobStore({ dir: root, encryptionKey: key }).put(terraformState(3));
    const other = createFileBlobStore({ dir: root, encryptionKey: randomBytes(32) });
    const attempt = other.get(ref.ref);
    await expect(attempt).rejects.toThrow(BlobUnreadableError);
    await expect(other.get(ref.ref)).rejects.toThrow(
      new RegExp(`cannot decrypt blob ${ref.ref} .*: wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data`),
    );
    await expect(other.get(ref.ref)).rejects.not.toThrow(MARKER);
  });

  it('tells a keyless reader to set WSMIGRATE_ENCRYPTION_KEY, and refuses a keyless put over an encrypted blob', async () => {
    const bytes = terraformState(4);
    const ref = await createFileBlobStore({ dir: root, encryptionKey: key }).put(bytes);
    const keyless = createFileBlobStore({ dir: root });
    await expect(keyless.get(ref.ref)).rejects.toThrow(/is encrypted at rest but WSMIGRATE_ENCRYPTION_KEY is not set/);
    await expect(keyless.put(bytes)).rejects.toThrow(/cannot store: blob .* is encrypted at rest/);
    expect(filesUnder(root).some((file) => readFileSync(file).includes(Buffer.from(MARKER)))).toBe(false);
  });

  it('re-encrypts a plaintext blob when the same bytes are put with a key', async () => {
    const bytes = terraformState(5);
    const plainRef = await createFileBlobStore({ dir: root }).put(bytes);
    expect(plainRef.encrypted).toBe(false);
    const encrypted = createFileBlobStore({ dir: root, encryptionKey: key });
    expect(await encrypted.get(plainRef.ref)).toEqual(bytes);
    const ref = await encrypted.put(bytes);
    expect(ref).toEqual({ ...plainRef, encrypted: true });
    expect(filesUnder(root).some((file) => readFileSync(file).includes(Buffer.from(MARKER)))).toBe(false);
    expect(await encrypted.get(ref.ref)).toEqual(bytes);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createFileBlobStore({ dir: root, encryptionKey: randomBytes(31) })).toThrow(/must be 32 bytes, got 31/);
  });
});

describe('file blob store durability', () => {
  it('fsyncs each file it writes before the rename, and its directory after: a backup is on disk before put returns', async () => {
    const { open: openFile } = await import('node:fs/promises');
    const probe = await openFile(root, 'r');
    const handleProto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const syncs = jest.spyOn(handleProto, 'sync');
    try {
      const store = createFileBlobStore({ dir: join(root, 'store') });
      await store.put(terraformState(1), { kind: 'backup', label: 'durable' });
      // Two atomic writes (the blob, then its record), each: the temp file's data, then the directory's entry.
      expect(syncs).toHaveBeenCalledTimes(4);
    } finally {
      syncs.mockRestore();
    }
  });
});

describe('file blob store records and permissions', () => {
  it('a retried put keeps the record the first put wrote: its storedAt stands', async () => {
    let now = new Date('2026-12-01T09:00:00Z');
    const store = createFileBlobStore({ dir: join(root, 'store'), now: () => now });
    const meta = { kind: 'state-backup', workspace: 'alice/dev', workflowId: 'wsmigrate/k8s/alice/dev', runId: 'r1' };
    const ref = await store.put(terraformState(3), meta);
    now = new Date('2026-12-02T09:00:00Z');
    await store.put(terraformState(3), meta);
    expect((await store.records(ref.sha256)).map((r) => r.storedAt)).toEqual(['2026-12-01T09:00:00.000Z']);
  });

  it('tightens a blob directory that already exists with looser permissions to 0700', async () => {
    const { mkdirSync, chmodSync } = await import('node:fs');
    mkdirSync(join(root, 'store', 'sha256'), { recursive: true });
    chmodSync(join(root, 'store', 'sha256'), 0o755);
    await createFileBlobStore({ dir: join(root, 'store') }).put(terraformState(4), { kind: 'state-backup' });
    expect(statSync(join(root, 'store', 'sha256')).mode & 0o777).toBe(0o700);
  });
});

describe('file blob store listing', () => {
  it('lists only blobs: a temp file left by a crash, a legacy hint and a damaged record are not taken for backups', async () => {
    const key = randomBytes(32);
    const store = createFileBlobStore({ dir: join(root, 'store'), encryptionKey: key });
    const ref = await store.put(terraformState(8), { kind: 'state-backup', workspace: 'alice/dev' });
    writeFileSync(join(root, 'store', 'sha256', '.tmp-0123456789abcdef'), 'half a write');
    writeFileSync(join(root, 'store', 'meta', ref.sha256, 'damaged.json'), JSON.stringify({ sha256: ref.sha256 }));
    const listed = await store.list();
    expect(listed.map((b) => b.sha256)).toEqual([ref.sha256]);
    // The record says what was stored: encrypted, since the store holds a key.
    expect(listed[0]!.records).toEqual([expect.objectContaining({ sha256: ref.sha256, kind: 'state-backup', encrypted: true })]);
  });

  it('never loosens or tightens a store directory it did not create (WSMIGRATE_BLOB_DIR may be a shared parent)', async () => {
    const { mkdirSync, chmodSync } = await import('node:fs');
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    await createFileBlobStore({ dir: shared }).put(terraformState(2), { kind: 'state-backup' });
    expect(statSync(shared).mode & 0o777).toBe(0o755);
  });
});
