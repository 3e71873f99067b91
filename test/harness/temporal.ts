import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { randomUUID } from 'node:crypto';

export interface TemporalTestContext {
  address: string;
  namespace: string;
  connection: Connection;
  nativeConnection: NativeConnection;
  client: Client;
  close(): Promise<void>;
}

/** Connects to the dev server the global setup started (or the caller's TEMPORAL_ADDRESS). */
export async function connectToTestServer(dataConverter?: DataConverter): Promise<TemporalTestContext> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    throw new Error('TEMPORAL_ADDRESS is not set: run workflow tests through jest (global setup starts a dev server), not with WSMIGRATE_UNIT_ONLY=1.');
  }
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace, dataConverter });
  return {
    address,
    namespace,
    connection,
    nativeConnection,
    client,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** Each test gets its own task queue so workers of different tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
