import { decrypt, DecryptionError, encrypt } from './crypto';
import { sha256Hex } from './hash';

/**
 * The bytes a store keeps for one blob, the same in every store: a magic, a mode byte, then the
 * plaintext or our AES-256-GCM sealing of it. We encrypt on top of whatever the server does, so a
 * bucket readable by too many people still leaks nothing.
 */
const MAGIC = Buffer.from('WSMB', 'ascii');
const MODE_PLAIN = 0;
const MODE_AES_256_GCM = 1;
const HEADER_BYTES = MAGIC.length + 1;

/** Binds a ciphertext to its content hash, so one blob copied over another fails to decrypt. */
function aadFor(hex: string): Buffer {
  return Buffer.from(`wsmigrate-blob:v1:sha256:${hex}`, 'utf8');
}

export function encodeBlob(hex: string, bytes: Buffer, key: Buffer | undefined): Buffer {
  return key
    ? Buffer.concat([MAGIC, Buffer.from([MODE_AES_256_GCM]), encrypt(key, bytes, aadFor(hex))])
    : Buffer.concat([MAGIC, Buffer.from([MODE_PLAIN]), bytes]);
}

export type DecodedBlob = { ok: true; bytes: Buffer; encrypted: boolean } | { ok: false; encrypted: boolean; problem: string; needsKey?: boolean };

/** `describe` names the blob in every problem ("blob sha256:… (s3://…)"); no problem ever contains content. */
export function decodeBlob(hex: string, stored: Buffer, key: Buffer | undefined, describe: string): DecodedBlob {
  const corrupt = (what: string) => `${describe} ${what}; do not restore from it: find another copy of this backup`;
  if (stored.length < HEADER_BYTES || !stored.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { ok: false, encrypted: false, problem: corrupt('is not a wsmigrate blob (bad header)') };
  }
  const mode = stored[MAGIC.length];
  const body = stored.subarray(HEADER_BYTES);
  let bytes: Buffer;
  if (mode === MODE_PLAIN) {
    bytes = body;
  } else if (mode === MODE_AES_256_GCM) {
    if (!key) {
      return {
        ok: false,
        encrypted: true,
        needsKey: true,
        problem: `${describe} is encrypted at rest but WSMIGRATE_ENCRYPTION_KEY is not set; set it to the key the blob was written with`,
      };
    }
    try {
      bytes = decrypt(key, body, aadFor(hex), describe);
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
