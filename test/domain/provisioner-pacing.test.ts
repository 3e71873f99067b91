import { MIGRATIONS_PER_SLOT, capacityOf, noDaemonOnline, paceFleet, pacedWidth, pacingLine, pacingPlanText, windowText, withDaemonsNow, type ProvisionerCapacity } from '../../src/domain/provisioner-pacing';

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
    // Two daemon slots, two migrations per slot (a migration builds for part of its life only).
    expect(d.width).toBe(2 * MIGRATIONS_PER_SLOT);
    expect(d.hold).toBe("3 of the users' own build(s) queued for the 5 daemon(s) (5 busy): no new migration starts until they run");
  });

  it('holds everything while no daemon is online', () => {
    expect(paceFleet(capacity({ daemons: 0, offline: 2 }), 1, 10)).toEqual({ width: 0, hold: 'no provisioner daemon is online (2 offline): no build can run, so no migration starts until one is back' });
  });

  it('starts nothing while its own builds fill its share of the daemons, and starts again below it', () => {
    expect(paceFleet(capacity({ busy: 5, oursActive: 2, usersRunning: 3 }), 0.5, 50)).toEqual({ width: 4, full: true });
    expect(paceFleet(capacity({ busy: 4, oursActive: 1, usersRunning: 3 }), 0.5, 50)).toEqual({ width: 4 });
  });

  it('never opens the window wider than --concurrency', () => {
    expect(paceFleet(capacity({ daemons: 10 }), 1, 3)).toEqual({ width: 3 });
  });

  it('describes each mode in one line', () => {
    expect(pacingLine({ mode: 'off', share: 0.5, width: 50 })).toMatch(/pacing off/);
    expect(pacingLine({ mode: 'fallback', share: 0.5, width: 10, fallback: 'Coder answered 404' })).toBe('pacing fell back to the concurrency (Coder answered 404)');
    expect(pacingLine({ mode: 'paced', share: 0.5, width: 2, capacity: capacity({ busy: 4, usersQueued: 1 }), waiting: 'users first' })).toBe(
      "paced: window 2 (share 0.5 of the online daemons) · 4/5 daemon(s) busy, 1 users' job(s) queued · **waiting**: users first",
    );
  });

  it('says, before a fleet starts, what paces it: the daemons and the share, with the concurrency only where it is the cap', () => {
    // The demo: 20 daemons, half of them, --concurrency 10: the concurrency caps the window.
    expect(pacingPlanText({ daemons: 20, share: 0.5, concurrency: 10 })).toBe(
      "paced by Coder's 20 provisioner daemon(s): our builds keep to half of them (10 at once), up to 10 migration(s) run at once (--concurrency 10), and none starts while a user's build waits for a daemon",
    );
    // Three daemons (Coder's built-in ones): the share, not --concurrency 10, is what limits it.
    expect(pacingPlanText({ daemons: 3, share: 0.5, concurrency: 10 })).toBe(
      "paced by Coder's 3 provisioner daemon(s): our builds keep to half of them (1 at once), up to 2 migration(s) run at once (2 per daemon of the share; --concurrency 10 allows more), and none starts while a user's build waits for a daemon",
    );
    expect(pacingPlanText({ daemons: 8, share: 0.25, concurrency: 3 })).toMatch(/keep to 25% of them \(2 at once\), up to 3 migration\(s\) run at once \(--concurrency 3\)/);
  });

  it("says how old the daemons' reading is, and when our own builds fill the share", () => {
    const at = Date.parse('2026-12-06T10:00:00Z');
    const p = { mode: 'paced' as const, share: 1, width: 4, capacity: capacity({ busy: 5, usersQueued: 0 }), checkedAt: '2026-12-06T09:57:30Z', full: true };
    expect(pacingLine(p, at)).toBe("paced: window 4 (share 1 of the online daemons) · 5/5 daemon(s) busy, 0 users' job(s) queued (read 2m30s ago) · our builds fill the share: the next start waits for one to end");
    // No clock given, or no reading time: no age; a reading from the future is not a negative age.
    expect(pacingLine(p)).not.toMatch(/ago/);
    expect(pacingLine({ ...p, checkedAt: undefined }, at)).not.toMatch(/ago/);
    expect(pacingLine({ ...p, checkedAt: '2026-12-06T10:00:05Z' }, at)).toContain('(read 0s ago)');
    // Waiting says why, and then "fill the share" is not said twice.
    expect(pacingLine({ ...p, waiting: "users' builds first" }, at)).toBe("paced: window 4 (share 1 of the online daemons) · 5/5 daemon(s) busy, 0 users' job(s) queued (read 2m30s ago) · **waiting**: users' builds first");
    expect(pacingLine({ mode: 'paced', share: 0.5, width: 1 })).toBe('paced: window 1 (share 0.5 of the online daemons) · daemons not read yet');
    expect(pacingLine({ mode: 'fallback', share: 0.5, width: 1 })).toBe('pacing fell back to the concurrency (daemons unknown)');
  });

  it("says in a gate's question how many run at once: the concurrency alone only when not paced", () => {
    expect(windowText(10, undefined)).toBe('10 at a time');
    expect(windowText(10, { mode: 'fallback', share: 0.5, width: 10 })).toBe('10 at a time');
    expect(windowText(10, { mode: 'paced', share: 0.5, width: 2 })).toBe("up to 10 at a time, paced by Coder's provisioners");
    expect(windowText(10, { mode: 'paced', share: 0.5, width: 2, capacity: capacity({ busy: 1 }) })).toBe("up to 10 at a time, paced by Coder's provisioners: 2 now");
  });

  /** Hazard drive round 2: `0/1 daemon(s) busy (read 1m01s ago)` and an ETA while every daemon was offline. */
  describe('every daemon offline', () => {
    const at = Date.parse('2026-12-08T10:05:00Z');
    const offline = capacity({ daemons: 0, offline: 2, offlineSince: '2026-12-08T10:02:00Z' });

    it('says how many of how many are offline, since when, and that the fleet waits for one, with no window and no ETA', () => {
      const line = pacingLine({ mode: 'paced', share: 0.5, width: 0, capacity: offline, checkedAt: '2026-12-08T10:04:55Z', waiting: paceFleet(offline, 0.5, 10).hold }, at);
      expect(line).toBe(
        'paced: no provisioner daemon online (0 of 2; offline since 2026-12-08T10:02:00Z, 3m00s ago) (read 5s ago) · the fleet waits for one to come back: no build runs, so no migration starts or finishes until then',
      );
      expect(line).not.toMatch(/busy|window/);
      expect(pacingLine({ mode: 'paced', share: 0.5, width: 0, capacity: capacity({ daemons: 0, offline: 1 }) })).toBe(
        'paced: no provisioner daemon online (0 of 1) · the fleet waits for one to come back: no build runs, so no migration starts or finishes until then',
      );
      expect(noDaemonOnline({ mode: 'paced', share: 0.5, width: 0, capacity: offline })).toBe(true);
      expect(noDaemonOnline({ mode: 'paced', share: 0.5, width: 2, capacity: capacity({ daemons: 1 }) })).toBe(false);
      expect(noDaemonOnline({ mode: 'fallback', share: 0.5, width: 2 })).toBe(false);
    });

    it("counts them from Coder's lists: the last time any offline one was seen is when they went away", () => {
      const tags = { scope: 'organization', owner: '' };
      const c = capacityOf(
        [
          { tags, status: 'offline', last_seen_at: '2026-12-08T10:01:00Z' },
          { tags, status: 'offline', last_seen_at: '2026-12-08T10:02:00Z' },
          { tags: { scope: 'user', owner: 'x' }, status: 'idle' },
        ],
        [{ status: 'pending', initiator_id: 'me' }],
        'me',
      );
      expect(c).toEqual({ daemons: 0, busy: 0, offline: 2, usersQueued: 0, usersRunning: 0, oursActive: 1, offlineSince: '2026-12-08T10:02:00Z' });
      expect(capacityOf([{ tags, status: 'idle', last_seen_at: '2026-12-08T10:02:00Z' }], [], 'me')).not.toHaveProperty('offlineSince');
    });

    it("a reading taken now that finds none online replaces the fleet's stale one; one that finds daemons leaves the fleet's", () => {
      const stale = { mode: 'paced' as const, share: 0.5, width: 2, capacity: capacity({ daemons: 1, busy: 0 }), checkedAt: '2026-12-08T10:03:59Z' };
      const now = withDaemonsNow(stale, offline, '2026-12-08T10:05:00Z');
      expect(now).toMatchObject({ capacity: offline, checkedAt: '2026-12-08T10:05:00Z', waiting: expect.stringMatching(/^no provisioner daemon is online \(2 offline\)/) });
      expect(pacingLine(now, at)).toMatch(/^paced: no provisioner daemon online \(0 of 2; .*\(read 0s ago\)/);
      expect(withDaemonsNow(stale, capacity({ daemons: 1, busy: 1 }), '2026-12-08T10:05:00Z')).toBe(stale);
      expect(withDaemonsNow(stale, undefined, '2026-12-08T10:05:00Z')).toBe(stale);
    });
  });
});
