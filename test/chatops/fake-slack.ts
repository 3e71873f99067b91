import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  body: Record<string, unknown>;
  authorization?: string;
}

export interface PostedMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: { type: string; elements?: { action_id?: string; value?: string }[]; text?: { text: string } }[];
}

export interface FakeSlack {
  /** The Web API base URL, for SLACK_API_URL / slackApiUrl. */
  apiUrl: string;
  /** A response_url Slack would put in an interaction. */
  responseUrl(id: string): string;
  calls: SlackCall[];
  /** Messages by ts, as last posted or updated. */
  messages: Map<string, PostedMessage>;
  /** What chatops said to the user through response_url. */
  responses: { id: string; body: Record<string, unknown> }[];
  /** The next `n` Web API calls answer with HTTP `status` (a Slack outage). */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parse(raw: string, contentType = ''): Record<string, unknown> {
  if (contentType.includes('json')) return JSON.parse(raw || '{}') as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(new URLSearchParams(raw).entries());
  for (const key of ['blocks', 'attachments']) if (typeof out[key] === 'string') out[key] = JSON.parse(out[key] as string);
  return out;
}

/** A local stand-in for Slack's Web API (chat.postMessage, chat.update) and its response_url, recording everything. */
export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const messages = new Map<string, PostedMessage>();
  const responses: { id: string; body: Record<string, unknown> }[] = [];
  let failures = 0;
  let failStatus = 500;
  let seq = 0;
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = parse(raw, req.headers['content-type']);
    const url = req.url ?? '';
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (url.startsWith('/response/')) {
      responses.push({ id: url.slice('/response/'.length), body });
      return send(200, { ok: true });
    }
    const method = url.replace(/^\/api\//, '').split('?')[0];
    calls.push({ method, body, authorization: req.headers.authorization });
    if (failures > 0) {
      failures--;
      return send(failStatus, { ok: false, error: 'fatal_error' });
    }
    if (method === 'chat.postMessage') {
      const ts = `1700000000.${String(++seq).padStart(6, '0')}`;
      const channel = String(body.channel ?? '').replace(/^#/, 'C') || 'C0';
      messages.set(ts, { channel, ts, text: String(body.text ?? ''), blocks: (body.blocks as PostedMessage['blocks']) ?? [] });
      return send(200, { ok: true, channel, ts });
    }
    if (method === 'chat.update') {
      const ts = String(body.ts);
      if (!messages.has(ts)) return send(200, { ok: false, error: 'message_not_found' });
      messages.set(ts, { channel: String(body.channel), ts, text: String(body.text ?? ''), blocks: (body.blocks as PostedMessage['blocks']) ?? [] });
      return send(200, { ok: true, channel: body.channel, ts });
    }
    if (method === 'auth.test') return send(200, { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1' });
    return send(200, { ok: false, error: 'unknown_method' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api/`,
    responseUrl: (id) => `${base}/response/${id}`,
    calls,
    messages,
    responses,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Signs a body exactly as Slack does: v0=hex(HMAC-SHA256(secret, `v0:${ts}:${body}`)). */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export interface SlackRequest {
  body: string;
  headers: Record<string, string>;
}

/** A button click as Slack posts it: form-encoded, one `payload` field. */
export function clickRequest(secret: string, opts: { userId: string; actionId: string; value: string; responseUrl: string; triggerId?: string; timestamp?: number }): SlackRequest {
  const payload = {
    type: 'block_actions',
    user: { id: opts.userId, username: opts.userId.toLowerCase() },
    team: { id: 'T1' },
    api_app_id: 'A1',
    trigger_id: opts.triggerId ?? `trigger-${Math.random().toString(36).slice(2)}`,
    response_url: opts.responseUrl,
    container: { type: 'message', message_ts: '1700000000.000001', channel_id: 'C1' },
    channel: { id: 'C1' },
    actions: [{ type: 'button', action_id: opts.actionId, block_id: 'wsmigrate_decision', value: opts.value, action_ts: String(Date.now() / 1000) }],
  };
  return signed(secret, `payload=${encodeURIComponent(JSON.stringify(payload))}`, opts.timestamp);
}

/** A slash command as Slack posts it. */
export function commandRequest(secret: string, opts: { userId: string; text: string; responseUrl: string; timestamp?: number }): SlackRequest {
  const form = new URLSearchParams({
    command: '/wsmigrate',
    text: opts.text,
    user_id: opts.userId,
    user_name: opts.userId.toLowerCase(),
    team_id: 'T1',
    channel_id: 'C1',
    api_app_id: 'A1',
    response_url: opts.responseUrl,
    trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
  });
  return signed(secret, form.toString(), opts.timestamp);
}

export function signed(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): SlackRequest {
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, body),
    },
  };
}

export async function send(url: string, req: SlackRequest, extraHeaders: Record<string, string> = {}): Promise<{ status: number; body: { text?: string; error?: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { ...req.headers, ...extraHeaders }, body: req.body });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as { text?: string }) : {} };
}
