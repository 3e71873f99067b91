import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { encryptionKeyId } from '../../src/config/encryption-key';
import { createDataConverter } from '../../src/adapters/temporal/data-converter';
import { ENCRYPTED_ENCODING, EncryptionCodec, METADATA_KEY_ID } from '../../src/adapters/temporal/payload-codec';

const MARKER = 'workspace-alice-dev-marker-51c2';
const values: unknown[] = [
  { workspace: MARKER, backup: { ref: `sha256:${'ab'.repeat(32)}`, size: 4096 }, approvers: ['alice'] },
  'a plain string',
  42,
  null,
  undefined,
  new Uint8Array([0, 1, 2, 255]),
];

const metadataText = (payload: Payload, key: string) => Buffer.from(payload.metadata?.[key] ?? new Uint8Array()).toString('utf8');
const wire = (payload: Payload) => Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish());

describe('EncryptionCodec', () => {
  const key = randomBytes(32);
  const codec = new EncryptionCodec(key);
  const payloads = values.map((value) => defaultPayloadConverter.toPayload(value));

  it('round-trips real payloads from the default payload converter back to the same values', async () => {
    const decoded = await codec.decode(await codec.encode(payloads));
    expect(decoded).toHaveLength(values.length);
    decoded.forEach((payload, i) => {
      expect(defaultPayloadConverter.fromPayload(payload)).toEqual(values[i]);
      expect(metadataText(payload, 'encoding')).toBe(metadataText(payloads[i], 'encoding'));
    });
  });

  it('marks encoded payloads binary/encrypted with the key id, and hides the original encoding and data', async () => {
    const encoded = await codec.encode(payloads);
    for (const payload of encoded) {
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual(['encoding', METADATA_KEY_ID]);
      expect(metadataText(payload, 'encoding')).toBe(ENCRYPTED_ENCODING);
      expect(metadataText(payload, METADATA_KEY_ID)).toBe(encryptionKeyId(key));
      expect(wire(payload).includes(Buffer.from('json/plain'))).toBe(false);
    }
    expect(wire(encoded[0]).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('never puts the key, in any encoding, into the encoded bytes', async () => {
    const encoded = await codec.encode(payloads);
    const bytes = Buffer.concat(encoded.map(wire));
    for (const form of [key, Buffer.from(key.toString('hex')), Buffer.from(key.toString('base64')), Buffer.from(key.toString('base64url'))]) {
      expect(bytes.includes(form)).toBe(false);
    }
  });

  it('handles an empty batch', async () => {
    expect(await codec.encode([])).toEqual([]);
    expect(await codec.decode([])).toEqual([]);
  });

  it('passes payloads of other encodings through on decode', async () => {
    const [encrypted] = await codec.encode([payloads[0]]);
    const plain = defaultPayloadConverter.toPayload({ written: 'before encryption was turned on' });
    const decoded = await codec.decode([plain, encrypted]);
    expect(decoded[0]).toBe(plain);
    expect(defaultPayloadConverter.fromPayload(decoded[1])).toEqual(values[0]);
  });

  it('fails clearly on an unknown key id, naming both key ids but neither key', async () => {
    const encoded = await new EncryptionCodec(randomBytes(32)).encode([payloads[0]]);
    const otherId = metadataText(encoded[0], METADATA_KEY_ID);
    const attempt = codec.decode(encoded);
    await expect(attempt).rejects.toThrow(
      `cannot decrypt a Temporal payload encrypted with key id ${otherId}: this process has key id ${encryptionKeyId(key)}`,
    );
    await expect(codec.decode(encoded)).rejects.toThrow(/same WSMIGRATE_ENCRYPTION_KEY/);
    await expect(codec.decode(encoded)).rejects.not.toThrow(key.toString('hex'));
  });

  it('names who holds the other key: the worker, this command, the codec server', async () => {
    const encoded = await new EncryptionCodec(randomBytes(32)).encode([payloads[0]]);
    const otherId = metadataText(encoded[0], METADATA_KEY_ID);
    for (const holder of ['the worker', 'this wsmigrate command', 'the codec server'] as const) {
      await expect(new EncryptionCodec(key, [], holder).decode(encoded)).rejects.toThrow(
        `cannot decrypt a Temporal payload encrypted with key id ${otherId}: ${holder} has key id ${encryptionKeyId(key)}. Give the client and the worker the same WSMIGRATE_ENCRYPTION_KEY`,
      );
    }
  });

  it('fails clearly when a payload was altered or relabelled with another key id', async () => {
    const [encoded] = await codec.encode([payloads[0]]);
    const data = Buffer.from(encoded.data ?? []);
    data[20] ^= 0x01;
    const tampered: Payload = { ...encoded, data };
    await expect(codec.decode([tampered])).rejects.toThrow(/cannot decrypt a Temporal payload .*wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data/);

    const previous = randomBytes(32);
    const rotated = new EncryptionCodec(key, [previous]);
    const relabelled: Payload = { ...encoded, metadata: { ...encoded.metadata, [METADATA_KEY_ID]: Buffer.from(encryptionKeyId(previous)) } };
    await expect(rotated.decode([relabelled])).rejects.toThrow(/wrong WSMIGRATE_ENCRYPTION_KEY or corrupted data/);
  });

  it('rejects an encrypted payload without a key id', async () => {
    const [encoded] = await codec.encode([payloads[0]]);
    const unlabelled: Payload = { ...encoded, metadata: { encoding: encoded.metadata!.encoding } };
    await expect(codec.decode([unlabelled])).rejects.toThrow(/has no encryption-key-id/);
  });

  it('after a key rotation, encrypts with the new key and still decrypts history written with the old one', async () => {
    const oldKey = randomBytes(32);
    const [oldPayload] = await new EncryptionCodec(oldKey).encode([payloads[0]]);
    const rotated = new EncryptionCodec(key, [oldKey]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([oldPayload]))[0])).toEqual(values[0]);
    const [fresh] = await rotated.encode([payloads[0]]);
    expect(metadataText(fresh, METADATA_KEY_ID)).toBe(encryptionKeyId(key));
    await expect(new EncryptionCodec(oldKey).decode([fresh])).rejects.toThrow(/key id/);
  });
});

describe('createDataConverter', () => {
  it('has no codec without a key, so payloads stay plain JSON', () => {
    expect(createDataConverter()).toEqual({});
  });

  it('has one encryption codec with a key, and a client and worker built from the same key agree', async () => {
    const key = randomBytes(32);
    const client = createDataConverter(key);
    const worker = createDataConverter(Buffer.from(key));
    expect(client.payloadCodecs).toHaveLength(1);
    const encoded = await client.payloadCodecs![0].encode([defaultPayloadConverter.toPayload(values[0])]);
    const decoded = await worker.payloadCodecs![0].decode(encoded);
    expect(defaultPayloadConverter.fromPayload(decoded[0])).toEqual(values[0]);
  });
});
