import { queuedBuildWait } from '../../src/client/run-waits';
import { changedUnderGate } from '../../src/workflows/gate-watch';

/** Coder records the owner as the initiator of its own autostart (wsbuilder.go's default): the words must not blame the owner. */
describe("a build of Coder's own, as the waits and gates name it", () => {
  test("the stale-gate summary says Coder's autostart, not the owner", () => {
    const latest = { id: 'b', buildNumber: 7, transition: 'start', jobStatus: 'running', templateVersionId: 'v-old-0000', templateVersionName: 'v1', initiator: 'alice', reason: 'autostart', createdAt: '2026-12-07T09:00:00Z' };
    expect(changedUnderGate(latest, { plannedOn: 6, approving: 'approving reads again' })).toMatch(/^THE WORKSPACE CHANGED SINCE THIS PLAN: build #7 \(start on v1, running when seen, by Coder's autostart\) came after build #6/);
    expect(changedUnderGate({ ...latest, reason: 'dashboard' }, { plannedOn: 6, approving: 'x' })).toContain('running when seen, by alice)');
  });

  test("status's queued-build line says Coder's autostop", () => {
    const now = Date.parse('2026-12-07T09:01:00Z');
    const build = { build_number: 9, transition: 'stop', initiator_name: 'alice', reason: 'autostop', job: { status: 'pending', created_at: '2026-12-07T09:00:00Z' } };
    expect(queuedBuildWait('alice/dev', build, now)).toMatch(/^Coder's build #9 \(stop by Coder's autostop\) of alice\/dev has been pending for 60 s/);
    expect(queuedBuildWait('alice/dev', { ...build, reason: 'initiator' }, now)).toMatch(/^Coder's build #9 \(stop by alice\) of alice\/dev/);
  });
});
