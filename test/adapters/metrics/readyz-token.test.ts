import { Registry } from 'prom-client';
import { CoderClient } from '../../../src/adapters/coder';
import { coderReadiness } from '../../../src/adapters/metrics/coder-readiness';
import { startMetricsEndpoint, type MetricsEndpoint } from '../../../src/adapters/metrics/http-endpoint';
import { ReadinessProbe } from '../../../src/adapters/metrics/readiness';
import { startSimulator, type CoderSimulator } from '../../../src/sim';

/** `/readyz` as a Kubernetes probe (or an SRE with curl) reads it, with the worker's Coder check. */
describe('/readyz checks that Coder accepts the token, not only that it answers', () => {
  let sim: CoderSimulator;
  const opened: MetricsEndpoint[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1 });
  });
  afterAll(async () => {
    for (const e of opened) await e.close();
    await sim.close();
  });

  async function readyz(token: string): Promise<{ status: number; body: { ready: boolean; checks: { coder: { ok: boolean; error?: string } } }; text: string }> {
    const coder = new CoderClient({ url: sim.url, token, retry: { maxAttempts: 1 } });
    const probe = new ReadinessProbe([coderReadiness(coder)]);
    await probe.runOnce();
    const endpoint = await startMetricsEndpoint({ host: '127.0.0.1', port: 0, registry: new Registry(), readiness: probe });
    opened.push(endpoint);
    const res = await fetch(`${endpoint.url}/readyz`);
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text };
  }

  it('a valid token: ready', async () => {
    const r = await readyz(sim.token);
    expect(r.status).toBe(200);
    expect(r.body.checks.coder.ok).toBe(true);
  });

  it('a wrong or expired token: 503 naming the token problem, never the token', async () => {
    const wrong = 'a1b2c3d4e5-WrongSecretValue0123456789';
    const r = await readyz(wrong);
    expect(r.status).toBe(503);
    expect(r.body.checks.coder).toMatchObject({ ok: false, error: expect.stringMatching(/^Coder rejects the session token \(401\): it is wrong, expired or revoked; set CODER_SESSION_TOKEN/) });
    expect(r.text).not.toContain('WrongSecretValue');
    expect(r.text).not.toContain('a1b2c3d4e5');
  });
});
