import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { temporalCliPath } from '../../src/config/tools';
import { createDataConverter } from '../../src/adapters/temporal/data-converter';
import { connectToTestServer, type TemporalTestContext } from '../harness/temporal';
import { payloadsIn, runCodecEcho, type RawPayload } from './fixtures/codec-echo';
import { freePort } from './fixtures/cli-worker';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const MARKER = 'bob-api-home-volume-7c21';
const UI = 'http://ui.example.test:8233';

const asJson = (p: RawPayload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

describe('wsmigrate codec-server', () => {
  let t: TemporalTestContext;
  let server: ChildProcess;
  let url: string;
  let workflowId: string;
  const key = randomBytes(32);
  const token = randomBytes(24).toString('hex');
  const output: string[] = [];

  beforeAll(async () => {
    t = await connectToTestServer(createDataConverter(key));
    ({ workflowId } = await runCodecEcho(t, key, { workspace: MARKER, ref: 'sha256:ab' }, 'codec-server'));

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'src', 'cli', 'main.ts'), 'codec-server', '--port', String(port), '--ui-origin', UI], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WSMIGRATE_ENCRYPTION_KEY: key.toString('hex'), WSMIGRATE_CODEC_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => {
        output.push(b.toString());
        if (output.join('').includes('codec server listening')) resolve();
      };
      server.stdout?.on('data', onData);
      server.stderr?.on('data', onData);
      server.once('exit', (code) => reject(new Error(`codec server exited (${code}): ${output.join('')}`)));
    });
  }, 120_000);
  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    await t?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) });

  it('decodes a real workflow history for the temporal CLI (--codec-endpoint), and only with the token', async () => {
    const show = (auth: string[]) =>
      run(temporalCliPath(), ['workflow', 'show', '--address', t.address, '--namespace', t.namespace, '-w', workflowId, '--output', 'json', '--codec-endpoint', url, ...auth], { maxBuffer: 8 << 20 });
    // The CLI prints payload bytes as base64: decode every "data" field to read what it shows.
    const shown = (text: string) => [...text.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n');
    const decoded = await show(['--codec-auth', `Bearer ${token}`]);
    expect(shown(decoded.stdout)).toContain(MARKER);
    expect(decoded.stdout).toContain(Buffer.from('json/plain').toString('base64'));
    const refused = await show([]).then((r) => r.stdout + r.stderr, (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`);
    expect(shown(refused)).not.toContain(MARKER);
  });

  it('speaks the protocol: /decode turns every encrypted payload of the history back into JSON; /encode round-trips', async () => {
    const raw = new Client({ connection: t.connection, namespace: t.namespace });
    const payloads = payloadsIn((await raw.workflow.getHandle(workflowId).fetchHistory()).events).map(asJson);
    expect(payloads.length).toBeGreaterThanOrEqual(4);
    const res = await post('/decode', { payloads }, { 'X-Namespace': t.namespace });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    const texts = body.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8'));
    expect(texts.some((x) => x.includes(MARKER))).toBe(true);
    expect(Buffer.from(body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');

    const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') };
    const enc = (await (await post('/encode', { payloads: [plain] })).json()) as { payloads: unknown[] };
    expect(JSON.stringify(enc)).not.toContain(plain.data);
    const back = (await (await post('/decode', enc)).json()) as { payloads: { data: string }[] };
    expect(back.payloads[0].data).toBe(plain.data);
  });

  it("allows browsers from the UI's origin only, and refuses requests without the bearer token", async () => {
    const preflight = await fetch(`${url}/decode`, { method: 'OPTIONS', headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    const evil = await post('/decode', { payloads: [] }, { Origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect((await post('/decode', { payloads: [] }, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('/decode', { payloads: [] }, { Authorization: '' })).status).toBe(401);
    expect((await post('/decode', { nope: 1 })).status).toBe(400);
    // Decoded payloads are plaintext (states, names): no browser or proxy may keep a copy.
    const decoded = await post('/decode', { payloads: [] }, { Origin: UI });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('cache-control')).toBe('no-store');
    // Its logs name requests, never the token.
    expect(output.join('')).not.toContain(token);
  });
});
