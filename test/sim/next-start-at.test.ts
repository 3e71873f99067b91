import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, startBuild } from './helpers';

/** The next 09:00 UTC strictly after `after`. */
function next9Utc(after: Date): Date {
  const d = new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), 9, 0, 0));
  if (d.getTime() <= after.getTime()) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

/**
 * next_start_at as coderd computes it (coderd/schedule/autostart.go NextAllowedAutostart): when the
 * schedule is set (coderd/workspaces.go putWorkspaceAutostart), when a build completes
 * (coderd/provisionerdserver/provisionerdserver.go CompleteJob) and, when unset, by the lifecycle
 * executor's tick (coderd/autobuild/lifecycle_executor.go runOnce); null without a schedule.
 */
describe('simulator: next_start_at', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 81, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const nextStartAt = async (id: string) => (await api<{ next_start_at: string | null }>(sim, 'GET', `/workspaces/${id}`)).body.next_start_at;
  const schedule = (id: string, value: string | null) => api(sim, 'PUT', `/workspaces/${id}/autostart`, { json: { schedule: value } });

  test('null without a schedule; the schedule\'s next time once set; null again once cleared', async () => {
    const ws = sim.workspaces()[0]!;
    expect(await nextStartAt(ws.id)).toBeNull();
    const before = new Date();
    expect((await schedule(ws.id, 'CRON_TZ=UTC 0 9 * * *')).status).toBe(204);
    expect(await nextStartAt(ws.id)).toBe(next9Utc(before).toISOString());
    expect((await schedule(ws.id, null)).status).toBe(204);
    expect(await nextStartAt(ws.id)).toBeNull();
  });

  test('after a completed build it is the schedule\'s next time in the schedule\'s zone', async () => {
    const ws = sim.workspaces()[0]!;
    await schedule(ws.id, 'CRON_TZ=Asia/Tokyo 30 8 * * *');
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    const completed = new Date(stop.job.completed_at!);
    // 08:30 in Tokyo is 23:30 UTC the day before.
    const expected = new Date(Date.UTC(completed.getUTCFullYear(), completed.getUTCMonth(), completed.getUTCDate(), 23, 30));
    if (expected.getTime() <= completed.getTime()) expected.setUTCDate(expected.getUTCDate() + 1);
    expect(await nextStartAt(ws.id)).toBe(expected.toISOString());
  });
});
