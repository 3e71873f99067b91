import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { RUNNING_STEPS_READ, stepWaits } from '../../src/client/fleet';
import type { FleetProgress } from '../../src/contracts/migrate-fleet';
import { activityWaits, silentAfterMs, silentStep, WORKER_SEEN_WITHIN_MS, type PendingActivity } from '../../src/client/run-waits';

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
const SCHEDULED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
const NOW = Date.parse('2026-12-07T12:00:00Z');
const at = (msAgo: number) => ({ seconds: Math.floor((NOW - msAgo) / 1000), nanos: 0 });
const build = (heardMsAgo: number, heartbeatTimeoutS?: number): PendingActivity => ({
  activityType: { name: 'buildWithStateAndCheck' },
  state: STARTED,
  attempt: 1,
  lastStartedTime: at(heardMsAgo + 5000),
  lastHeartbeatTime: at(heardMsAgo),
  lastWorkerIdentity: '4711@host-a',
  ...(heartbeatTimeoutS ? { activityOptions: { heartbeatTimeout: { seconds: heartbeatTimeoutS } } } : {}),
});

/**
 * A started step's first silence: a live worker's heartbeats reach Temporal at least every
 * min(0.8 × heartbeat timeout, 60 s) (the SDK's throttle), so the window follows the step's heartbeat
 * timeout where Temporal says it, and stays 90 s where it does not.
 */
describe('a started step gone silent', () => {
  test.each<[string, number | undefined, number]>([
    ['no heartbeat timeout known', undefined, WORKER_SEEN_WITHIN_MS],
    ['the default 2 minutes', 120_000, 75_000],
    ['10 minutes: the 60 s throttle', 600_000, 75_000],
    ['30 seconds', 30_000, 39_000],
    ['2 hours: never above 90 s', 7_200_000, 75_000],
  ])('silentAfterMs: %s', (_t, hb, ms) => {
    expect(silentAfterMs(hb)).toBe(ms);
  });

  test('said after the window, with its worker and heartbeat timeout; not before; not a retried or scheduled one', () => {
    expect(silentStep(build(70_000, 120), NOW)).toBeUndefined();
    expect(silentStep(build(80_000, 120), NOW)).toEqual({ activity: 'buildWithStateAndCheck', worker: '4711@host-a', silentMs: 80_000, heartbeatTimeoutMs: 120_000 });
    expect(silentStep(build(80_000), NOW)).toBeUndefined();
    expect(silentStep(build(91_000), NOW)).toMatchObject({ silentMs: 91_000 });
    expect(silentStep({ ...build(80_000, 120), attempt: 2 }, NOW)).toBeUndefined();
    expect(silentStep({ ...build(80_000, 120), state: SCHEDULED }, NOW)).toBeUndefined();
    expect(silentStep({ ...build(0, 120), lastHeartbeatTime: null, lastStartedTime: at(80_000) }, NOW)).toMatchObject({ silentMs: 80_000 });
  });

  test("status's line names the step's own heartbeat timeout when Temporal says it", () => {
    expect(activityWaits([build(80_000, 120)], NOW)).toEqual([
      'step buildWithStateAndCheck runs on worker 4711@host-a, not heard from for 80 s: if that worker is gone, Temporal gives the step to another worker once its heartbeat timeout (2m00s) has passed',
    ]);
    expect(activityWaits([build(95_000)], NOW)[0]).toContain("once the run's heartbeat timeout (2m unless the run set heartbeatTimeout) has passed");
  });
});

/** `fleet status` reads only the running children, the RUNNING_STEPS_READ running longest, and says how many more it did not. */
describe('fleet status reads a bounded number of running migrations', () => {
  test('50 running: 10 describes, the oldest first, 40 said unread; a silent one among them named', async () => {
    const described: string[] = [];
    const client = {
      workflow: {
        getHandle: (id: string) => ({
          describe: async () => {
            described.push(id);
            return { raw: { pendingActivities: id === 'wsmigrate/k8s/u0/w0' ? [build(80_000, 120)] : [] } };
          },
        }),
      },
    } as unknown as Client;
    const running = Array.from({ length: 50 }, (_, i) => ({ workflowId: `wsmigrate/k8s/u${i}/w${i}`, subject: `u${i}/w${i}`, startedAtMs: NOW - i * 1000 }));
    const p = { workflowId: 'wsmigrate-fleet/coder/k8s', organization: 'coder', template: 'k8s', stage: 'rolling', running } as unknown as FleetProgress;
    const waits = await stepWaits(client, p, [], NOW);
    expect(described.sort()).toEqual(running.slice(40).map((r) => r.workflowId).sort());
    expect(RUNNING_STEPS_READ).toBe(10);
    expect(waits).toEqual([{ kind: 'unread', workflowId: 'wsmigrate-fleet/coder/k8s', count: 40, read: 10 }]);

    // Children at their gates are read last: the oldest one at a gate gives its place to the next oldest.
    described.length = 0;
    await stepWaits(client, { ...p, childApprovals: [{ workflowId: 'wsmigrate/k8s/u49/w49', gateId: 'apply' }] } as unknown as FleetProgress, [], NOW);
    expect(described).not.toContain('wsmigrate/k8s/u49/w49');
    expect(described).toContain('wsmigrate/k8s/u39/w39');

    described.length = 0;
    const few = { ...p, running: running.slice(0, 3) } as FleetProgress;
    expect(await stepWaits(client, few, [], NOW)).toEqual([{ kind: 'silent', workflowId: 'wsmigrate/k8s/u0/w0', activity: 'buildWithStateAndCheck', worker: '4711@host-a', silentMs: 80_000, heartbeatTimeoutMs: 120_000 }]);
    expect(described).toHaveLength(3);
  });
});
