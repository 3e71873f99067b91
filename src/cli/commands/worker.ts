import type { Command } from 'commander';
import { describeConfig } from '../../config/describe-config';
import { loadConfig } from '../../config/env';
import type { CliIo } from '../io';

export function registerWorkerCommands(program: Command, io: CliIo): void {
  program
    .command('worker')
    .description('run the wsmigrate worker: executes migrations from the task queue against Coder (needs CODER_URL and CODER_SESSION_TOKEN)')
    .addHelpText('after', '\nConfiguration comes from the environment; see `wsmigrate config`. Stops cleanly on SIGINT/SIGTERM.')
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
    .action(() => io.out(describeConfig(loadConfig())));
}
