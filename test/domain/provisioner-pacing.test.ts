import { paceFleet, pacedWidth, pacingLine, type ProvisionerCapacity } from '../../src/domain/provisioner-pacing';

const capacity = (c: Partial<ProvisionerCapacity>): ProvisionerCapacity => ({ daemons: 5, busy: 0, offline: 0, usersQueued: 0, usersRunning: 0, oursActive: 0, ...c });

describe("fleet pacing by Coder's provisioner daemons", () => {
  it.each([
    [5, 0.5, 50, 2],
    [5, 1, 50, 5],
    [5, 1, 3, 3],
    [1, 0.5, 10, 1],
    [3, 0.5, 10, 1],
    [10, 0.5, 10, 5],
    [0, 1, 10, 0],
  ])('%i daemons, share %f, concurrency %i: a window of %i', (daemons, share, concurrency, width) => {
    expect(pacedWidth(daemons, share, concurrency)).toBe(width);
  });

  it("holds new starts while users' builds are queued, and says why", () => {
    const d = paceFleet(capacity({ busy: 5, usersQueued: 3 }), 0.5, 50);
    expect(d.width).toBe(2);
    expect(d.hold).toBe("3 of the users' own build(s) queued for the 5 daemon(s) (5 busy): no new migration starts until they run");
  });

  it('holds everything while no daemon is online', () => {
    expect(paceFleet(capacity({ daemons: 0, offline: 2 }), 1, 10)).toEqual({ width: 0, hold: 'no provisioner daemon is online (2 offline): no build can run, so no migration starts until one is back' });
  });

  it('starts up to its share when only its own jobs are queued', () => {
    expect(paceFleet(capacity({ busy: 5, oursActive: 8, usersRunning: 2 }), 0.5, 50)).toEqual({ width: 2 });
  });

  it('describes each mode in one line', () => {
    expect(pacingLine({ mode: 'off', share: 0.5, width: 50 })).toMatch(/pacing off/);
    expect(pacingLine({ mode: 'fallback', share: 0.5, width: 10, fallback: 'Coder answered 404' })).toBe('pacing fell back to the concurrency (Coder answered 404)');
    expect(pacingLine({ mode: 'paced', share: 0.5, width: 2, capacity: capacity({ busy: 4, usersQueued: 1 }), waiting: 'users first' })).toBe(
      "paced: window 2 (share 0.5 of the online daemons) · 4/5 daemon(s) busy, 1 users' job(s) queued · **waiting**: users first",
    );
  });
});
