import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type CodecHolder } from './payload-codec';

/**
 * The data converter for both the client and the worker: they must match, or one side cannot read
 * what the other wrote. Without a key, payloads go to Temporal as plain JSON. `holder` is who a
 * decrypt error names as holding the other key id (the worker's reaches the SRE through `status`).
 */
export function createDataConverter(key?: Buffer, previousKeys: readonly Buffer[] = [], holder?: CodecHolder): DataConverter {
  return key ? { payloadCodecs: [new EncryptionCodec(key, previousKeys, holder)] } : {};
}

/** The worker's: its decrypt errors (a workflow task it fails, shown by `status`) name the worker. */
export function workerDataConverter(key?: Buffer): DataConverter {
  return createDataConverter(key, [], 'the worker');
}

/** The CLI's and chatops' client: its decrypt errors name this command. */
export function clientDataConverter(key?: Buffer): DataConverter {
  return createDataConverter(key, [], 'this wsmigrate command');
}
