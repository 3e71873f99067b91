import { MockActivityEnvironment } from '@temporalio/testing';
import { SAME_HEARTBEAT_EVERY_MS, heartbeatIfInActivity, heartbeatedBuildId, heartbeatedSucceededBuild } from '../../src/activities/heartbeat';

/**
 * What a retried activity reads from its earlier attempt's last heartbeat: the build it made, and
 * whether that build had ended well. Anything else in the details (a wait's status, a half-written
 * record) must read as "nothing known", so the retry looks at Coder instead of trusting it.
 */
describe('heartbeat details as a retry reads them', () => {
  const readWith = <T>(details: unknown, read: () => T): Promise<T> => new MockActivityEnvironment({ heartbeatDetails: details }).run(async () => read());

  it('the build id an earlier attempt heartbeated, only when it is a string', async () => {
    expect(await readWith({ buildId: 'b7', status: 'running' }, heartbeatedBuildId)).toBe('b7');
    expect(await readWith({ buildId: 7 }, heartbeatedBuildId)).toBeUndefined();
    expect(await readWith(undefined, heartbeatedBuildId)).toBeUndefined();
    expect(heartbeatedBuildId()).toBeUndefined(); // outside an activity
  });

  it('an ended build only when the attempt said it succeeded and named it fully', async () => {
    expect(await readWith({ buildId: 'b7', buildNumber: 7, succeeded: true }, heartbeatedSucceededBuild)).toEqual({ buildId: 'b7', buildNumber: 7 });
    for (const partial of [{ buildId: 'b7', buildNumber: 7 }, { buildId: 'b7', buildNumber: 7, succeeded: 'true' }, { buildNumber: 7, succeeded: true }, { buildId: 'b7', succeeded: true }, { buildId: 'b7', buildNumber: '7', succeeded: true }, undefined]) {
      expect(await readWith(partial, heartbeatedSucceededBuild)).toBeUndefined();
    }
    expect(heartbeatedSucceededBuild()).toBeUndefined();
  });

  it('heartbeats its details inside an activity, and is a no-op outside one', async () => {
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(async () => heartbeatIfInActivity({ buildId: 'b7' }));
    expect(beats).toEqual([{ buildId: 'b7' }]);
    expect(() => heartbeatIfInActivity({ buildId: 'b7' })).not.toThrow();
  });

  it('a beat with the same details as the last is sent again only once a while has passed; any change goes at once', async () => {
    let now = 1_000;
    const clock = () => now;
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 120_000 });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(async () => {
      heartbeatIfInActivity({ buildId: 'b7' }, clock);
      heartbeatIfInActivity({ buildId: 'b7', status: 'pending' }, clock);
      now += 250;
      heartbeatIfInActivity({ buildId: 'b7', status: 'pending' }, clock); // the same status a poll later: not sent
      now += 250;
      heartbeatIfInActivity({ buildId: 'b7', status: 'running' }, clock);
      now += SAME_HEARTBEAT_EVERY_MS - 1;
      heartbeatIfInActivity({ buildId: 'b7', status: 'running' }, clock);
      now += 1;
      heartbeatIfInActivity({ buildId: 'b7', status: 'running' }, clock); // kept alive for the heartbeat timeout and cancellation
      heartbeatIfInActivity({ buildId: 'b7', buildNumber: 7, succeeded: true }, clock);
    });
    expect(beats).toEqual([
      { buildId: 'b7' },
      { buildId: 'b7', status: 'pending' },
      { buildId: 'b7', status: 'running' },
      { buildId: 'b7', status: 'running' },
      { buildId: 'b7', buildNumber: 7, succeeded: true },
    ]);
  });

  it('with a short heartbeat timeout, the same details go again after a quarter of it', async () => {
    let now = 0;
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 4_000 });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(async () => {
      for (let i = 0; i < 5; i++, now += 500) heartbeatIfInActivity({ buildId: 'b7', status: 'running' }, () => now);
    });
    // at 0, 1000 and 2000 ms (a quarter of 4 s apart); not at 500 and 1500
    expect(beats).toHaveLength(3);
  });

  it('each activity keeps its own last beat: a new attempt sends its first beat whatever the last one said', async () => {
    const beats: unknown[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const env = new MockActivityEnvironment();
      env.on('heartbeat', (d: unknown) => beats.push(d));
      await env.run(async () => heartbeatIfInActivity({ buildId: 'b7' }));
    }
    expect(beats).toEqual([{ buildId: 'b7' }, { buildId: 'b7' }]);
  });
});
