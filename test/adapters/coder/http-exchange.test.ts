import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { CoderClient } from '../../../src/adapters/coder/client';
import { nodeHttpExchange } from '../../../src/adapters/coder/http-exchange';
import { fixture } from './coder-fixtures';
import { failure } from './api-failure';

const TOKEN = 'f00dfeed42-Rm7Qx2Lp9Vb4Nc8Tz1Hs6Wk3';

/** A server whose every answer the test writes by hand: what FakeCoder cannot do (hang, half a body, compress). */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('the Coder client over node:http (its default transport)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await stop(server);
    server = undefined;
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('decodes a %s answer, as fetch did, and asks for the same encodings', async (encoding, compress) => {
    const build = fixture('workspace-build');
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(compress(Buffer.from(JSON.stringify(build))));
    });
    server = s.server;
    const client = new CoderClient({ url: s.url, token: TOKEN });
    expect((await client.workspaceBuild(build.id)).id).toBe(build.id);
    expect(s.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(s.requests[0]!.headers['coder-session-token']).toBe(TOKEN);
  });

  it('sends a body with its length and type, and keeps the connection for the next call', async () => {
    const bodies: string[] = [];
    const sockets = new Set<unknown>();
    const s = await serve((req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fixture('buildinfo')));
    });
    server = s.server;
    s.server.on('request', (req: IncomingMessage) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => bodies.push(Buffer.concat(chunks).toString('utf8')));
    });
    const answer = await nodeHttpExchange(new URL(`${s.url}/api/v2/buildinfo`), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":"é"}', timeoutMs: 5_000 });
    expect(answer.status).toBe(200);
    expect(answer.header('Content-Type')).toBe('application/json');
    expect(s.requests[0]!.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    await nodeHttpExchange(new URL(`${s.url}/api/v2/buildinfo`), { method: 'GET', headers: {}, timeoutMs: 5_000 });
    expect(sockets.size).toBe(1);
  });

  it('a server that never answers: a retryable network error after the request timeout', async () => {
    const s = await serve(() => undefined);
    server = s.server;
    const client = new CoderClient({ url: s.url, token: TOKEN, requestTimeoutMs: 50, retry: { maxAttempts: 1 } });
    const error = await failure(client.buildInfo());
    expect(error).toMatchObject({ kind: 'network', status: 0, retryable: true });
    expect(error.message).toContain('no answer within');
  });

  it('the timeout covers the body too: an answer that stops halfway ends as a network failure', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":');
    });
    server = s.server;
    const client = new CoderClient({ url: s.url, token: TOKEN, requestTimeoutMs: 50, retry: { maxAttempts: 1 } });
    expect((await failure(client.buildInfo())).message).toContain('no answer within');
  });

  it('a connection closed halfway through the body: a retryable network error, then the retry succeeds', async () => {
    let calls = 0;
    const s = await serve((req, res) => {
      calls++;
      if (calls === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"id":', () => req.socket.destroy());
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fixture('buildinfo')));
    });
    server = s.server;
    const client = new CoderClient({ url: s.url, token: TOKEN, sleep: async () => undefined, retry: { maxAttempts: 2 } });
    expect((await client.buildInfo()).version).toBe(fixture('buildinfo').version);
    expect(calls).toBe(2);
  });

  it('a repeated header reads as fetch joins it', async () => {
    const s = await serve((_req, res) => {
      res.setHeader('x-many', ['a', 'b']);
      res.writeHead(204);
      res.end();
    });
    server = s.server;
    const answer = await nodeHttpExchange(new URL(s.url), { method: 'GET', headers: {}, timeoutMs: 5_000 });
    expect(answer.header('x-many')).toBe('a, b');
    expect(answer.header('absent')).toBeNull();
  });
});
