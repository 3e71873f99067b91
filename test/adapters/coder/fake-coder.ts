import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake server received it. */
export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Reply =
  | { status: number; json?: unknown; raw?: Buffer | string; headers?: Record<string, string> }
  | { drop: true }
  | ((request: Received) => Reply);

/**
 * A tiny local HTTP server standing in for Coder in unit tests: each route answers with its replies
 * in order (the last one repeats), and every request is recorded for assertions.
 */
export class FakeCoder {
  readonly received: Received[] = [];
  readonly #routes = new Map<string, Reply[]>();
  #server?: Server;
  url = '';

  static async start(): Promise<FakeCoder> {
    const fake = new FakeCoder();
    fake.#server = createServer((req, res) => void fake.#handle(req, res));
    await new Promise<void>((resolve) => fake.#server!.listen(0, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Answers `METHOD /api/v2/path` (no query) with the replies in order. */
  on(method: string, path: string, ...replies: Reply[]): this {
    this.#routes.set(`${method} /api/v2${path}`, replies);
    return this;
  }

  requestsTo(method: string, path: string): Received[] {
    return this.received.filter((r) => r.method === method && r.path === `/api/v2${path}`);
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const received: Received = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    this.received.push(received);
    const replies = this.#routes.get(`${received.method} ${received.path}`);
    let reply: Reply = replies && replies.length > 0 ? (replies.length > 1 ? replies.shift()! : replies[0]!) : { status: 404, json: { message: `fake: no route for ${received.method} ${received.path}` } };
    while (typeof reply === 'function') reply = reply(received);
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { ...reply.headers };
    let body: Buffer | string = '';
    if (reply.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(reply.json);
    } else if (reply.raw !== undefined) {
      body = reply.raw;
    }
    res.writeHead(reply.status, headers);
    res.end(body);
  }
}

/** A clock that only moves when the client sleeps, so waits and Retry-After can be observed exactly. */
export function fakeClock(start = Date.parse('2026-07-08T09:00:00Z')) {
  const clock = {
    nowMs: start,
    sleeps: [] as number[],
    now: () => clock.nowMs,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.nowMs += ms;
    },
  };
  return clock;
}
