import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

// Bad answers from Coder (or what sits in front of it): each ends in an error that names the call,
// what came back and what to do, after at most its retry budget; nothing is written.
const WS_ID = '0b6c7d44-8d38-4e6b-9a55-3f0c2b9d1a11';

interface Stub {
  url: string;
  methods: string[];
  close(): Promise<void>;
}

async function stub(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Stub> {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    methods.push(req.method ?? '');
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const client = (url: string, token = 'abcdefghij-0123456789abcdefghijkl') =>
  new CoderClient({ url, token, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 }, requestTimeoutMs: 5_000 });

async function withStub(answer: (req: IncomingMessage, res: ServerResponse) => void, run: (c: CoderClient, s: Stub) => Promise<void>): Promise<void> {
  const s = await stub(answer);
  try {
    await run(client(s.url), s);
    expect(s.methods.every((m) => m === 'GET')).toBe(true); // nothing pushed or deleted
  } finally {
    await s.close();
  }
}

describe('bad input: Coder answers', () => {
  it('malformed JSON in a 200 answer', async () => {
    await withStub(
      (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "0b6c7d44", "latest_build": {'),
      async (c) => {
        await expect(c.workspace(WS_ID)).rejects.toThrow(/Could not get workspace .*the body is not valid JSON .*check the URL and the Coder version/);
      },
    );
  });

  it('an HTML error page from a proxy (502)', async () => {
    await withStub(
      (_, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>'),
      async (c, s) => {
        const err = await c.workspace(WS_ID).catch((e: Error) => e);
        expect(String(err)).toMatch(/Could not get workspace .*Coder answered 502 after \d attempts.*check the Coder server's health/);
        expect(String(err)).not.toMatch(/<html>/); // the page itself is not dumped into the error
        expect(s.methods).toHaveLength(3); // retried to its budget (maxAttempts 3), then gave up
      },
    );
  });

  it('the wrong content type (an HTML login page with 200)', async () => {
    await withStub(
      (_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to Coder</body></html>'),
      async (c) => {
        await expect(c.workspace(WS_ID)).rejects.toThrow(/not valid JSON \(\d+ bytes, content-type text\/html\).*does not answer like the Coder API/);
      },
    );
  });

  it('a JSON answer of the wrong shape', async () => {
    await withStub(
      (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hello: 'world' })),
      async (c) => {
        await expect(c.workspace(WS_ID)).rejects.toThrow(/does not have the expected shape: field "id".*check the URL and the Coder version/);
      },
    );
  });

  it('an empty 200 answer', async () => {
    await withStub(
      (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(''),
      async (c) => {
        await expect(c.workspace(WS_ID)).rejects.toThrow(/not valid JSON \(0 bytes/);
      },
    );
  });

  it('500 on every call ends after its retry budget with a clear final error', async () => {
    await withStub(
      (_, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Internal error.', detail: 'database is locked' })),
      async (c, s) => {
        const err = await c.workspace(WS_ID).catch((e: Error) => e);
        expect(String(err)).toMatch(/500/);
        expect(String(err)).toMatch(/database is locked/);
        expect(s.methods).toHaveLength(3);
      },
    );
  });

});

describe('bad input: Coder answers (simulator)', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
  });
  afterAll(async () => sim?.close());

  it('404 for no access: a member reading a build state is told which permission is missing', async () => {
    const ws = sim.workspaces()[0];
    const member = new CoderClient({ url: sim.url, token: sim.memberToken });
    const err = await member.getWorkspaceBuildState(ws.latestBuildId).catch((e: Error) => e);
    expect(String(err)).toMatch(/404/);
    expect(String(err)).toMatch(/permission|template admin/i);
  });
});

describe('bad input: Coder answers (a build that never leaves pending)', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 600_000 });
  });
  afterAll(async () => sim?.close());

  it('a build stuck pending forever ends in a timeout that names the build and its status', async () => {
    const ws = sim.workspaces()[0];
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const build = await coder.createWorkspaceBuild(ws.id, { transition: 'stop' });
    const err = await coder.waitForBuild(build.id, { timeoutMs: 1_500 }).catch((e: Error) => e);
    expect(String(err)).toMatch(new RegExp(build.id));
    expect(String(err)).toMatch(/pending/);
    expect(String(err)).toMatch(/timed out|did not finish|gave up|within/i);
  });
});
