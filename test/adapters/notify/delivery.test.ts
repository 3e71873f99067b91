import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret } from '../../../src/config/secret';
import { createFanOutNotifier } from '../../../src/adapters/notify/fan-out';
import { DEFAULT_RETRY_BUDGET, PermanentDeliveryError, withRetryBudget } from '../../../src/adapters/notify/retry-budget';
import { createWebhookNotifier, verifyWebhookSignature, webhookSignature } from '../../../src/adapters/notify/webhook';
import type { Notification, Notifier } from '../../../src/ports/notifier';

const note: Notification = { kind: 'approval-requested', workflowId: 'wsmigrate/k8s/alice/dev', subject: 's', text: 't' } as Notification;
const fast = { attempts: 3, attemptTimeoutMs: 200, totalMs: 5_000, baseDelayMs: 5 };

describe('the retry budget of a notification backend', () => {
  it('tries exactly `attempts` times, three by default', async () => {
    expect(DEFAULT_RETRY_BUDGET.attempts).toBe(3);
    let calls = 0;
    await expect(withRetryBudget(() => Promise.reject(new Error(`no ${++calls}`)), fast)).rejects.toThrow('no 3');
    expect(calls).toBe(3);
  });

  it('aborts an attempt at its timeout, so a hung request is not left running', async () => {
    const signals: AbortSignal[] = [];
    await expect(withRetryBudget((signal) => (signals.push(signal), new Promise<never>(() => undefined)), { ...fast, attempts: 1, attemptTimeoutMs: 30 })).rejects.toThrow(/no answer within 30 ms/);
    expect(signals[0]!.aborted).toBe(true);
  });

  it('starts no attempt whose delay would pass the total budget', async () => {
    let calls = 0;
    await expect(withRetryBudget(() => Promise.reject(new Error(`no ${++calls}`)), { attempts: 5, attemptTimeoutMs: 100, totalMs: 50, baseDelayMs: 40 })).rejects.toThrow('no 2');
    expect(calls).toBe(2);
  });

  it('tries a permanent failure once', async () => {
    let calls = 0;
    await expect(withRetryBudget(() => (calls++, Promise.reject(new PermanentDeliveryError('400'))), fast)).rejects.toThrow('400');
    expect(calls).toBe(1);
  });
});

describe('webhook signatures', () => {
  const secret = 'whsec-0123456789';
  const body = '{"kind":"approval-requested"}';
  const now = Date.parse('2026-12-07T12:00:00Z');
  const ts = String(now / 1000);

  it('are v1= hex HMAC-SHA256 over "<timestamp>.<body>", as the README tells receivers', () => {
    expect(webhookSignature(secret, ts, body)).toBe(`v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`);
  });

  it('verify within five minutes either side only, and answer false (not throw) for a signature of another length', () => {
    const sig = webhookSignature(secret, ts, body);
    expect(verifyWebhookSignature(secret, ts, body, sig, now)).toBe(true);
    expect(verifyWebhookSignature(secret, ts, body, sig, now + 299_000)).toBe(true);
    expect(verifyWebhookSignature(secret, ts, body, sig, now + 301_000)).toBe(false);
    expect(verifyWebhookSignature(secret, ts, body, sig, now - 301_000)).toBe(false);
    expect(verifyWebhookSignature(secret, ts, body, 'v1=short', now)).toBe(false);
  });
});

describe('webhook delivery', () => {
  it('retries a 429 (rate limited) like a 5xx', async () => {
    const statuses = [429, 204];
    let seen = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(statuses[Math.min(seen++, statuses.length - 1)]!);
      res.end();
    });
    const url = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)));
    try {
      await createWebhookNotifier({ url: Secret.of(url), budget: fast }).notify(note);
      expect(seen).toBe(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the fan-out of notifications', () => {
  it('keeps the message refs earlier posts made, for a backend that fails now and for one that posts again', async () => {
    const failing: Notifier = { notify: () => Promise.reject(new Error('down')) };
    const posting: Notifier = { notify: () => Promise.resolve({ messageRefs: [{ backend: 'slack', channel: 'C1', ts: '2' }] }) };
    const lines: string[] = [];
    const earlier = [
      { backend: 'slack', channel: 'C1', ts: '1' },
      { backend: 'teams', channel: 'T1', ts: '9' },
    ];
    const out = await createFanOutNotifier([{ name: 'teams', notifier: failing }, { name: 'slack', notifier: posting }], { log: (l) => lines.push(l) }).notify({ ...note, messageRefs: earlier });
    expect(out?.messageRefs).toEqual(expect.arrayContaining([...earlier, { backend: 'slack', channel: 'C1', ts: '2' }]));
    expect(out?.messageRefs).toHaveLength(3);
    expect(lines).toHaveLength(1);
  });
});
