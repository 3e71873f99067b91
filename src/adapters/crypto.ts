import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES } from '../config/encryption-key';

/** Layout of a sealed buffer: version (1 byte) || IV (12) || ciphertext || GCM tag (16). */
export const SEALED_FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES;

/** Decryption failed; the message names what was being decrypted and never contains any of its bytes. */
export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptionError';
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `AES-256-GCM needs a ${KEY_BYTES}-byte key, got ${key.length} bytes; generate one with: openssl rand -hex 32`,
    );
  }
}

/** AES-256-GCM with a fresh random IV; `aad` is authenticated but not stored, so decrypt must be given the same. */
export function encrypt(key: Buffer, plaintext: Buffer, aad?: Buffer): Buffer {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([SEALED_FORMAT_VERSION]), iv, ciphertext, cipher.getAuthTag()]);
}

/**
 * Reverses `encrypt`. `what` names the thing in the error ("blob sha256:…", "a Temporal payload"),
 * since a bare "decryption failed" tells the operator nothing.
 */
export function decrypt(key: Buffer, sealed: Buffer, aad?: Buffer, what = 'data'): Buffer {
  assertKey(key);
  if (sealed.length < HEADER_BYTES + TAG_BYTES) {
    throw new DecryptionError(
      `cannot decrypt ${what}: it is ${sealed.length} bytes, too short to be AES-256-GCM data (truncated or not encrypted)`,
    );
  }
  const version = sealed[0];
  if (version !== SEALED_FORMAT_VERSION) {
    throw new DecryptionError(
      `cannot decrypt ${what}: unknown format version ${version} (this wsmigrate reads version ${SEALED_FORMAT_VERSION}); ` +
        'it was written by a newer wsmigrate or is corrupted',
    );
  }
  const iv = sealed.subarray(1, HEADER_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const ciphertext = sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad) decipher.setAAD(aad);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    // GCM cannot tell a wrong key from tampering; both fail the tag check.
    throw new DecryptionError(`cannot decrypt ${what}: wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data`);
  }
}
