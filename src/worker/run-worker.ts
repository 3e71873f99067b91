import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel as TemporalLogLevel } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { describeConfig, encryptionKeyBytes, type WsmigrateConfig } from '../config/env';
import { createWsmigrateWorker } from './create-worker';
import { createDataConverter } from './data-converter';
import { ensureSearchAttributes } from './ensure-search-attributes';

const LEVELS: Record<WsmigrateConfig['logLevel'], TemporalLogLevel> = { error: 'ERROR', warn: 'WARN', info: 'INFO', debug: 'DEBUG' };

let runtimeInstalled = false;

/** Installs the Temporal runtime once per process: logger level and the Prometheus endpoint. */
export function installRuntime(cfg: WsmigrateConfig): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger(LEVELS[cfg.logLevel]),
      ...(cfg.metricsPort > 0 ? { telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${cfg.metricsPort}` } } } } : {}),
    });
  } catch {
    // already installed by the embedding process (tests, demo)
  }
}

/** Connects, registers search attributes and runs the worker until `signal` aborts. */
export async function runWorker(cfg: WsmigrateConfig, deps: ActivityDeps, opts: { signal?: AbortSignal; log?: (l: string) => void } = {}): Promise<void> {
  installRuntime(cfg);
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  log(`wsmigrate worker starting\n${describeConfig(cfg)}`);
  const admin = await Connection.connect({ address: cfg.temporalAddress });
  try {
    await ensureSearchAttributes(admin, cfg.temporalNamespace);
  } finally {
    await admin.close();
  }
  const connection = await NativeConnection.connect({ address: cfg.temporalAddress });
  const worker = await createWsmigrateWorker({
    connection,
    namespace: cfg.temporalNamespace,
    taskQueue: cfg.taskQueue,
    activities: createActivities(deps),
    dataConverter: createDataConverter(encryptionKeyBytes(cfg)),
    maxConcurrentActivityTaskExecutions: cfg.workerActivitySlots,
  });
  opts.signal?.addEventListener('abort', () => worker.shutdown());
  log(`wsmigrate worker polling task queue '${cfg.taskQueue}' on ${cfg.temporalAddress} (namespace ${cfg.temporalNamespace})`);
  try {
    await worker.run();
  } finally {
    await connection.close();
  }
}
