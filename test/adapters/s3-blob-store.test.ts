import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BlobNotFoundError, BlobStoreAccessError, BlobStoreUnavailableError, BlobUnreadableError } from '../../src/adapters/blob-store';
import { openBlobStore } from '../../src/adapters/open-blob-store';
import { createS3BlobStore } from '../../src/adapters/s3-blob-store';
import { describeWithS3, startS3TestServer, type S3TestServer } from '../harness/versitygw';

const MARKER = 'PLAINTEXT-MARKER-s3-51c0';
const state = (serial: number) => Buffer.from(JSON.stringify({ version: 4, serial, lineage: 'l-1', resources: [{ type: 'kubernetes_pod', instances: [{ attributes: { id: MARKER } }] }] }));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describeWithS3('S3 blob store against a real S3 server (versitygw)', () => {
  let s3: S3TestServer;
  const saved = { ...process.env };
  const key = randomBytes(32);
  const bucket = 'wsmigrate-backups';
  const open = (prefix = 'prod/blobs', encryptionKey: Buffer | null = key) =>
    createS3BlobStore({ bucket, prefix, endpoint: s3.endpoint, forcePathStyle: true, encryptionKey: encryptionKey ?? undefined });
  /** Where versitygw's POSIX backend keeps an object: the key is the path under the bucket directory. */
  const objectFile = (prefix: string, hex: string) => join(s3.dataDir, bucket, prefix, 'sha256', hex);

  beforeAll(async () => {
    s3 = await startS3TestServer();
    await s3.createBucket(bucket);
    Object.assign(process.env, s3.awsEnv, { AWS_EC2_METADATA_DISABLED: 'true' });
  }, 60_000);
  afterAll(async () => {
    process.env = saved;
    await s3?.close();
  });
  afterEach(() => Object.assign(process.env, s3.awsEnv));

  it('round-trips bytes under a ref that names the store, and reads the old bare sha256: form too', async () => {
    for (const encryptionKey of [null, key]) {
      const store = open(encryptionKey ? 'enc' : 'plain', encryptionKey);
      const bytes = state(1);
      const ref = await store.put(bytes, { kind: 'state-backup', workspace: 'alice/dev', workflowId: 'wf-1' });
      expect(ref).toEqual({ ref: `${store.location}/sha256/${sha256(bytes)}`, sha256: sha256(bytes), size: bytes.length, encrypted: encryptionKey !== null });
      expect(ref.ref).toBe(`s3://${bucket}/${encryptionKey ? 'enc' : 'plain'}/sha256/${sha256(bytes)}`);
      expect(await store.get(ref.ref)).toEqual(bytes);
      expect(await store.get(`sha256:${ref.sha256}`)).toEqual(bytes);
      expect(await store.has(ref.ref)).toBe(true);
      // Another worker's store over the same bucket and prefix reads it: the point of S3.
      expect(await open(encryptionKey ? 'enc' : 'plain', encryptionKey).get(ref.ref)).toEqual(bytes);
    }
    for (const bytes of [Buffer.alloc(0), randomBytes(300_000)]) {
      const store = open();
      expect(await store.get((await store.put(bytes)).ref)).toEqual(bytes);
    }
  });

  it('never puts the plaintext on the server when a key is set', async () => {
    await open('secret').put(state(2), { kind: 'state-backup', workspace: 'alice/dev', label: 'alice/dev build #3' });
    const files = filesUnder(join(s3.dataDir, bucket, 'secret'));
    expect(files.length).toBeGreaterThanOrEqual(2); // the blob and its record
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('is idempotent: the same bytes put again leave the stored object untouched and one record per workflow run', async () => {
    const store = open('idem');
    const bytes = state(3);
    const first = await store.put(bytes, { kind: 'state-backup', workspace: 'bob/main', workflowId: 'wf-a', runId: 'r1' });
    const stored = readFileSync(objectFile('idem', first.sha256));
    const again = await Promise.all([1, 2, 3].map(() => open('idem').put(Buffer.from(bytes), { kind: 'state-backup', workspace: 'bob/main', workflowId: 'wf-a', runId: 'r1' })));
    for (const r of again) expect(r).toEqual(first);
    // A new random IV on every encryption: equal bytes prove nothing was rewritten.
    expect(readFileSync(objectFile('idem', first.sha256)).equals(stored)).toBe(true);
    await store.put(bytes, { kind: 'state-backup', workspace: 'bob/main', workflowId: 'wf-b', runId: 'r9' });
    const [listed] = await store.list();
    expect(listed.sha256).toBe(first.sha256);
    expect(listed.records.map((r) => r.workflowId).sort()).toEqual(['wf-a', 'wf-b']);
  });

  it('detects a tampered object by its hash, naming the store and key, and repairs it on the next put of the same bytes', async () => {
    for (const encryptionKey of [null, key]) {
      const prefix = encryptionKey ? 'tamper-enc' : 'tamper-plain';
      const store = open(prefix, encryptionKey);
      const ref = await store.put(state(4));
      const file = objectFile(prefix, ref.sha256);
      const bytes = readFileSync(file);
      bytes[bytes.length - 3] ^= 0x01;
      writeFileSync(file, bytes);
      const err = await store.get(ref.ref).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BlobUnreadableError);
      expect((err as Error).message).toContain(`store s3://${bucket}/${prefix}`);
      expect((err as Error).message).toContain(`key ${prefix}/sha256/${ref.sha256}`);
      expect((err as Error).message).toMatch(encryptionKey ? /wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data/ : /is corrupt: its content hashes to sha256:/);
      expect((err as Error).message).not.toContain(MARKER);
      await store.put(state(4));
      expect(await store.get(ref.ref)).toEqual(state(4));
    }
  });

  it("another worker's object appearing between our read and our conditional create is read back and checked: one this worker cannot read fails the put, naming the store and key", async () => {
    const bytes = state(11);
    const hex = sha256(bytes);
    // Another worker, with another encryption key, stores the same bytes first.
    await open('race', randomBytes(32)).put(bytes);
    // Our read of the key comes before theirs landed (a proxy answers it 404); our create then finds it there (412).
    let hidden = 0;
    const proxy = createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === `/${bucket}/race/sha256/${hex}` && hidden === 0) {
        hidden += 1;
        req.resume();
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
        return;
      }
      const target = new URL(s3.endpoint);
      const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    const endpoint = await new Promise<string>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)));
    try {
      const ours = createS3BlobStore({ bucket, prefix: 'race', endpoint, forcePathStyle: true, encryptionKey: key });
      const err = await ours.put(bytes).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(hidden).toBe(1);
      expect(err).toBeInstanceOf(BlobUnreadableError);
      expect((err as BlobUnreadableError).message).toContain(`s3://${bucket}/race/sha256/${hex}`);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('names the store and key of a missing object', async () => {
    const store = open('missing');
    const hex = sha256(Buffer.from('never stored'));
    expect(await store.has(`sha256:${hex}`)).toBe(false);
    const err = await store.get(`s3://${bucket}/missing/sha256/${hex}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobNotFoundError);
    expect(err).toMatchObject({ location: `s3://${bucket}/missing`, key: `missing/sha256/${hex}` });
    expect((err as Error).message).toMatch(new RegExp(`store s3://${bucket}/missing, key missing/sha256/${hex}\\) does not exist`));
  });

  it('says the store is down (retryable) and names the endpoint; works again when it is back', async () => {
    const store = open('outage');
    const ref = await store.put(state(5));
    await s3.stop();
    try {
      const getErr = await store.get(ref.ref).catch((e: unknown) => e);
      expect(getErr).toBeInstanceOf(BlobStoreUnavailableError);
      expect((getErr as Error).message).toContain(`the S3 endpoint ${s3.endpoint} (WSMIGRATE_S3_ENDPOINT) did not answer`);
      await expect(store.put(state(6))).rejects.toThrow(BlobStoreUnavailableError);
    } finally {
      await s3.start();
    }
    expect(await store.get(ref.ref)).toEqual(state(5));
  });

  it('names the variable to fix on wrong credentials, and never shows the secret', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-secret-4a1f';
    const wrongSecret = await open('creds').put(state(7)).catch((e: unknown) => e);
    expect(wrongSecret).toBeInstanceOf(BlobStoreAccessError);
    expect((wrongSecret as Error).message).toMatch(/AWS_SECRET_ACCESS_KEY does not belong to AWS_ACCESS_KEY_ID/);
    expect((wrongSecret as Error).message).not.toContain('not-the-secret-4a1f');

    process.env.AWS_ACCESS_KEY_ID = 'nobody-knows-me';
    const unknownId = await open('creds').get(`sha256:${sha256(state(7))}`).catch((e: unknown) => e);
    expect(unknownId).toBeInstanceOf(BlobStoreAccessError);
    expect((unknownId as Error).message).toMatch(/does not know AWS_ACCESS_KEY_ID/);

    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(s3.dataDir, 'no-such-credentials');
    process.env.AWS_CONFIG_FILE = join(s3.dataDir, 'no-such-config');
    const none = await open('creds').get(`sha256:${sha256(state(7))}`).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(BlobStoreAccessError);
    expect((none as Error).message).toMatch(/no S3 credentials found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  });

  it('lists blobs with their records and removes a blob with its records', async () => {
    const store = open('listing');
    const a = await store.put(state(8), { kind: 'state-backup', workspace: 'carol/ws', workflowId: 'wsmigrate/t/carol/ws' });
    const b = await store.put(state(9), { kind: 'state-migrated', label: 'carol/ws' });
    const listed = await store.list();
    expect(listed.map((x) => x.sha256).sort()).toEqual([a.sha256, b.sha256].sort());
    const recA = listed.find((x) => x.sha256 === a.sha256)!.records;
    expect(recA).toEqual([expect.objectContaining({ kind: 'state-backup', workspace: 'carol/ws', workflowId: 'wsmigrate/t/carol/ws', ref: a.ref, size: state(8).length })]);
    expect(JSON.stringify(recA)).not.toContain(MARKER);
    // One blob's records alone (the lock keeper's lookup), the same as the list gives; none once it is removed.
    expect(await store.records(a.sha256)).toEqual(recA);
    expect(await store.records(b.sha256)).toEqual([expect.objectContaining({ kind: 'state-migrated', label: 'carol/ws' })]);
    await store.remove(a.sha256);
    expect(await store.records(a.sha256)).toEqual([]);
    expect((await store.list()).map((x) => x.sha256)).toEqual([b.sha256]);
    await expect(store.get(a.ref)).rejects.toThrow(BlobNotFoundError);
  });

  it('a worker configured with one store reads refs of another S3 prefix, but not another machine\'s directory', async () => {
    const elsewhere = await open('other-prefix').put(state(10));
    const dir = mkdtempSync(join(tmpdir(), 'wsmigrate-blobs-'));
    try {
      const home = openBlobStore({ url: `s3://${bucket}/home`, s3Endpoint: s3.endpoint, s3ForcePathStyle: true, encryptionKey: key });
      expect(await home.get(elsewhere.ref)).toEqual(state(10));
      // Reading another store's ref opens it for reads only: new backups still go to the configured store.
      const written = await home.put(state(11), { kind: 'state-backup' });
      expect(written.ref).toBe(`s3://${bucket}/home/sha256/${written.sha256}`);
      expect(await home.has(written.ref)).toBe(true);
      const fileRef = `file://${dir}-gone/sha256/${elsewhere.sha256}`;
      await expect(home.get(fileRef)).rejects.toThrow(new RegExp(`lives in store file://${dir}-gone, key sha256/${elsewhere.sha256}; this store is s3://${bucket}/home`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a plaintext copy of the same bytes is replaced by an encrypted one when a worker with the key stores them', async () => {
    const bytes = state(21);
    expect((await open('reencrypt', null).put(bytes)).encrypted).toBe(false);
    const ref = await open('reencrypt', key).put(bytes, { kind: 'state-backup' });
    expect(ref.encrypted).toBe(true);
    expect(readFileSync(objectFile('reencrypt', ref.sha256)).toString('latin1')).not.toContain(MARKER);
    await expect(open('reencrypt', null).get(ref.ref)).rejects.toThrow(/WSMIGRATE_ENCRYPTION_KEY is not set/);
    expect(await open('reencrypt', key).get(ref.ref)).toEqual(bytes);
  });

  it('lists only content-addressed blobs: another object under sha256/ is not a backup', async () => {
    const ref = await open('only-blobs').put(state(22));
    mkdirSync(join(s3.dataDir, bucket, 'only-blobs', 'sha256'), { recursive: true });
    writeFileSync(join(s3.dataDir, bucket, 'only-blobs', 'sha256', 'README'), 'not a blob');
    expect((await open('only-blobs').list()).map((b) => b.sha256)).toEqual([ref.sha256]);
  });

  it.each([
    [401, 'Unauthorized', BlobStoreAccessError],
    [500, 'InternalError', BlobStoreUnavailableError],
  ])('an S3 server answering %i is %s: access refused (never retried) or unavailable (worth retrying)', async (status, code, kind) => {
    const proxy = createServer((req, res) => {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>no</Message></Error>`);
    });
    const endpoint = await new Promise<string>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)));
    try {
      const store = createS3BlobStore({ bucket, prefix: 'answers', endpoint, forcePathStyle: true, encryptionKey: key });
      await expect(store.get(`sha256:${'a'.repeat(64)}`)).rejects.toBeInstanceOf(kind);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });
});
