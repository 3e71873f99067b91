import type { Notifier } from '../../ports/notifier';
import type { WsmigrateConfig } from '../../config/env';
import { createFanOutNotifier, type NamedNotifier } from './fan-out';
import { createJsonLineNotifier } from './json-line-notifier';
import { DEFAULT_RETRY_BUDGET, type RetryBudget } from './retry-budget';
import { createSlackNotifier } from './slack';
import { createWebhookNotifier } from './webhook';

/** The log always; Slack when SLACK_BOT_TOKEN and SLACK_CHANNEL are set; the webhook when WSMIGRATE_WEBHOOK_URL is. */
export function notifierFromConfig(
  cfg: WsmigrateConfig,
  opts: { write?: (line: string) => void; budget?: RetryBudget; /** Replaces the plain-text log backend (the worker's pino logger). */ logBackend?: Notifier } = {},
): { notifier: Notifier; backends: string[] } {
  const write = opts.write ?? ((l: string) => process.stdout.write(`${l}\n`));
  const budget = opts.budget ?? DEFAULT_RETRY_BUDGET;
  const backends: NamedNotifier[] = [{ name: 'log', notifier: opts.logBackend ?? createJsonLineNotifier(write) }];
  if (cfg.slackBotToken && cfg.slackChannel) {
    backends.push({ name: 'slack', notifier: createSlackNotifier({ token: cfg.slackBotToken, channel: cfg.slackChannel, apiUrl: cfg.slackApiUrl, budget }) });
  }
  if (cfg.webhookUrl) {
    backends.push({ name: 'webhook', notifier: createWebhookNotifier({ url: cfg.webhookUrl, secret: cfg.webhookSecret, budget }) });
  }
  const notifier = createFanOutNotifier(backends, { log: write, secrets: [cfg.slackBotToken, cfg.slackSigningSecret, cfg.webhookSecret, cfg.webhookUrl] });
  return { notifier, backends: backends.map((b) => b.name) };
}
