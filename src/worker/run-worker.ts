import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString, type LogLevel as TemporalLogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, type ActivityDeps } from '../activities';
import { freeLoopbackPort } from '../adapters/free-port';
import { PinoTemporalLogger } from '../adapters/logging/temporal-logger';
import { coderReadiness } from '../adapters/metrics/coder-readiness';
import { startMetricsEndpoint, type MetricsEndpoint } from '../adapters/metrics/http-endpoint';
import { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import { ReadinessProbe } from '../adapters/metrics/readiness';
import { visibilityCounts } from '../adapters/metrics/visibility-gauges';
import { Client } from '@temporalio/client';
import { makeReleaseActiveVersion } from '../activities/active-version-lock';
import { temporalLockHolders } from '../client/lock-holders';
import { runsBesideWindow } from '../client/fleet-conflicts';
import { connectTemporal, temporalConnectionOptions } from '../client/temporal-client';
import { clientDataConverter } from '../adapters/temporal/data-converter';
import { describeConfig } from '../config/describe-config';
import { encryptionKeyBytes, type WsmigrateConfig } from '../config/env';
import { createWsmigrateWorker } from './create-worker';
import { workerDataConverter } from '../adapters/temporal/data-converter';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { checkBlobStore } from './check-blob-store';
import { checkCoderAtStart } from './check-coder';
import { warnIfFileStoreShared } from './shared-store-warning';
import { createLockKeeper, type LockKeeper } from './lock-keeper';
import { coderLockMarks } from './lock-marks';

const LEVELS: Record<WsmigrateConfig['logLevel'], TemporalLogLevel> = { error: 'ERROR', warn: 'WARN', info: 'INFO', debug: 'DEBUG' };

let runtimeInstalled = false;

/**
 * Installs the Temporal runtime once per process: logger level and, when given, the address of the
 * runtime's own Prometheus exporter (loopback; the worker's endpoint serves it with ours).
 */
export function installRuntime(cfg: WsmigrateConfig, temporalMetricsAddress?: string, logger?: Logger): boolean {
  if (runtimeInstalled) return false;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: logger ? new PinoTemporalLogger(logger) : new DefaultLogger(LEVELS[cfg.logLevel]),
      telemetryOptions: {
        // The Rust core's own warnings go through the same logger, as JSON lines like the rest.
        ...(logger ? { logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } } : {}),
        ...(temporalMetricsAddress ? { metrics: { prometheus: { bindAddress: temporalMetricsAddress } } } : {}),
      },
    });
    return true;
  } catch {
    // already installed by the embedding process (tests, demo)
    return false;
  }
}

/** A free loopback port for the Temporal runtime's exporter, which only our endpoint reads. */
export interface RunWorkerOptions {
  signal?: AbortSignal;
  log?: (l: string) => void;
  /** The metrics the activities and the Coder client record into; created here when absent. */
  metrics?: PrometheusMetrics;
  /** The process's structured logger; Temporal's logger is routed into it. */
  logger?: Logger;
}

/** Connects, registers search attributes, serves metrics and probes, and runs the worker until `signal` aborts. */
export async function runWorker(cfg: WsmigrateConfig, deps: ActivityDeps, opts: RunWorkerOptions = {}): Promise<void> {
  const temporalMetricsAddress = cfg.metricsPort > 0 ? `127.0.0.1:${await freeLoopbackPort()}` : undefined;
  const ownRuntime = installRuntime(cfg, temporalMetricsAddress, opts.logger);
  const log = opts.log ?? (opts.logger ? (l: string) => opts.logger?.info(l) : (l: string) => process.stderr.write(`${l}\n`));
  log(`wsmigrate worker starting\n${describeConfig(cfg)}`);
  await checkBlobStore(deps.blobs, log);
  void checkCoderAtStart(coderReadiness(deps.coder), cfg.coderUrl ?? 'CODER_URL', log);
  const admin = await connectTemporal(cfg);
  let endpoint: MetricsEndpoint | undefined;
  let probe: ReadinessProbe | undefined;
  let connection: NativeConnection | undefined;
  let keeper: LockKeeper | undefined;
  try {
    await ensureSearchAttributes(admin, cfg.temporalNamespace);
    // Before we poll, so every poller listed is another worker.
    await warnIfFileStoreShared({ connection: admin, namespace: cfg.temporalNamespace, taskQueue: cfg.taskQueue, blobLocation: deps.blobs.location, log });
    if (cfg.metricsPort > 0) {
      const metrics = opts.metrics ?? new PrometheusMetrics();
      metrics.inFlight = visibilityCounts(admin, cfg.temporalNamespace);
      probe = new ReadinessProbe([
        { name: 'temporal', check: () => admin.workflowService.getSystemInfo({}) },
        coderReadiness(deps.coder),
      ]);
      probe.start();
      endpoint = await startMetricsEndpoint({
        host: cfg.metricsHost,
        port: cfg.metricsPort,
        registry: metrics.registry,
        ...(ownRuntime && temporalMetricsAddress ? { temporalMetricsUrl: `http://${temporalMetricsAddress}/metrics` } : {}),
        readiness: probe,
      });
      log(`wsmigrate worker serves /metrics, /healthz and /readyz on ${endpoint.url}`);
    }
    const client = new Client({ connection: admin, namespace: cfg.temporalNamespace, dataConverter: clientDataConverter(encryptionKeyBytes(cfg)) });
    if (cfg.lockKeeperIntervalSeconds > 0) {
      keeper = createLockKeeper({
        findMarks: coderLockMarks(deps),
        holders: temporalLockHolders(client),
        giveBack: makeReleaseActiveVersion(deps),
        log: (line, level) => (opts.logger ? opts.logger[level](line) : log(line)),
        ...(opts.metrics ? { gaveBack: (t: string) => opts.metrics?.lockKeeperGaveBack(t) } : {}),
        intervalMs: cfg.lockKeeperIntervalSeconds * 1000,
      });
      keeper.start();
    }
    if (opts.signal?.aborted) return;
    connection = await NativeConnection.connect(temporalConnectionOptions(cfg));
    const worker = await createWsmigrateWorker({
      connection,
      namespace: cfg.temporalNamespace,
      taskQueue: cfg.taskQueue,
      // A schedule's window asks Temporal, through this client, which fleets run beside it (migrate-fleet.ts).
      activities: createActivities({ ...deps, otherRuns: deps.otherRuns ?? ((q) => runsBesideWindow(client, q)) }),
      dataConverter: workerDataConverter(encryptionKeyBytes(cfg)),
      maxConcurrentActivityTaskExecutions: cfg.workerActivitySlots,
    });
    opts.signal?.addEventListener('abort', () => worker.shutdown());
    log(`wsmigrate worker polling task queue '${cfg.taskQueue}' on ${cfg.temporalAddress} (namespace ${cfg.temporalNamespace})`);
    const polling = worker.run();
    // Stopped while it started up (a SIGTERM during a rollout): the abort came before anyone listened, so stop now, not never.
    if (opts.signal?.aborted) worker.shutdown();
    await polling;
  } finally {
    await keeper?.stop();
    probe?.stop();
    await endpoint?.close();
    await connection?.close();
    await admin.close();
  }
}
