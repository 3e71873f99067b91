import { request as httpRequest, globalAgent as httpAgent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest, globalAgent as httpsAgent } from 'node:https';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';

/** One HTTP request as the transport sends it: never redirected, ended with a TimeoutError after `timeoutMs`. */
export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
}

/** The answer with its whole body, decoded from any content-encoding. */
export interface ExchangeAnswer {
  status: number;
  header(name: string): string | null;
  body: Buffer;
}

export type SendExchange = (url: URL, exchange: Exchange) => Promise<ExchangeAnswer>;

/** Through a given `fetch` (tests inject faults this way): redirects not followed, the timeout as an abort signal. */
export function fetchExchange(fetchImpl: typeof fetch): SendExchange {
  return async (url, exchange) => {
    const response = await fetchImpl(url, {
      method: exchange.method,
      headers: exchange.headers,
      body: typeof exchange.body === 'string' || exchange.body === undefined ? exchange.body : new Uint8Array(exchange.body),
      // Following a redirect would send the session token to wherever Location points.
      redirect: 'manual',
      signal: AbortSignal.timeout(exchange.timeoutMs),
    });
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, header: (name) => response.headers.get(name), body };
  };
}

const decoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** What fetch asked for and decoded: the same, so a compressing proxy or Coder sends what it did before. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * Through node:http(s) and Node's global keep-alive agents (which also carry NODE_USE_ENV_PROXY's
 * proxy settings, as fetch does): several times cheaper in CPU per request than fetch, whose web
 * streams, abort signals and WebAssembly parser a worker paid on every Coder call. Like the fetch
 * path: no redirect is followed, the timeout covers the whole exchange (body included), the body
 * is decoded from gzip, deflate or br, and a failure is an error with Node's `code`.
 */
export const nodeHttpExchange: SendExchange = (url, exchange) =>
  new Promise<ExchangeAnswer>((resolve, reject) => {
    const https = url.protocol === 'https:';
    const headers: Record<string, string | number> = { ...exchange.headers, 'Accept-Encoding': ACCEPT_ENCODING };
    if (exchange.body !== undefined) headers['Content-Length'] = Buffer.byteLength(exchange.body);
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = (https ? httpsRequest : httpRequest)(url, { method: exchange.method, headers, agent: https ? httpsAgent : httpAgent }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('the connection closed before the whole answer came'), { code: 'ECONNRESET' }));
      });
      res.on('end', () => {
        if (settled) return;
        decode(Buffer.concat(chunks), res.headers['content-encoding']).then((body) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, header: (name) => headerOf(res.headers, name), body });
        }, fail);
      });
    });
    const timer = setTimeout(() => fail(Object.assign(new Error(`no answer within ${exchange.timeoutMs} ms`), { name: 'TimeoutError' })), exchange.timeoutMs);
    req.on('error', fail);
    req.end(exchange.body);
  });

function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  // Joined as the Headers of fetch join a repeated header.
  return Array.isArray(value) ? value.join(', ') : value;
}

async function decode(body: Buffer, contentEncoding: string | undefined): Promise<Buffer> {
  if (!contentEncoding || body.length === 0) return body;
  // Codings apply in the order listed, so they come off in reverse; an unknown one leaves the body as it came (as fetch does).
  const codings = contentEncoding.toLowerCase().split(',').map((c) => c.trim()).filter((c) => c && c !== 'identity').reverse();
  if (codings.some((c) => !decoders[c])) return body;
  let out = body;
  for (const coding of codings) out = await (decoders[coding] as (b: Buffer) => Promise<Buffer>)(out);
  return out;
}
