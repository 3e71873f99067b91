import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, waitForBuild, type BuildJson } from './helpers';

interface QueuedBuild extends BuildJson {
  job: BuildJson['job'] & { queue_position: number; queue_size: number; worker_name?: string };
}

interface DaemonJson {
  id: string;
  name: string;
  status: 'idle' | 'busy' | 'offline';
  tags: Record<string, string>;
  current_job: { id: string; status: string } | null;
  previous_job: { id: string; status: string } | null;
}

const LATENCY = 150;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('simulator: provisioner daemons and their job queue', () => {
  let sim: CoderSimulator;
  afterEach(async () => {
    await sim?.close();
  });

  test('with 2 daemons, 4 builds run 2 at a time in FIFO order; the waiting ones show their queue position', async () => {
    sim = await startSimulator({ workspaces: 4, seed: 3, buildLatencyMs: LATENCY, provisioners: 2 });
    // Both daemons held back while the builds are posted, so the queue is seen whole however slow the machine.
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name);
    const posted: QueuedBuild[] = [];
    for (const ws of sim.workspaces()) {
      const res = await api<QueuedBuild>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } });
      expect(res.status).toBe(201);
      posted.push(res.body);
    }
    const queued = await Promise.all(posted.map((b) => api<QueuedBuild>(sim, 'GET', `/workspacebuilds/${b.id}`).then((r) => r.body.job)));
    expect(queued.map((j) => [j.status, j.queue_position, j.queue_size])).toEqual([1, 2, 3, 4].map((n) => ['pending', n, 4]));
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, false);
    const busy = await until(
      () => api<DaemonJson[]>(sim, 'GET', `/organizations/coder/provisionerdaemons`).then((r) => r.body),
      (list) => list.every((d) => d.status === 'busy'),
      'both daemons busy',
    );
    // FIFO: the first two queued are the first two taken.
    const firstTwo = await Promise.all(posted.slice(0, 2).map((b) => api<QueuedBuild>(sim, 'GET', `/workspacebuilds/${b.id}`).then((r) => r.body.job)));
    expect(busy.map((d) => d.current_job?.id).sort()).toEqual(firstTwo.map((j) => (j as unknown as { id: string }).id).sort());

    const done = await Promise.all(posted.map((b) => waitForBuild(sim, b.id)));
    expect(done.every((d) => d.build.job.status === 'succeeded')).toBe(true);
    const spans = done.map((d) => [Date.parse(d.build.job.started_at as string), Date.parse(d.build.job.completed_at as string)] as const);
    for (const [t] of spans) expect(spans.filter(([s, e]) => s <= t && t < e).length).toBeLessThanOrEqual(2);
    expect(Math.min(spans[2]?.[0] ?? 0, spans[3]?.[0] ?? 0)).toBeGreaterThanOrEqual(Math.min(spans[0]?.[1] ?? 0, spans[1]?.[1] ?? 0));
    const idle = (await api<DaemonJson[]>(sim, 'GET', `/organizations/coder/provisionerdaemons`)).body;
    expect(idle.map((d) => d.status)).toEqual(['idle', 'idle']);
    expect(idle.every((d) => d.previous_job?.status === 'succeeded')).toBe(true);
  });

  test('GET provisionerjobs?status=pending,running lists the active jobs with their queue positions', async () => {
    sim = await startSimulator({ workspaces: 3, seed: 4, buildLatencyMs: 1000, provisioners: 1 });
    const ids: string[] = [];
    for (const ws of sim.workspaces()) ids.push((await api<QueuedBuild>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body.id);
    const jobs = await until(
      () => api<{ status: string; queue_position: number; input: { workspace_build_id?: string } }[]>(sim, 'GET', `/organizations/${sim.orgId}/provisionerjobs?status=pending,running`).then((r) => r.body),
      (list) => list.some((j) => j.status === 'running'),
      'one job running',
    );
    expect(jobs).toHaveLength(3);
    expect(jobs.filter((j) => j.status === 'running')).toHaveLength(1);
    expect(jobs.filter((j) => j.status === 'pending').map((j) => j.queue_position).sort()).toEqual([1, 2]);
    expect(new Set(jobs.map((j) => j.input.workspace_build_id))).toEqual(new Set(ids));
    const bad = await api<{ validations: { field: string }[] }>(sim, 'GET', `/organizations/coder/provisionerjobs?state=pending`);
    expect(bad.status).toBe(400);
    expect(bad.body.validations[0]?.field).toBe('state');
    await Promise.all(ids.map((id) => waitForBuild(sim, id)));
  });

  test('only owners and template admins see daemons and jobs; a member gets 404, as coderd answers', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 5, provisioners: 1 });
    expect((await api(sim, 'GET', `/organizations/coder/provisionerdaemons`, { token: sim.memberToken })).status).toBe(404);
    expect((await api(sim, 'GET', `/organizations/coder/provisionerjobs`, { token: sim.memberToken })).status).toBe(404);
    expect((await api(sim, 'GET', `/organizations/coder/provisionerdaemons`)).status).toBe(200);
  });

  test('with unlimited daemons (the default) every build runs at once and the daemons route is absent', async () => {
    sim = await startSimulator({ workspaces: 3, seed: 6, buildLatencyMs: LATENCY });
    const ids: string[] = [];
    for (const ws of sim.workspaces()) ids.push((await api<QueuedBuild>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body.id);
    const done = await Promise.all(ids.map((id) => waitForBuild(sim, id)));
    const starts = done.map((d) => Date.parse(d.build.job.started_at as string));
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(LATENCY);
    expect((await api(sim, 'GET', `/organizations/coder/provisionerdaemons`)).status).toBe(404);
  });

  test('a daemon that goes offline finishes its job and takes no other; with none online the queue waits until one is back', async () => {
    sim = await startSimulator({ workspaces: 3, seed: 7, buildLatencyMs: LATENCY, provisioners: 2 });
    const [a, b, c] = sim.workspaces();
    const first = (await api<QueuedBuild>(sim, 'POST', `/workspaces/${a?.id}/builds`, { json: { transition: 'stop' } })).body;
    const holder = await until(async () => sim.provisionerDaemons().find((d) => d.status === 'busy'), (d) => d !== undefined, 'a daemon to take the build');
    const other = sim.provisionerDaemons().find((d) => d.name !== holder?.name);
    sim.setDaemonOffline(other?.name as string);
    sim.setDaemonOffline(holder?.name as string);
    // The holder is still busy with its job; offline ones are listed only when asked for.
    expect((await api<DaemonJson[]>(sim, 'GET', `/organizations/coder/provisionerdaemons`)).body.map((d) => d.name)).toEqual([holder?.name]);
    const all = (await api<DaemonJson[]>(sim, 'GET', `/organizations/coder/provisionerdaemons?offline=true`)).body;
    expect(all.find((d) => d.name === other?.name)?.status).toBe('offline');
    expect((await waitForBuild(sim, first.id)).build.job.status).toBe('succeeded');

    const second = (await api<QueuedBuild>(sim, 'POST', `/workspaces/${b?.id}/builds`, { json: { transition: 'stop' } })).body;
    const third = (await api<QueuedBuild>(sim, 'POST', `/workspaces/${c?.id}/builds`, { json: { transition: 'stop' } })).body;
    await new Promise((r) => setTimeout(r, 3 * LATENCY));
    const stuck = (await api<QueuedBuild>(sim, 'GET', `/workspacebuilds/${second.id}`)).body;
    expect(stuck.job).toMatchObject({ status: 'pending', queue_position: 1, queue_size: 2 });
    expect(sim.provisionerDaemons().map((d) => d.status)).toEqual(['offline', 'offline']);

    sim.setDaemonOffline(other?.name as string, false);
    const ends = await Promise.all([second.id, third.id].map((id) => waitForBuild(sim, id)));
    expect(ends.map((e) => e.build.job.status)).toEqual(['succeeded', 'succeeded']);
    expect(ends.map((e) => (e.build.job as QueuedBuild['job']).worker_name)).toEqual([other?.name, other?.name]);
  });

  test("users' builds: a steady stream on the other templates' workspaces, their queue waits measured", async () => {
    sim = await startSimulator({ workspaces: 2, seed: 8, buildLatencyMs: 40, provisioners: 1, moreTemplates: [{ name: 'team-tools', workspaces: 4, versioned: true }] });
    const migrated = new Set(sim.workspaces().filter((w) => !w.name.startsWith('team-tools')).map((w) => w.latestBuildId));
    sim.startUserBuilds({ intervalMs: 60 });
    await until(async () => sim.userBuildStats(), (s) => s.queueWaitsMs.length >= 4, 'four users\' builds to be taken');
    sim.stopUserBuilds();
    const stats = sim.userBuildStats();
    expect(stats.builds).toBeGreaterThanOrEqual(4);
    expect(stats.queueWaitsMs.every((ms) => ms >= 0)).toBe(true);
    // The seeded template's workspaces are not the users' to build here.
    expect(sim.workspaces().filter((w) => !w.name.startsWith('team-tools')).every((w) => migrated.has(w.latestBuildId))).toBe(true);
    expect(sim.templates().map((t) => t.name)).toEqual(['k8s-dev', 'team-tools']);
  });
});
