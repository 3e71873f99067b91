import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySlackRequest, type App, type Receiver } from '@slack/bolt';
import { redactSecrets, type Secret } from '../config/secret';

/** Where chatops writes its lines: the process logger (pino) in production, any sink with the same three levels in tests. */
export type ChatopsLogger = Pick<import('pino').Logger, 'info' | 'warn' | 'error'>;

export const SLACK_EVENTS_PATH = '/slack/events';
const MAX_BODY_BYTES = 64 * 1024;
const WINDOW_SECONDS = 5 * 60;

/** Set by a listener before it acks, to answer with a refusal status (401/403/404) instead of 200. */
export interface HttpReply {
  status: number;
}

export interface SignedReceiverOptions {
  signingSecret: Secret;
  port: number;
  host?: string;
  /** One line per request: outcome, status and reason; never a body, header or secret. */
  logger: ChatopsLogger;
  now?: () => number;
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Refused(413, 'request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Slack's form posts: interactivity sends one `payload` field of JSON, slash commands plain fields. */
function parseSlackBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const form = new URLSearchParams(raw);
  const payload = form.get('payload');
  if (payload !== null) return JSON.parse(payload) as Record<string, unknown>;
  return Object.fromEntries(form.entries());
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Bolt's own message, said the way an operator reads it. */
function signatureProblem(err: unknown): string {
  const m = (err as Error).message;
  if (/stale/.test(m)) return 'request expired: its X-Slack-Request-Timestamp is more than 5 minutes old';
  if (/mismatch/.test(m)) return 'bad signature: X-Slack-Signature does not match this body (is SLACK_SIGNING_SECRET the app\'s signing secret?)';
  if (/version/.test(m)) return 'bad signature: only v0 signatures are accepted';
  return `request not verified: ${m.replace(/^Failed to verify authenticity: /, '')}`;
}

/**
 * Bolt's receiver for the HTTP endpoint Slack calls. Every request's signature is checked with
 * Bolt's `verifySlackRequest` (v0 HMAC-SHA256, constant-time, 5-minute window) before anything
 * else; an exact replay is refused, and a Slack retry of a request already seen is answered
 * without acting, so one click never decides twice. Listeners choose the reply's HTTP status.
 */
export class SignedSlackReceiver implements Receiver {
  private app?: App;
  private server?: Server;
  /** Signatures and interaction ids seen in the last window, with when they expire (ms). */
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly opts: SignedReceiverOptions) {
    this.now = opts.now ?? Date.now;
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<AddressInfo> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host ?? '0.0.0.0', () => resolve());
    });
    return server.address() as AddressInfo;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private log(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>): void {
    const reason = typeof fields.reason === 'string' ? { reason: redactSecrets(fields.reason, [this.opts.signingSecret]) } : {};
    this.opts.logger[level]({ ...fields, ...reason }, msg);
  }

  private remember(key: string): boolean {
    const now = this.now();
    for (const [k, expires] of this.seen) if (expires < now) this.seen.delete(k);
    if (this.seen.has(key)) return false;
    this.seen.set(key, now + WINDOW_SECONDS * 1000 * 2);
    return true;
  }

  private verify(req: IncomingMessage, body: string): void {
    const signature = header(req, 'x-slack-signature');
    const timestamp = header(req, 'x-slack-request-timestamp');
    if (!signature || !timestamp) throw new Refused(401, 'unsigned request: X-Slack-Signature and X-Slack-Request-Timestamp are required');
    const ts = Number(timestamp);
    if (!Number.isInteger(ts)) throw new Refused(401, 'bad X-Slack-Request-Timestamp: not a number of seconds');
    // Bolt checks only the past side of the window; a timestamp from the future is as suspect.
    if (ts > this.now() / 1000 + WINDOW_SECONDS) throw new Refused(401, 'request expired: its X-Slack-Request-Timestamp is more than 5 minutes in the future');
    try {
      verifySlackRequest({
        signingSecret: this.opts.signingSecret.reveal(),
        body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts },
        nowMilliseconds: this.now(),
      });
    } catch (err) {
      throw new Refused(401, signatureProblem(err));
    }
  }

  private reply(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    const text = body === undefined ? '' : JSON.stringify(typeof body === 'string' ? { text: body } : body);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return this.reply(res, 200, { ok: true });
    if (req.method !== 'POST' || path !== SLACK_EVENTS_PATH) return this.reply(res, 404, { error: `not found; Slack posts to ${SLACK_EVENTS_PATH}` });
    const retryNum = header(req, 'x-slack-retry-num');
    let user: string | undefined;
    try {
      const raw = await readBody(req);
      this.verify(req, raw);
      const signature = header(req, 'x-slack-signature') as string;
      if (!this.remember(`sig:${signature}`)) {
        if (retryNum !== undefined) throw new Refused(200, 'already handled (Slack retry)');
        throw new Refused(401, 'replayed request: this signed request was already handled');
      }
      let body: Record<string, unknown>;
      try {
        body = parseSlackBody(raw, header(req, 'content-type'));
      } catch {
        throw new Refused(400, 'body is neither a Slack form post nor JSON');
      }
      if (body.type === 'url_verification') return this.reply(res, 200, { challenge: body.challenge });
      user = (body.user as { id?: string } | undefined)?.id ?? (body.user_id as string | undefined);
      // A retry Slack re-signed still carries the interaction's trigger_id: act on the first copy only.
      const interaction = typeof body.trigger_id === 'string' ? body.trigger_id : undefined;
      if (interaction && !this.remember(`trigger:${interaction}`)) throw new Refused(200, 'already handled (Slack retry)');
      await this.dispatch(res, body, retryNum);
      this.log('info', 'slack request', { status: res.statusCode, user });
    } catch (err) {
      if (err instanceof Refused) {
        this.log('warn', 'slack request refused', { status: err.status, reason: err.message, user, ...(retryNum ? { retryNum } : {}) });
        return this.reply(res, err.status, err.status === 200 ? { text: err.message } : { response_type: 'ephemeral', text: err.message, error: err.message });
      }
      const message = redactSecrets((err as Error).message, [this.opts.signingSecret]).slice(0, 300);
      this.log('error', 'slack request failed', { status: 500, reason: message, user });
      this.reply(res, 500, { response_type: 'ephemeral', text: `wsmigrate could not handle this: ${message}` });
    }
  }

  private async dispatch(res: ServerResponse, body: Record<string, unknown>, retryNum: string | undefined): Promise<void> {
    if (!this.app) throw new Error('receiver not initialised by a Bolt App');
    const httpReply: HttpReply = { status: 200 };
    let acked = false;
    await this.app.processEvent({
      body,
      retryNum: retryNum === undefined ? undefined : Number(retryNum),
      customProperties: { httpReply },
      ack: async (response?: unknown) => {
        if (acked) return;
        acked = true;
        this.reply(res, httpReply.status, response);
      },
    });
    if (!acked) this.reply(res, 404, { response_type: 'ephemeral', text: 'wsmigrate does not handle this kind of request' });
  }
}
