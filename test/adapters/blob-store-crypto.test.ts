import { randomBytes } from 'node:crypto';
import { decrypt, DecryptionError, encrypt, SEALED_FORMAT_VERSION } from '../../src/adapters/crypto';
import { encryptionKeyId } from '../../src/config/encryption-key';

const key = randomBytes(32);
const plaintext = Buffer.from('{"version":4,"serial":7,"resources":[{"type":"kubernetes_persistent_volume_claim"}]}');

describe('AES-256-GCM helpers used by the blob store and the payload codec', () => {
  it('round-trips, with and without additional authenticated data', () => {
    expect(decrypt(key, encrypt(key, plaintext))).toEqual(plaintext);
    const aad = Buffer.from('sha256:abc');
    expect(decrypt(key, encrypt(key, plaintext, aad), aad)).toEqual(plaintext);
    expect(decrypt(key, encrypt(key, Buffer.alloc(0)))).toEqual(Buffer.alloc(0));
  });

  it('lays out version || 12-byte IV || ciphertext || 16-byte tag, with a fresh IV each time', () => {
    const a = encrypt(key, plaintext);
    const b = encrypt(key, plaintext);
    expect(a[0]).toBe(SEALED_FORMAT_VERSION);
    expect(a.length).toBe(1 + 12 + plaintext.length + 16);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.includes(plaintext)).toBe(false);
  });

  it('rejects a wrong key with a clear error that contains none of the data', () => {
    const sealed = encrypt(key, plaintext);
    const attempt = () => decrypt(randomBytes(32), sealed, undefined, 'blob sha256:abc');
    expect(attempt).toThrow(DecryptionError);
    expect(attempt).toThrow('cannot decrypt blob sha256:abc: wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data');
  });

  it('detects tampering anywhere: IV, ciphertext, tag', () => {
    const sealed = encrypt(key, plaintext);
    for (const index of [1, 13, 13 + Math.floor(plaintext.length / 2), sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[index] ^= 0x01;
      expect(() => decrypt(key, tampered)).toThrow(/wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data/);
    }
  });

  it('rejects a different AAD, and a missing one', () => {
    const sealed = encrypt(key, plaintext, Buffer.from('sha256:aaa'));
    expect(() => decrypt(key, sealed, Buffer.from('sha256:bbb'))).toThrow(DecryptionError);
    expect(() => decrypt(key, sealed)).toThrow(DecryptionError);
  });

  it('names truncated input and unknown format versions', () => {
    expect(() => decrypt(key, Buffer.alloc(10), undefined, 'x')).toThrow(/cannot decrypt x: it is 10 bytes, too short/);
    // Longer than the header but with no room for the 16-byte tag: still ours to name, not Node's tag-length TypeError.
    for (const n of [13, 20, 28]) expect(() => decrypt(key, Buffer.alloc(n, 1), undefined, 'x')).toThrow(DecryptionError);
    const future = encrypt(key, plaintext);
    future[0] = 9;
    expect(() => decrypt(key, future, undefined, 'x')).toThrow(/cannot decrypt x: unknown format version 9/);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => encrypt(randomBytes(16), plaintext)).toThrow(/32-byte key, got 16 bytes/);
    expect(() => encrypt(randomBytes(48), plaintext)).toThrow(/32-byte key, got 48 bytes/);
    expect(() => decrypt(randomBytes(48), encrypt(key, plaintext))).toThrow(/32-byte key, got 48 bytes/);
  });

  it('gives a stable public key id that differs per key and does not contain the key', () => {
    const id = encryptionKeyId(key);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(encryptionKeyId(Buffer.from(key))).toBe(id);
    expect(encryptionKeyId(randomBytes(32))).not.toBe(id);
    expect(key.toString('hex')).not.toContain(id);
  });
});
