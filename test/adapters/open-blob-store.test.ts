import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBlobStore } from '../../src/adapters/open-blob-store';

/** The store every command opens from its settings (open-blob-store.ts), here with a file:// URL: no S3 server needed. */
describe('openBlobStore with a file:// store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-open-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('encrypts with the configured key: the bytes on disk hold no plaintext, and a store opened without the key cannot read them', async () => {
    const marker = 'STATE-PLAINTEXT-8c1f';
    const key = randomBytes(32);
    const store = openBlobStore({ url: `file://${dir}`, encryptionKey: key });
    const ref = await store.put(Buffer.from(`{"resources":["${marker}"]}`), { kind: 'state-backup' });
    expect(ref.encrypted).toBe(true);
    const onDisk = readFileSync(join(dir, 'sha256', readdirSync(join(dir, 'sha256')).find((n) => /^[0-9a-f]{64}$/.test(n))!));
    expect(onDisk.toString('latin1')).not.toContain(marker);
    expect((await store.get(ref.ref)).toString()).toContain(marker);
    await expect(openBlobStore({ url: `file://${dir}` }).get(ref.ref)).rejects.toThrow(/WSMIGRATE_ENCRYPTION_KEY is not set/);
  });
});
