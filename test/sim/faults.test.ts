import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api } from './helpers';

describe('simulator: request faults', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 99, buildLatencyMs: 5 });
  });
  afterEach(async () => {
    await sim.close();
  });

  const workspacePath = () => `/workspaces/${sim.workspaces()[0]?.id}`;

  test('error500Rate 1 fails every request with a 500 codersdk.Response, but not /buildinfo unless includeBuildInfo', async () => {
    sim.setFaults({ error500Rate: 1 });
    const res = await api<{ message: string }>(sim, 'GET', workspacePath());
    expect(res.status).toBe(500);
    expect(typeof res.body.message).toBe('string');
    expect((await api(sim, 'GET', '/buildinfo', { token: null })).status).toBe(200);
    sim.setFaults({ error500Rate: 1, includeBuildInfo: true });
    expect((await api(sim, 'GET', '/buildinfo', { token: null })).status).toBe(500);
    sim.setFaults(undefined);
    expect((await api(sim, 'GET', workspacePath())).status).toBe(200);
  });

  test('error500Rate 0.3 fails roughly that share of requests, and a failed POST has no effect', async () => {
    sim.setFaults({ error500Rate: 0.3 });
    let failures = 0;
    for (let i = 0; i < 200; i++) if ((await api(sim, 'GET', workspacePath())).status === 500) failures++;
    expect(failures).toBeGreaterThan(30);
    expect(failures).toBeLessThan(90);
    expect(sim.requestLog().filter((e) => e.status === 500)).toHaveLength(failures);

    sim.setFaults({ error500Rate: 1, only: ['/builds'] });
    const before = sim.workspaces()[0]?.latestBuildId;
    const post = await api(sim, 'POST', `${workspacePath()}/builds`, { json: { transition: 'stop' } });
    expect(post.status).toBe(500);
    expect(sim.workspaces()[0]?.latestBuildId).toBe(before);
  });

  test('rate429 answers 429 with a Retry-After header', async () => {
    sim.setFaults({ rate429: 1, retryAfterSeconds: 7 });
    const res = await api(sim, 'GET', workspacePath());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  test('dropConnectionRate 1 destroys the socket without an answer, logged with status 0', async () => {
    sim.setFaults({ dropConnectionRate: 1 });
    await expect(fetch(`${sim.url}/api/v2${workspacePath()}`, { headers: { 'Coder-Session-Token': sim.token } })).rejects.toThrow();
    expect(sim.requestLog().at(-1)).toEqual({ method: 'GET', path: `/api/v2${workspacePath()}`, status: 0 });
  });

  test('addedLatencyMs delays each answer by at least that much', async () => {
    const t0 = Date.now();
    await api(sim, 'GET', workspacePath());
    const plain = Date.now() - t0;
    sim.setFaults({ addedLatencyMs: 150 });
    const t1 = Date.now();
    const res = await api(sim, 'GET', workspacePath());
    const delayed = Date.now() - t1;
    expect(res.status).toBe(200);
    expect(delayed).toBeGreaterThanOrEqual(145);
    expect(delayed).toBeGreaterThan(plain);
  });

  test('latencySpikeRate holds that share of answers latencySpikeMs, and faultCounts counts every injected fault by kind', async () => {
    sim.setFaults({ latencySpikeRate: 1, latencySpikeMs: 200 });
    const t0 = Date.now();
    expect((await api(sim, 'GET', workspacePath())).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(195);
    sim.setFaults({ error500Rate: 1 });
    await api(sim, 'GET', workspacePath());
    sim.setFaults({ rate429: 1 });
    await api(sim, 'GET', workspacePath());
    expect(sim.faultCounts()).toEqual({ http500: 1, http429: 1, dropped: 0, latencySpike: 1, buildFailed: 0 });
  });

  test('failBuilds.rate fails roughly that share of builds, each counted', async () => {
    sim.setFaults({ failBuilds: { rate: 0.5 } });
    const ws = sim.workspaces()[1];
    let failed = 0;
    for (let i = 0; i < 20; i++) {
      const post = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: i % 2 ? 'start' : 'stop' } });
      expect(post.status).toBe(201);
      for (;;) {
        const b = await api<{ job: { status: string } }>(sim, 'GET', `/workspacebuilds/${post.body.id}`);
        if (b.body.job.status === 'failed') failed++;
        if (!['pending', 'running'].includes(b.body.job.status)) break;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    expect(failed).toBeGreaterThan(3);
    expect(failed).toBeLessThan(17);
    expect(sim.faultCounts().buildFailed).toBe(failed);
  });

  test('only restricts faults to matching paths', async () => {
    sim.setFaults({ error500Rate: 1, only: ['/state'] });
    expect((await api(sim, 'GET', workspacePath())).status).toBe(200);
    expect((await api(sim, 'GET', `/workspacebuilds/${sim.workspaces()[0]?.latestBuildId}/state`)).status).toBe(500);
  });

  test('faults given at start apply from the first request', async () => {
    const faulty = await startSimulator({ workspaces: 1, buildLatencyMs: 5, faults: { rate429: 1 } });
    try {
      expect((await api(faulty, 'GET', '/workspaces')).status).toBe(429);
      expect((await api(faulty, 'GET', '/buildinfo', { token: null })).status).toBe(200);
    } finally {
      await faulty.close();
    }
  });
});
