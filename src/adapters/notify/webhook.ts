import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Notification, Notifier } from '../../ports/notifier';
import type { Secret } from '../../config/secret';
import { PermanentDeliveryError, withRetryBudget, type RetryBudget } from './retry-budget';

export const WEBHOOK_SIGNATURE_HEADER = 'x-wsmigrate-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-wsmigrate-timestamp';

/** `v1=` + hex HMAC-SHA256(secret, `${timestamp}.${body}`): the receiver recomputes it and checks the timestamp is recent. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** For receivers (and tests): a constant-time check of the signature and a 5-minute window on the timestamp. */
export function verifyWebhookSignature(secret: string, timestamp: string, body: string, signature: string, nowMs = Date.now()): boolean {
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowMs / 1000 - ts) > 300) return false;
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface WebhookOptions {
  url: Secret;
  secret?: Secret;
  budget?: RetryBudget;
}

/** POSTs each notification as JSON, signed when a secret is configured. */
export function createWebhookNotifier(opts: WebhookOptions): Notifier {
  return {
    async notify(n: Notification) {
      const body = JSON.stringify({ ...n, at: new Date().toISOString() });
      await withRetryBudget(async (signal) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'wsmigrate', [WEBHOOK_TIMESTAMP_HEADER]: timestamp };
        if (opts.secret) headers[WEBHOOK_SIGNATURE_HEADER] = webhookSignature(opts.secret.reveal(), timestamp, body);
        let res: Response;
        try {
          res = await fetch(opts.url.reveal(), { method: 'POST', headers, body, signal });
        } catch (err) {
          // fetch's message may quote the URL, which can hold a token: say only what kind of failure it was.
          throw new Error(`webhook unreachable (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name})`);
        }
        await res.body?.cancel();
        if (res.status >= 500 || res.status === 429) throw new Error(`webhook answered ${res.status}`);
        if (!res.ok) throw new PermanentDeliveryError(`webhook refused the notification with ${res.status}; check WSMIGRATE_WEBHOOK_URL and WSMIGRATE_WEBHOOK_SECRET`);
      }, opts.budget);
    },
  };
}
