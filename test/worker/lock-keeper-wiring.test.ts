import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRequireActiveVersion } from '../../src/activities/active-version-lock';
import type { ActivityDeps } from '../../src/activities/ports';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus-metrics';
import { loadConfig } from '../../src/config/env';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { activityDepsFromConfig } from '../../src/worker/activity-deps';
import { runWorker } from '../../src/worker/run-worker';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

/**
 * The lock keeper as `wsmigrate worker` runs it (runWorker, from WSMIGRATE_LOCK_KEEPER_INTERVAL):
 * a mark whose run Temporal does not know (its retention expired) is given back at the worker's
 * start, said in the log and counted.
 */
describe('the lock keeper in the production wiring (runWorker)', () => {
  let t: TemporalTestContext;
  let sim: CoderSimulator;
  let blobDir: string;
  beforeAll(async () => {
    t = await connectToTestServer();
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, premium: true, templateName: uniqueTaskQueue('keeper') });
    blobDir = mkdtempSync(join(tmpdir(), 'wsmigrate-keeper-'));
  });
  afterAll(async () => {
    await sim?.close();
    await t?.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it("gives back require_active_version whose run Temporal no longer knows, logs it and counts it", async () => {
    const cfg = loadConfig({
      TEMPORAL_ADDRESS: t.address,
      TEMPORAL_NAMESPACE: t.namespace,
      WSMIGRATE_TASK_QUEUE: uniqueTaskQueue('keeper'),
      CODER_URL: sim.url,
      CODER_SESSION_TOKEN: sim.token,
      WSMIGRATE_BLOB_DIR: blobDir,
      WSMIGRATE_METRICS_PORT: '0',
      WSMIGRATE_LOCK_KEEPER_INTERVAL: '1',
    });
    const deps = activityDepsFromConfig(cfg);
    const gone = `wsmigrate-fleet/coder/${sim.template.name}-long-gone`;
    expect(await makeRequireActiveVersion(deps as ActivityDeps)({ organization: 'coder', template: sim.template.name, workflowId: gone })).toEqual({ state: 'switched-on' });
    const setting = async () => (await deps.coder.template(sim.template.id)).require_active_version;
    expect(await setting()).toBe(true);

    const lines: string[] = [];
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const stop = new AbortController();
    const running = runWorker(cfg, deps, { signal: stop.signal, log: (l) => lines.push(l), metrics });
    try {
      await waitFor(async () => lines.some((l) => l.startsWith('lock keeper:')), 30_000);
      expect(await setting()).toBe(false);
      expect(lines).toContainEqual(expect.stringContaining(`lock keeper: require_active_version given back (off) on template coder/${sim.template.name}: no wsmigrate run holds it (${gone} no longer known to Temporal`));
      const counted = (await metrics.registry.getSingleMetric('wsmigrate_lock_keeper_given_back_total')?.get())?.values.find((v) => v.labels.template === `coder/${sim.template.name}`)?.value;
      expect(counted).toBe(1);
      expect(await deps.blobs.list()).toEqual([]);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('a worker stopped while it starts up (a SIGTERM during a rollout) ends instead of polling on', async () => {
    const cfg = loadConfig({ TEMPORAL_ADDRESS: t.address, TEMPORAL_NAMESPACE: t.namespace, WSMIGRATE_TASK_QUEUE: uniqueTaskQueue('keeper'), CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token, WSMIGRATE_BLOB_DIR: blobDir, WSMIGRATE_LOCK_KEEPER_INTERVAL: 'off' });
    const stop = new AbortController();
    stop.abort();
    const lines: string[] = [];
    const ended = await Promise.race([runWorker(cfg, activityDepsFromConfig(cfg), { signal: stop.signal, log: (l) => lines.push(l) }).then(() => 'ended'), new Promise((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(ended).toBe('ended');
    expect(lines.some((l) => l.startsWith('wsmigrate worker polling'))).toBe(false);
  });
});
