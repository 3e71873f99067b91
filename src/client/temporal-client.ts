import { Client, Connection } from '@temporalio/client';
import type { WsmigrateConfig } from '../config/env';
import { encryptionKeyBytes } from '../config/env';
import { createDataConverter } from '../worker/data-converter';

/** A client that encodes payloads exactly as the worker does (same key, same codec). */
export async function connectClient(cfg: WsmigrateConfig): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address: cfg.temporalAddress });
  const client = new Client({ connection, namespace: cfg.temporalNamespace, dataConverter: createDataConverter(encryptionKeyBytes(cfg)) });
  return { client, connection };
}
