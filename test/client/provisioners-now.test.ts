import { pacingNow, type DaemonsCoder } from '../../src/client/provisioners-now';
import type { FleetPacingStatus } from '../../src/domain/provisioner-pacing';

/**
 * Hazard drive round 2: `fleet status` showed `0/1 daemon(s) busy (read 1m01s ago)` and an ETA while every
 * daemon was offline (the fleet, its window full, had not read them since). With Coder in the shell it reads them now.
 */
describe("fleet status reads Coder's daemons now", () => {
  const tags = { scope: 'organization', owner: '' };
  const stale: FleetPacingStatus = { mode: 'paced', share: 0.5, width: 2, capacity: { daemons: 1, busy: 0, offline: 0, usersQueued: 0, usersRunning: 0, oursActive: 1 }, checkedAt: '2026-12-08T10:03:59Z' };
  const coder = (status: 'offline' | 'idle', fail = false): DaemonsCoder => ({
    provisionerDaemons: async () => {
      if (fail) throw new Error('Coder answered 404');
      return [{ tags, status, last_seen_at: '2026-12-08T10:04:10Z' }];
    },
    provisionerJobs: async () => [{ status: 'pending', initiator_id: 'me' }],
    currentUser: async () => ({ id: 'me' }),
  });
  const at = () => new Date('2026-12-08T10:05:00Z');

  it('every daemon offline: the reading taken now, how many, since when, and why nothing starts', async () => {
    const p = await pacingNow(coder('offline'), 'coder', stale, at);
    expect(p.capacity).toEqual({ daemons: 0, busy: 0, offline: 1, usersQueued: 0, usersRunning: 0, oursActive: 1, offlineSince: '2026-12-08T10:04:10Z' });
    expect(p.checkedAt).toBe('2026-12-08T10:05:00.000Z');
    expect(p.waiting).toMatch(/^no provisioner daemon is online \(1 offline\)/);
  });

  it("daemons online, Coder not in the shell, Coder refusing, or pacing off: the fleet's own reading", async () => {
    expect(await pacingNow(coder('idle'), 'coder', stale, at)).toBe(stale);
    expect(await pacingNow(undefined, 'coder', stale, at)).toBe(stale);
    expect(await pacingNow(coder('offline', true), 'coder', stale, at)).toBe(stale);
    const off: FleetPacingStatus = { mode: 'off', share: 0.5, width: 10 };
    expect(await pacingNow(coder('offline'), 'coder', off, at)).toBe(off);
  });
});
