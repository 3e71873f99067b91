import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeatIfInActivity, heartbeatedBuildId, heartbeatedSucceededBuild } from '../../src/activities/heartbeat';

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
});
