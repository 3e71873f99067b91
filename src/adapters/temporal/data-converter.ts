import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './payload-codec';

/**
 * The data converter for both the client and the worker: they must match, or one side cannot read
 * what the other wrote. Without a key, payloads go to Temporal as plain JSON.
 */
export function createDataConverter(key?: Buffer, previousKeys: readonly Buffer[] = []): DataConverter {
  return key ? { payloadCodecs: [new EncryptionCodec(key, previousKeys)] } : {};
}
