import { LogLevel, WebClient, type Logger } from '@slack/web-api';
import type { MessageRef, Notification, Notifier, NotifyOutcome } from '../../ports/notifier';
import type { Secret } from '../../config/secret';
import { PermanentDeliveryError, withRetryBudget, type RetryBudget } from './retry-budget';
import { slackMessage } from './slack-message';

export interface SlackNotifierOptions {
  token: Secret;
  channel: string;
  apiUrl?: string;
  budget?: RetryBudget;
}

/** The Web API client logs through us only at error level, and we drop its lines: ours say what failed. */
const silent: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};

/** Errors no retry fixes: a wrong token, channel or scope. */
const PERMANENT = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'channel_not_found', 'not_in_channel', 'missing_scope', 'message_not_found', 'cant_update_message', 'invalid_blocks']);

function slackError(err: unknown): Error {
  const e = err as { code?: string; data?: { error?: string } };
  const what = e.data?.error ?? e.code ?? (err as Error).name;
  const message = `Slack refused the message (${what})`;
  return e.data?.error && PERMANENT.has(e.data.error) ? new PermanentDeliveryError(`${message}; check SLACK_BOT_TOKEN's scopes (chat:write) and SLACK_CHANNEL`) : new Error(message);
}

/**
 * Posts approvals and outcomes to one channel with `chat.postMessage`, and edits an approval's
 * message in place (`chat.update`) when it escalates or closes, from the refs the workflow kept.
 */
export function createSlackNotifier(opts: SlackNotifierOptions): Notifier {
  const client = new WebClient(opts.token.reveal(), {
    ...(opts.apiUrl ? { slackApiUrl: opts.apiUrl } : {}),
    // Our retry budget does the retrying, so a Slack outage costs a bounded time.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: silent,
    logLevel: LogLevel.ERROR,
  });
  const call = <T>(fn: () => Promise<T>) =>
    withRetryBudget(async () => {
      try {
        return await fn();
      } catch (err) {
        throw slackError(err);
      }
    }, opts.budget);

  return {
    async notify(n: Notification): Promise<NotifyOutcome> {
      const message = slackMessage(n);
      const own = (n.messageRefs ?? []).filter((r) => r.backend === 'slack');
      const editsInPlace = n.kind === 'approval-escalated' || n.kind === 'approval-changed' || n.kind === 'approval-closed' || n.kind === 'approval-timed-out';
      if (editsInPlace && own.length > 0) {
        for (const ref of own) {
          await call(() => client.chat.update({ channel: ref.channel, ts: ref.ts, ...message }));
          // An edit notifies no one; an overdue gate, or one whose plan was overtaken, must: a reply shown in the channel.
          if (n.kind === 'approval-escalated' || n.kind === 'approval-changed') {
            await call(() => client.chat.postMessage({ channel: ref.channel, thread_ts: ref.ts, reply_broadcast: true, text: message.text }));
          }
        }
        return { messageRefs: own };
      }
      const posted = await call(() => client.chat.postMessage({ channel: opts.channel, ...message }));
      const refs: MessageRef[] = posted.channel && posted.ts ? [{ backend: 'slack', channel: posted.channel, ts: posted.ts }] : [];
      return { messageRefs: refs };
    },
  };
}
