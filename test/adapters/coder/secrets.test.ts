import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { CoderClient } from '../../../src/adapters/coder/client';
import { caught } from './caught';
import { Secret } from '../../../src/config/secret';
import { fixture } from './coder-fixtures';
import { FakeCoder, fakeClock } from './fake-coder';

// Shaped like a real Coder token: "<10-char id>-<22-char secret>", fresh for every run.
const TOKEN = `${randomBytes(5).toString('hex')}-${randomBytes(16).toString('base64url').slice(0, 22)}`;
const SECRET_HALF = TOKEN.slice(TOKEN.indexOf('-') + 1);

function everyRendering(value: unknown): string {
  const parts = [inspect(value, { showHidden: true, depth: Infinity }), JSON.stringify(value) ?? '', String(value)];
  if (value instanceof Error) {
    parts.push(value.message, value.stack ?? '');
    for (let cause: unknown = value.cause; cause !== undefined; cause = (cause as { cause?: unknown }).cause) {
      parts.push(inspect(cause, { showHidden: true, depth: Infinity }), JSON.stringify(cause) ?? '');
    }
  }
  return parts.join('\n');
}

function expectNoToken(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(SECRET_HALF);
  expect(text).not.toContain(Buffer.from(TOKEN).toString('base64'));
  expect(text.toLowerCase()).not.toContain('coder-session-token');
}

describe('the session token never leaks', () => {
  let coder: FakeCoder;
  let client: CoderClient;

  beforeEach(async () => {
    coder = await FakeCoder.start();
    const clock = fakeClock();
    client = new CoderClient({ url: coder.url, token: Secret.of(TOKEN), sleep: clock.sleep, now: clock.now, retry: { maxAttempts: 2 } });
  });
  afterEach(() => coder.close());

  it('is sent to Coder, as the header', async () => {
    coder.on('GET', '/buildinfo', { status: 200, json: fixture('buildinfo') });
    await client.buildInfo();
    expect(coder.received[0]?.headers['coder-session-token']).toBe(TOKEN);
  });

  it('is not in util.inspect, JSON or String of the client', () => {
    expectNoToken(everyRendering(client));
    expect(inspect(client)).toContain(coder.url);
  });

  it('is not in any error, even when Coder echoes it back in message, detail and validations', async () => {
    coder.on('GET', '/workspacebuilds/b1/state', {
      status: 401,
      json: { message: `Invalid session token "${TOKEN}"`, detail: `secret ${SECRET_HALF} expired`, validations: [{ field: 'token', detail: TOKEN }] },
    });
    const error = await caught(client.getWorkspaceBuildState('b1'));
    expect(error.message).toContain('[redacted]');
    expectNoToken(everyRendering(error));
  });

  it('is not in errors of any kind', async () => {
    coder.on('GET', '/templates/t403', { status: 403, json: { message: 'forbidden' } });
    coder.on('GET', '/templates/t500', { status: 500, json: { message: `boom ${TOKEN}` } });
    coder.on('GET', '/templates/tdrop', { drop: true });
    coder.on('GET', '/templates/tjunk', { status: 200, raw: `not json ${TOKEN}` });
    coder.on('GET', '/templates/tshape', { status: 200, json: { id: TOKEN } });
    coder.on('GET', '/templates/t429', { status: 429, headers: { 'retry-after': '3600' }, json: { message: TOKEN } });
    for (const id of ['t403', 't500', 'tdrop', 'tjunk', 'tshape', 't429']) {
      expectNoToken(everyRendering(await caught(client.template(id))));
    }
  });

  it('is not carried by the cause chain, even when the fetch error holds the request', async () => {
    const leakyFetch: typeof fetch = async (_input, init) => {
      const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', request: { headers: init?.headers } });
      throw Object.assign(new TypeError('fetch failed'), { cause });
    };
    const leaky = new CoderClient({ url: coder.url, token: TOKEN, fetchImpl: leakyFetch, retry: { maxAttempts: 1 } });
    const error = await caught(leaky.buildInfo());
    expect(error.kind).toBe('network');
    expect(error.message).toContain('ECONNRESET');
    expectNoToken(everyRendering(error));
  });

  it('is not in a network error whose own text quotes it (a proxy or resolver that echoes the request), nor in the cause made from that text', async () => {
    const echoingFetch: typeof fetch = async () => {
      const cause = Object.assign(new Error(`proxy refused CONNECT for token ${TOKEN} (secret ${SECRET_HALF})`), { code: 'ECONNREFUSED' });
      throw Object.assign(new TypeError('fetch failed'), { cause });
    };
    const client = new CoderClient({ url: coder.url, token: TOKEN, fetchImpl: echoingFetch, retry: { maxAttempts: 1 } });
    const error = await caught(client.buildInfo());
    expect(error.kind).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('[redacted]');
    expect((error.cause as Error | undefined)?.message).toContain('[redacted]');
    expectNoToken(everyRendering(error));
  });
});
