import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { createDataConverter } from '../../src/adapters/temporal/data-converter';
import { ENCRYPTED_ENCODING } from '../../src/adapters/temporal/payload-codec';
import { connectToTestServer, type TemporalTestContext } from '../harness/temporal';
import { payloadsIn, runCodecEcho } from './fixtures/codec-echo';

const MARKER = 'alice-dev-home-volume-3f9e';

describe('payload encryption on a real Temporal dev server', () => {
  let t: TemporalTestContext;
  const key = randomBytes(32);
  beforeAll(async () => {
    t = await connectToTestServer(createDataConverter(key));
  });
  afterAll(async () => t?.close());

  it('runs a workflow end to end while the server stores only ciphertext', async () => {
    const input = { workspace: MARKER, ref: `sha256:${'cd'.repeat(32)}` };
    const { workflowId, result } = await runCodecEcho(t, key, input);
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
    const { workflowId } = await runCodecEcho(t, key, { workspace: MARKER, ref: 'x' });
    const stranger = new Client({ connection: t.connection, namespace: t.namespace, dataConverter: createDataConverter(randomBytes(32)) });
    await expect(stranger.workflow.getHandle(workflowId).result()).rejects.toThrow(/encrypted with key id .*same WSMIGRATE_ENCRYPTION_KEY/);
  });
});
