import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Notification } from '../../../src/ports/notifier';
import { makeNotify } from '../../../src/activities/notify';
import { createFanOutNotifier } from '../../../src/adapters/notify/fan-out';
import { notifierFromConfig } from '../../../src/adapters/notify/from-config';
import { createSlackNotifier } from '../../../src/adapters/notify/slack';
import { createWebhookNotifier, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../../../src/adapters/notify/webhook';
import { loadConfig } from '../../../src/config/env';
import { Secret } from '../../../src/config/secret';
import { APPROVE_ACTION, REJECT_ACTION, decodeButtonValue } from '../../../src/domain/approval-button';
import { startFakeSlack, type FakeSlack } from '../../chatops/fake-slack';

const BOT = 'xoxb-test-SuperSecretBotToken-42';
const HOOK_SECRET = 'whsec-SuperSecretHookKey-42';
const FAST = { attempts: 3, attemptTimeoutMs: 1_000, totalMs: 5_000, baseDelayMs: 20 };

const requested: Notification = {
  kind: 'approval-requested',
  workflowId: 'wsmigrate/k8s/alice/dev',
  subject: 'Approval needed: apply',
  text: 'Push the migrated state of alice/dev <with> & care',
  gateId: 'apply',
  planHash: 'sha256:abc',
};

interface Hook {
  url: string;
  hits: { headers: Record<string, string>; body: string }[];
  answer: number[];
  close(): Promise<void>;
}

async function startHook(): Promise<Hook> {
  const hits: Hook['hits'] = [];
  const answer: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
      res.writeHead(answer.shift() ?? 204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/T0KEN-IN-PATH`,
    hits,
    answer,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('Slack notifier (against a fake Web API)', () => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack();
  });
  afterAll(async () => slack.close());

  it('posts an approval with Approve/Reject buttons carrying workflow, gate and plan, and edits that message when the gate closes', async () => {
    const notifier = createSlackNotifier({ token: Secret.of(BOT), channel: 'C0123ABCD', apiUrl: slack.apiUrl, budget: FAST });
    const posted = await notifier.notify(requested);
    expect(posted).toEqual({ messageRefs: [{ backend: 'slack', channel: 'C0123ABCD', ts: expect.any(String) }] });
    const ts = (posted as { messageRefs: { ts: string }[] }).messageRefs[0].ts;
    const message = slack.messages.get(ts)!;
    expect(message.blocks[0].text?.text).toContain('&lt;with&gt; &amp; care');
    const buttons = message.blocks.find((b) => b.type === 'actions')!.elements!;
    expect(buttons.map((b) => b.action_id)).toEqual([APPROVE_ACTION, REJECT_ACTION]);
    expect(decodeButtonValue(buttons[0].value)).toEqual({ workflowId: requested.workflowId, gateId: 'apply', planHash: 'sha256:abc' });
    expect(slack.calls.at(-1)?.authorization).toBe(`Bearer ${BOT}`);

    await notifier.notify({ ...requested, kind: 'approval-closed', subject: 'Approved: apply', decision: { approver: 'alice', decision: 'approve', channel: 'slack' }, messageRefs: [{ backend: 'slack', channel: 'C0123ABCD', ts }] });
    expect(slack.calls.at(-1)?.method).toBe('chat.update');
    const closed = slack.messages.get(ts)!;
    expect(closed.blocks[0].text?.text).toMatch(/Approved\* `apply` by \*alice\* \(via slack\)/);
    expect(closed.blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('edits the approval in place when the workspace changed under the gate, keeps its buttons, and replies in the channel so approvers see it', async () => {
    const notifier = createSlackNotifier({ token: Secret.of(BOT), channel: 'C0123ABCD', apiUrl: slack.apiUrl, budget: FAST });
    const ts = ((await notifier.notify(requested)) as { messageRefs: { ts: string }[] }).messageRefs[0].ts;
    const before = slack.calls.length;
    const text = 'THE WORKSPACE CHANGED SINCE THIS PLAN: build #7 (start on v2, running when seen, by bob) came after build #6. Before: Start bob/dev on v2 …';
    await notifier.notify({ ...requested, kind: 'approval-changed', subject: 'Changed under the gate: apply', text, messageRefs: [{ backend: 'slack', channel: 'C0123ABCD', ts }] });
    expect(slack.calls.slice(before).map((c) => c.method)).toEqual(['chat.update', 'chat.postMessage']);
    const edited = slack.messages.get(ts)!;
    expect(edited.blocks[0].text?.text).toContain('THE WORKSPACE CHANGED SINCE THIS PLAN: build #7');
    expect(edited.blocks.find((b) => b.type === 'actions')!.elements!.map((b) => b.action_id)).toEqual([APPROVE_ACTION, REJECT_ACTION]);
  });

  it('a Slack outage costs a bounded time, is logged without the token, and never fails the notify activity', async () => {
    const logs: string[] = [];
    const cfg = loadConfig({ SLACK_BOT_TOKEN: BOT, SLACK_CHANNEL: 'C0123ABCD', SLACK_API_URL: slack.apiUrl });
    const { notifier, backends } = notifierFromConfig(cfg, { write: (l) => logs.push(l), budget: FAST });
    expect(backends).toEqual(['log', 'slack']);
    const posts = () => slack.calls.filter((c) => c.method === 'chat.postMessage').length;
    const postsBefore = posts();
    slack.failNext(100, 503);
    const started = Date.now();
    const result = await makeNotify({ notifier } as never)(requested);
    slack.failNext(0);
    expect(Date.now() - started).toBeLessThan(FAST.totalMs + 2_000);
    expect(result.delivered).toBe(true);
    expect(logs.some((l) => /"notification not delivered","backend":"slack"/.test(l))).toBe(true);
    expect(logs.join('\n')).not.toContain(BOT);
    expect(posts() - postsBefore).toBe(FAST.attempts);
  });
});

describe('webhook notifier', () => {
  let hook: Hook;
  beforeEach(async () => {
    hook = await startHook();
  });
  afterEach(async () => hook.close());

  it('POSTs the notification as JSON signed with HMAC-SHA256 over timestamp and body', async () => {
    await createWebhookNotifier({ url: Secret.of(hook.url), secret: Secret.of(HOOK_SECRET), budget: FAST }).notify(requested);
    expect(hook.hits).toHaveLength(1);
    const { headers, body } = hook.hits[0];
    expect(JSON.parse(body)).toMatchObject({ kind: 'approval-requested', workflowId: requested.workflowId, gateId: 'apply', planHash: 'sha256:abc' });
    expect(verifyWebhookSignature(HOOK_SECRET, headers[WEBHOOK_TIMESTAMP_HEADER], body, headers[WEBHOOK_SIGNATURE_HEADER])).toBe(true);
    expect(verifyWebhookSignature('another-secret', headers[WEBHOOK_TIMESTAMP_HEADER], body, headers[WEBHOOK_SIGNATURE_HEADER])).toBe(false);
    expect(verifyWebhookSignature(HOOK_SECRET, headers[WEBHOOK_TIMESTAMP_HEADER], `${body} `, headers[WEBHOOK_SIGNATURE_HEADER])).toBe(false);
    expect(verifyWebhookSignature(HOOK_SECRET, String(Number(headers[WEBHOOK_TIMESTAMP_HEADER]) - 600), body, headers[WEBHOOK_SIGNATURE_HEADER])).toBe(false);
  });

  it('retries a 5xx, but not a 4xx (which says what to check)', async () => {
    hook.answer.push(503, 502);
    await createWebhookNotifier({ url: Secret.of(hook.url), budget: FAST }).notify(requested);
    expect(hook.hits).toHaveLength(3);
    hook.answer.push(401);
    await expect(createWebhookNotifier({ url: Secret.of(hook.url), budget: FAST }).notify(requested)).rejects.toThrow(/refused the notification with 401; check WSMIGRATE_WEBHOOK_URL/);
    expect(hook.hits).toHaveLength(4);
  });

  it('an unreachable webhook is logged by the fan-out without its URL token or secret; the other backends still get the notification', async () => {
    const logs: string[] = [];
    const delivered: Notification[] = [];
    const deadUrl = Secret.of('http://127.0.0.1:9/hook/T0KEN-IN-PATH');
    const fanOut = createFanOutNotifier(
      [
        { name: 'webhook', notifier: createWebhookNotifier({ url: deadUrl, secret: Secret.of(HOOK_SECRET), budget: FAST }) },
        { name: 'memory', notifier: { notify: async (n) => void delivered.push(n) } },
      ],
      { log: (l) => logs.push(l), secrets: [deadUrl, Secret.of(HOOK_SECRET)] },
    );
    await fanOut.notify(requested);
    expect(delivered).toHaveLength(1);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/"backend":"webhook".*webhook unreachable/);
    expect(logs[0]).not.toContain('T0KEN');
    expect(logs[0]).not.toContain(HOOK_SECRET);
  });

  it("the fan-out redacts the secrets from any backend's failure as it threw it (a backend that quotes its URL or token), and still names the backend", async () => {
    const logs: string[] = [];
    const url = Secret.of('https://hooks.example.com/services/T0KEN-IN-PATH');
    const token = Secret.of('xoxb-0000-leaky-bot-token');
    const fanOut = createFanOutNotifier(
      [{ name: 'leaky', notifier: { notify: async () => Promise.reject(new Error(`POST ${url.reveal()} answered 500 for bearer ${token.reveal()}`)) } }],
      { log: (l) => logs.push(l), secrets: [url, token] },
    );
    await fanOut.notify(requested);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/"backend":"leaky".*"error":"POST \[redacted\] answered 500 for bearer \[redacted\]"/);
    expect(logs[0]).not.toContain('T0KEN');
    expect(logs[0]).not.toContain('leaky-bot-token');
  });
});
