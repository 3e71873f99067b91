import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectClient } from '../../src/client/temporal-client';
import { startTemplateMigration } from '../../src/client/migrations';
import { loadConfig } from '../../src/config/env';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { activityDepsFromConfig } from '../../src/worker/activity-deps';
import { runWorker } from '../../src/worker/run-worker';
import { ENCRYPTED_ENCODING } from '../../src/adapters/temporal/payload-codec';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';

type RawPayload = { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null };

/**
 * Every payload of the history except search attributes and patch markers, which by design never
 * pass through codecs (a patch marker holds the patch's id, written by the SDK: code, not data).
 */
function payloadsIn(value: unknown, found: RawPayload[] = []): RawPayload[] {
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    if ((value as { markerName?: string }).markerName === 'core_patch') return found;
    if ('metadata' in value && 'data' in value) found.push(value as RawPayload);
    for (const [k, child] of Object.entries(value)) if (k !== 'searchAttributes') payloadsIn(child, found);
  }
  return found;
}

/**
 * The codec as production wires it: `wsmigrate worker` (runWorker) and every CLI command
 * (connectClient) build their converters from WSMIGRATE_ENCRYPTION_KEY. Dropping the codec on either
 * side must fail here: the worker could not read the client's input, or the server would hold plain JSON.
 */
describe('payload encryption in the production wiring (runWorker + connectClient)', () => {
  let t: TemporalTestContext;
  let sim: CoderSimulator;
  let blobDir: string;
  beforeAll(async () => {
    t = await connectToTestServer();
    sim = await startSimulator({ workspaces: 1, templateName: uniqueTaskQueue('enc') });
    blobDir = mkdtempSync(join(tmpdir(), 'wsmigrate-enc-'));
  });
  afterAll(async () => {
    await sim?.close();
    await t?.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('a template migration started by connectClient and run by runWorker leaves only ciphertext on the server', async () => {
    const cfg = loadConfig({
      TEMPORAL_ADDRESS: t.address,
      TEMPORAL_NAMESPACE: t.namespace,
      WSMIGRATE_TASK_QUEUE: uniqueTaskQueue('enc'),
      CODER_URL: sim.url,
      CODER_SESSION_TOKEN: sim.token,
      WSMIGRATE_BLOB_DIR: blobDir,
      WSMIGRATE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WSMIGRATE_METRICS_PORT: '0',
    });
    const stop = new AbortController();
    const running = runWorker(cfg, activityDepsFromConfig(cfg), { signal: stop.signal, log: () => undefined });
    const { client, connection } = await connectClient(cfg);
    try {
      const handle = await startTemplateMigration(client, { organization: 'coder', template: sim.template.name, dryRun: true, approval: { policy: 'none' } }, { taskQueue: cfg.taskQueue });
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no result in 45s: the worker could not read what the client wrote')), 45_000).unref());
      const result = (await Promise.race([handle.result(), timeout])) as TemplateMigrationResult;
      expect(result.outcome).toBe('dry-run');

      // What the server and its database hold, read with no codec at all.
      const raw = new Client({ connection: t.connection, namespace: t.namespace });
      const history = await raw.workflow.getHandle(handle.workflowId).fetchHistory();
      const payloads = payloadsIn(history.events);
      expect(payloads.length).toBeGreaterThanOrEqual(6); // workflow input and result, activity inputs and results
      for (const p of payloads) expect(Buffer.from(p.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
      const rawText = payloads.map((p) => Buffer.from(p.data ?? []).toString('latin1')).join('\n');
      expect(rawText).not.toContain('"organization"');
      expect(rawText).not.toContain('dry-run');
    } finally {
      stop.abort();
      await running;
      await connection.close();
    }
  }, 90_000);
});
