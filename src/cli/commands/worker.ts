import type { Command } from 'commander';
import { describeConfig } from '../../config/describe-config';
import { loadConfig } from '../../config/env';
import type { CliIo } from '../io';

export function registerWorkerCommands(program: Command, io: CliIo): void {
  program
    .command('worker')
    .description('run the wsmigrate worker: executes migrations from the task queue against Coder (needs CODER_URL and CODER_SESSION_TOKEN)')
    .addHelpText(
      'after',
      '\nExample:\n  export CODER_URL=https://coder.example.com CODER_SESSION_TOKEN=…   # an Owner\'s or an Organization Admin\'s token\n' +
        '  wsmigrate worker        # polls task queue WSMIGRATE_TASK_QUEUE (wsmigrate) on TEMPORAL_ADDRESS (127.0.0.1:7233)\n\n' +
        'Configuration comes from the environment; see `wsmigrate config`. Serves /metrics, /healthz and /readyz on\n' +
        'WSMIGRATE_METRICS_HOST:WSMIGRATE_METRICS_PORT (127.0.0.1:9464). Stops cleanly on SIGINT/SIGTERM.\n' +
        'Exit codes: 0 stopped by SIGINT/SIGTERM, 2 invalid configuration (each bad variable named), 1 it could not start.',
    )
    .action(async () => {
      const cfg = loadConfig();
      const { activityDepsFromConfig } = await import('../../worker/activity-deps');
      const { runWorker } = await import('../../worker/run-worker');
      const { PrometheusMetrics } = await import('../../adapters/metrics/prometheus-metrics');
      const { processLogger } = await import('../process-logger');
      const { createPinoNotifier } = await import('../../adapters/notify/pino-notifier');
      const { notifierFromConfig } = await import('../../adapters/notify/from-config');
      const logger = processLogger(cfg, 'worker');
      const metrics = new PrometheusMetrics();
      // Slack and the webhook when configured, and always the structured log.
      const notifier = notifierFromConfig(cfg, { logBackend: createPinoNotifier(logger), write: (line) => logger.warn(line) }).notifier;
      const abort = new AbortController();
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => abort.abort());
      const deps = activityDepsFromConfig(cfg, { metrics, notifier }, { observeCoderCall: metrics.observeCoderCall });
      await runWorker(cfg, deps, { signal: abort.signal, metrics, logger });
    });

  program
    .command('config')
    .description('print the configuration wsmigrate reads from the environment (secrets redacted) and exit non-zero when it is invalid')
    .action(async () => {
      const { settingsReadOutside } = await import('../../config/describe-config');
      const { toolsCacheDir } = await import('../../config/tools');
      io.out(describeConfig(loadConfig(), settingsReadOutside(process.env, toolsCacheDir())));
    });
}
