import { terminatedRunLines } from '../../src/domain/terminated-run';

/**
 * `wsmigrate status` of a workspace run Temporal ended, phase by phase: what the SRE reads decides
 * whether they re-run the migration, run a scan first, or restore a backup. Each phase names where the
 * workspace may stand; a wrong line sends them to the wrong command (a re-run over an unchecked
 * migrated build, or "it built nothing" for a workspace the run left stopped).
 */
describe('terminatedRunLines, by the phase the run ended in', () => {
  const base = { subject: 'alice/dev', template: 'k8s-dev', how: 'terminated' as const, backupRef: 'file:///b/sha256/ab' };
  const UNCHECKED = /^Its build of alice\/dev on the new version carrying the migrated state may have been queued or run, and was never checked\./;

  test('ended while checking the migrated build: as during the build, never checked, scan first', () => {
    const lines = terminatedRunLines({ ...base, lastPhase: 'checking', stepsDone: ['preflight', 'backup', 'rewrite', 'verify', 'build'] });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(UNCHECKED);
    expect(lines[1]).toContain("'wsmigrate scan --template k8s-dev'");
  });

  test('ended while stopping (the stop not done yet): the run was stopping it, left on its old version', () => {
    const lines = terminatedRunLines({ ...base, lastPhase: 'stopping', stepsDone: ['preflight'] });
    expect(lines[1]).toMatch(/^This run was stopping alice\/dev \(it was running; option A stops first\), and no migrated state reached Coder: it is left stopped on its old version/);
    expect(lines[1]).toContain('To finish, run the migration again (the same --template k8s-dev and --version)');
  });

  test('ended at the apply gate after its own stop in this round: left stopped, not "built nothing"', () => {
    const lines = terminatedRunLines({ ...base, lastPhase: 'awaiting-approval', stepsDone: ['preflight', 'stop', 'backup', 'rewrite', 'verify'] });
    expect(lines[1]).toMatch(/^This run had stopped alice\/dev /);
    expect(lines.join('\n')).not.toContain('It had built nothing');
  });

  test.each(['preflight', 'backing-up', 'rewriting', 'verifying', 'awaiting-approval'])('ended in %s before any build or stop: it built nothing, the workspace is as it was', (phase) => {
    const lines = terminatedRunLines({ ...base, how: 'timed-out', lastPhase: phase, stepsDone: ['preflight'] });
    expect(lines[0]).toMatch(/^Temporal timed out this run/);
    expect(lines[1]).toBe(`It had built nothing: alice/dev is as it was before the run. Its backup of the state before the migration: file:///b/sha256/ab. To migrate it, run the migration again (the same --template k8s-dev and --version).`);
  });

  test('without a backup no backup is named; the restore command then asks for the ref', () => {
    const { backupRef: _none, ...noBackup } = base;
    const building = terminatedRunLines({ ...noBackup, lastPhase: 'building' });
    expect(building[1]).toMatch(UNCHECKED);
    expect(building.join('\n')).not.toContain('Its backup');
    expect(terminatedRunLines({ ...noBackup, lastPhase: 'compensating' })[1]).toContain("'wsmigrate state restore alice/dev --backup <ref> --yes'");
  });

  test('a phase after the build (migrated) or none known: only what Temporal did, and Coder now when read', () => {
    expect(terminatedRunLines({ ...base, lastPhase: 'migrated' })).toHaveLength(1);
    expect(terminatedRunLines({ ...base })).toHaveLength(1);
    const latest = { build_number: 9, transition: 'stop', job: { status: 'succeeded' } };
    expect(terminatedRunLines({ ...base, latest })).toEqual([expect.stringMatching(/^Temporal terminated this run/), 'Coder now: build #9 (stop, succeeded, by someone else).']);
  });
});
