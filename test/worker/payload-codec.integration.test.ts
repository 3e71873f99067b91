import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { createWsmigrateWorker } from '../../src/worker/create-worker';
import { createDataConverter } from '../../src/adapters/temporal/data-converter';
import { ENCRYPTED_ENCODING } from '../../src/adapters/temporal/payload-codec';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';

const MARKER = 'alice-dev-home-volume-3f9e';

/** Every payload in the raw history, whatever event it sits in. */
function payloadsIn(value: unknown, found: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }[] = []) {
  if (value && typeof value === 'object') {
    if ('metadata' in value && 'data' in value) found.push(value as (typeof found)[number]);
    for (const child of Object.values(value)) payloadsIn(child, found);
  }
  return found;
}

describe('payload encryption on a real Temporal dev server', () => {
  let t: TemporalTestContext;
  const key = randomBytes(32);
  beforeAll(async () => {
    t = await connectToTestServer(createDataConverter(key));
  });
  afterAll(async () => t?.close());

  it('runs a workflow end to end while the server stores only ciphertext', async () => {
    const taskQueue = uniqueTaskQueue('codec');
    const worker = await createWsmigrateWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      workflowsPath: require.resolve('./fixtures/codec-workflows'),
      dataConverter: createDataConverter(key),
      activities: {
        async describeBackup(input: { workspace: string; ref: string }) {
          return `${input.workspace} backed up as ${input.ref}`;
        },
      },
    });
    const workflowId = `codec-${taskQueue}`;
    const input = { workspace: MARKER, ref: `sha256:${'cd'.repeat(32)}` };
    const result = await worker.runUntil(t.client.workflow.execute('codecEchoWorkflow', { taskQueue, workflowId, args: [input] }));
    expect(result).toEqual({ summary: `${MARKER} backed up as ${input.ref}` });

    // Read the history with a client that has no codec: this is what the server and its database hold.
    const raw = new Client({ connection: t.connection, namespace: t.namespace });
    const history = await raw.workflow.getHandle(workflowId).fetchHistory();
    const payloads = payloadsIn(history.events);
    expect(payloads.length).toBeGreaterThanOrEqual(4); // workflow input, activity input, activity result, workflow result
    for (const payload of payloads) {
      expect(Buffer.from(payload.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
      expect(Buffer.from(payload.data ?? []).includes(Buffer.from(MARKER))).toBe(false);
    }
    expect(JSON.stringify(history)).not.toContain(MARKER);
  });

  it('a client with another key cannot read the result, and says why', async () => {
    const taskQueue = uniqueTaskQueue('codec');
    const worker = await createWsmigrateWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      workflowsPath: require.resolve('./fixtures/codec-workflows'),
      dataConverter: createDataConverter(key),
      activities: { describeBackup: async () => 'done' },
    });
    const workflowId = `codec-${taskQueue}`;
    await worker.runUntil(t.client.workflow.execute('codecEchoWorkflow', { taskQueue, workflowId, args: [{ workspace: MARKER, ref: 'x' }] }));
    const stranger = new Client({ connection: t.connection, namespace: t.namespace, dataConverter: createDataConverter(randomBytes(32)) });
    await expect(stranger.workflow.getHandle(workflowId).result()).rejects.toThrow(/encrypted with key id .*same WSMIGRATE_ENCRYPTION_KEY/);
  });
});
