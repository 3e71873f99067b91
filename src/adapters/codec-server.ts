import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** A payload as the codec-server protocol carries it: proto3 JSON, bytes as base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  host: string;
  port: number;
  /** The Temporal Web UI's origin (scheme://host:port): the only origin a browser may call from. */
  uiOrigin?: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  bearerToken?: string;
  onRequest?: (r: { path: string; status: number; payloads: number; namespace?: string }) => void;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

function fromJson(p: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v, 'base64');
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toJson(p: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function sameSecret(given: string, expected: string): boolean {
  // Hash both so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error(`request body over ${MAX_BODY_BYTES} bytes`), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Temporal's codec-server protocol (POST /encode, POST /decode with {"payloads": [...]}) over the
 * workers' codec, so the Web UI and `temporal --codec-endpoint` can show encrypted payloads to
 * people allowed to see them. Browsers may call it only from the UI's origin.
 */
export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, { message: 'codec server error' });
    });
  });

  const cors = (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (origin === undefined) return true; // not a browser: the CLI and scripts
    if (!opts.uiOrigin || origin !== opts.uiOrigin) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
    res.setHeader('Access-Control-Max-Age', '600');
    return true;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const namespace = typeof req.headers['x-namespace'] === 'string' ? req.headers['x-namespace'] : undefined;
    const done = (status: number, body: unknown, payloads = 0) => {
      reply(res, status, body);
      opts.onRequest?.({ path, status, payloads, namespace });
    };
    if (!cors(req, res)) return done(403, { message: `origin ${req.headers.origin} is not allowed; only the Temporal UI's origin may call this server` });
    if (req.method === 'OPTIONS') return done(204, undefined);
    if (path !== '/encode' && path !== '/decode') return done(404, { message: 'POST /encode or /decode' });
    if (req.method !== 'POST') return done(405, { message: 'use POST' });
    if (opts.bearerToken) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
      if (!given || !sameSecret(given, opts.bearerToken)) return done(401, { message: 'missing or wrong bearer token' });
    }
    let payloads: Payload[];
    try {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as { payloads?: JsonPayload[] };
      if (!Array.isArray(body.payloads)) throw new Error('body must be {"payloads": [...]}');
      payloads = body.payloads.map(fromJson);
    } catch (err) {
      const status = (err as { status?: number }).status ?? 400;
      return done(status, { message: `bad request: ${(err as Error).message}` });
    }
    try {
      const out = path === '/encode' ? await opts.codec.encode(payloads) : await opts.codec.decode(payloads);
      done(200, { payloads: out.map(toJson) }, out.length);
    } catch (err) {
      // The codec's messages name key ids, never keys or plaintext.
      done(400, { message: (err as Error).message });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}
