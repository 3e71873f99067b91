import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { decrypt, encrypt } from '../crypto';
import { encryptionKeyId } from '../../config/encryption-key';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';

const text = (s: string) => Buffer.from(s, 'utf8');
const asText = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/** Binds a ciphertext to the key id in its metadata, so relabelling a payload's key id fails to decrypt. */
function aadFor(keyId: string): Buffer {
  return text(`wsmigrate-payload:v1:${keyId}`);
}

/**
 * Who holds the codec, as its errors name it: the decrypt error of a worker reaches an SRE through
 * `wsmigrate status` (the failed workflow task's message), where "this process" would read as the CLI.
 */
export type CodecHolder = 'the worker' | 'this wsmigrate command' | 'the codec server' | 'this process';

/**
 * Encrypts every Temporal payload (workflow inputs, results, signals, memos, failures' details) with
 * AES-256-GCM, so the Temporal server and its database only see ciphertext. The whole Payload proto
 * is encrypted, metadata included, so even the original encoding is hidden. Search attributes do not
 * pass through codecs: keep them free of secrets.
 */
export class EncryptionCodec implements PayloadCodec {
  readonly keyId: string;
  private readonly keysById: ReadonlyMap<string, Buffer>;

  /**
   * `key` encrypts and decrypts; `previousKeys` only decrypt, so histories written before a key
   * rotation stay readable.
   */
  constructor(
    private readonly key: Buffer,
    previousKeys: readonly Buffer[] = [],
    private readonly holder: CodecHolder = 'this process',
  ) {
    this.keyId = encryptionKeyId(key);
    this.keysById = new Map([...previousKeys, key].map((k) => [encryptionKeyId(k), k]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plain = Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish());
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: text(ENCRYPTED_ENCODING),
          [METADATA_KEY_ID]: text(this.keyId),
        },
        data: encrypt(this.key, plain, aadFor(this.keyId)),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (asText(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const keyId = asText(payload.metadata?.[METADATA_KEY_ID]);
      if (keyId === undefined) {
        throw new Error(`cannot decrypt a Temporal payload: it is ${ENCRYPTED_ENCODING} but has no ${METADATA_KEY_ID}; it was not written by wsmigrate`);
      }
      const key = this.keysById.get(keyId);
      if (!key) {
        throw new Error(
          `cannot decrypt a Temporal payload encrypted with key id ${keyId}: ${this.holder} has key id ${[...this.keysById.keys()].join(', ')}. ` +
            'Give the client and the worker the same WSMIGRATE_ENCRYPTION_KEY (compare key ids with `wsmigrate config`)',
        );
      }
      const plain = decrypt(key, Buffer.from(payload.data ?? new Uint8Array()), aadFor(keyId), `a Temporal payload (key id ${keyId})`);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}
