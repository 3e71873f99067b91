import { terminatedRunLines } from '../../src/domain/terminated-run';

/** What `wsmigrate status` says a terminated or timed-out workspace run left, by the phase it ended in. */
describe('terminatedRunLines', () => {
  const base = { subject: 'alice/dev', template: 'k8s-dev', how: 'terminated' as const, backupRef: 'file:///b/sha256/ab' };

  test('ended during its migrated-state build: never checked, scan says where it stands', () => {
    const lines = terminatedRunLines({ ...base, lastPhase: 'building', stepsDone: ['preflight', 'stop', 'backup', 'rewrite', 'verify'] });
    expect(lines[1]).toMatch(/^Its build of alice\/dev on the new version carrying the migrated state may have been queued or run, and was never checked\. .*'wsmigrate scan --template k8s-dev'/);
  });

  test('ended while restoring: the restore command with the backup', () => {
    expect(terminatedRunLines({ ...base, lastPhase: 'compensating' })[1]).toContain("'wsmigrate state restore alice/dev --backup file:///b/sha256/ab --yes'");
  });

  test('a stop of an earlier round, overtaken by someone\'s build, is not called left stopped', () => {
    const lines = terminatedRunLines({ ...base, how: 'timed-out', lastPhase: 'awaiting-approval', stepsDone: ['preflight', 'stop', 'backup', 'started over: round 2 of 3', 'preflight', 'backup', 'rewrite', 'verify'] });
    expect(lines[0]).toMatch(/^Temporal timed out this run/);
    expect(lines[1]).toMatch(/^It had built nothing since someone built it after its earlier stop: alice\/dev is as their build left it\./);
  });

  test('Coder\'s own build is named as Coder\'s', () => {
    const lines = terminatedRunLines({ ...base, lastPhase: 'preflight', latest: { build_number: 4, transition: 'start', template_version_name: 'v1', initiator_name: 'alice', reason: 'autostart', job: { status: 'running' } } });
    expect(lines.at(-1)).toBe("Coder now: build #4 (start on v1, running, by Coder's autostart).");
  });
});
