import { createHash } from 'node:crypto';

/** AES-256-GCM: backups at rest and Temporal payloads share one 32-byte key. */
export const KEY_BYTES = 32;

const HEX_KEY = /^[0-9A-Fa-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]*={0,2}|[A-Za-z0-9_-]*={0,2})$/;

/** Accepts 64 hex characters or base64 (standard or url-safe) of exactly 32 bytes. */
export function parseEncryptionKey(raw: string): Buffer | undefined {
  if (HEX_KEY.test(raw)) return Buffer.from(raw, 'hex');
  if (BASE64.test(raw)) {
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  return undefined;
}

/** How many bytes the operator probably meant, for the error; undefined when it is neither hex nor base64. */
export function apparentKeyBytes(raw: string): number | undefined {
  if (/^[0-9A-Fa-f]+$/.test(raw) && raw.length % 2 === 0) return raw.length / 2;
  if (BASE64.test(raw)) return Buffer.from(raw, 'base64').length;
  return undefined;
}

/**
 * A short public name for a key, so a client, a worker and an operator can check they share one.
 * It is a domain-separated hash: it reveals nothing about the key, and no other hash of it collides.
 */
export function encryptionKeyId(key: Buffer): string {
  if (key.length !== KEY_BYTES) {
    throw new Error(`an encryption key is ${KEY_BYTES} bytes, got ${key.length} bytes; generate one with: openssl rand -hex 32`);
  }
  return createHash('sha256').update('wsmigrate encryption key id v1\0').update(key).digest('hex').slice(0, 16);
}
