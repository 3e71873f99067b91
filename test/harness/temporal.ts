import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { randomUUID } from 'node:crypto';

/**
 * The test run's dev server (global-setup) fires a timer at its time, not up to a second late.
 * Temporal schedules every timer (a `sleep`, a retry's backoff, a `condition`'s timeout) no earlier
 * than now + history.timerProcessorMaxTimeShift, 1 s by default (an allowance for clocks of several
 * hosts): a 50 ms poll of fixtures/short-timers took ~1 s, and sixty of them a minute. One
 * process has one clock, so 50 ms here. A timer of seconds or minutes fires when it did; only the
 * late second is gone. test/worker/dev-server.test.ts holds the harness to it.
 */
export const TEST_SERVER_DYNAMIC_CONFIG: ReadonlyArray<readonly [string, string]> = [['history.timerProcessorMaxTimeShift', '"50ms"']];

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
