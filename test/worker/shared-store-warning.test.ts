import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config/env';
import { activityDepsFromConfig } from '../../src/worker/activity-deps';
import { createWsmigrateWorker } from '../../src/worker/create-worker';
import { runWorker } from '../../src/worker/run-worker';
import { otherPollers, warnIfFileStoreShared } from '../../src/worker/shared-store-warning';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';
import { waitFor } from '../harness/wait';

describe('a worker with a file store warns when other workers poll its task queue', () => {
  let t: TemporalTestContext;
  let dir: string;
  let peer: Worker;
  let peerRun: Promise<void>;
  const taskQueue = uniqueTaskQueue('shared');

  beforeAll(async () => {
    t = await connectToTestServer();
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-blobs-'));
    peer = await createWsmigrateWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      workflowsPath: require.resolve('./fixtures/harness-workflows'),
      activities: { greet: async (n: string) => n },
    });
    peerRun = peer.run();
    await waitFor(async () => (await otherPollers(t.connection, t.namespace, taskQueue)).length > 0, 60_000);
  }, 90_000);
  afterAll(async () => {
    peer.shutdown();
    await peerRun;
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says so loudly at start, naming the other worker and the fix, and keeps running', async () => {
    const cfg = loadConfig({ TEMPORAL_ADDRESS: t.address, WSMIGRATE_TASK_QUEUE: taskQueue, WSMIGRATE_BLOB_DIR: dir, WSMIGRATE_METRICS_PORT: '0' });
    const deps = activityDepsFromConfig(cfg, { coder: {} as never });
    expect(deps.blobs.location).toBe(`file://${dir}`);
    const lines: string[] = [];
    const abort = new AbortController();
    const running = runWorker(cfg, deps, { signal: abort.signal, log: (l) => lines.push(l) });
    await waitFor(() => lines.some((l) => l.includes('polling task queue')), 120_000);
    abort.abort();
    await running;
    const warning = lines.find((l) => l.includes('WARNING') && l.includes('backups go to'));
    expect(warning).toBeDefined();
    expect(warning).toContain(`backups go to file://${dir}, this machine's disk, but 1 other worker(s) poll task queue '${taskQueue}': ${peer.options.identity}`);
    expect(warning).toContain('WSMIGRATE_BLOB_URL=s3://bucket/prefix');
  }, 150_000);

  it('stays quiet with an S3 store, or with no other worker', async () => {
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    expect(await warnIfFileStoreShared({ connection: t.connection, namespace: t.namespace, taskQueue, blobLocation: 's3://wsmigrate-backups/prod', log })).toEqual([]);
    expect(await warnIfFileStoreShared({ connection: t.connection, namespace: t.namespace, taskQueue: uniqueTaskQueue('alone'), blobLocation: `file://${dir}`, log })).toEqual([]);
    expect(lines).toEqual([]);
  });
});
