import { runMain } from '../harness/cli';

/**
 * `fleet start --help` on require_active_version: it must not promise what Coder does not do.
 * Without Premium Coder ignores the setting; with it only members' starts are held; and while it is
 * on, autostart and members' starts build the *active* version (so a rollback is watched).
 */
describe('fleet start --help: require active version', () => {
  it('says what the setting holds and what it does not', async () => {
    const r = await runMain('fleet', 'start', '--help');
    const text = `${r.out}\n${r.err}`.replace(/\s+/g, ' ');
    expect(text).not.toContain('so nobody starts a migrated workspace on an old version');
    expect(text).toContain("with Coder Premium it holds members' starts to the active version");
    expect(text).toContain('ignored without Premium');
    expect(text).toContain('an old version promoted again while a fleet runs switches it off and pauses it');
  });
});

/** The commands an SRE types on day one with a workflow id: each help says which ids there are, with an example and its exit codes. */
describe('status, approve, reject and fleet status --help teach the ids', () => {
  it.each([
    [['status'], ['wsmigrate/<template>/<owner>/<workspace>', 'wsmigrate-template/<org>/<template>', 'wsmigrate status wsmigrate/k8s-dev/alice/dev', 'Exit codes: 0 shown (whatever the run\'s phase: a failed or declined run too']],
    [['approve'], ['wsmigrate approve wsmigrate/k8s-dev/alice/dev --approver alice', "'wsmigrate approvals' lists every gate waiting and who may decide it", '3 refused']],
    [['reject'], ['wsmigrate reject wsmigrate-fleet/coder/k8s-dev --approver alice --gate fleet-continue', 'Exit codes: 0 rejected']],
    [['fleet', 'pause'], ['wsmigrate fleet pause wsmigrate-fleet/coder/k8s-dev --by alice', 'Exit codes: 0 done, 3 refused']],
    [['fleet', 'resume'], ['wsmigrate fleet resume wsmigrate-fleet/coder/k8s-dev --by alice', 'the fleet is not paused']],
    [['fleet', 'cancel'], ['wsmigrate fleet cancel wsmigrate-fleet/coder/k8s-dev --by alice', 'Exit codes: 0 done']],
    [['approvals'], ['wsmigrate approve <workflow-id> --approver <you>', 'Exit codes: 0 listed']],
    [['worker'], ['wsmigrate worker ', '/readyz', 'Exit codes: 0 stopped by SIGINT/SIGTERM']],
    [['backups', 'prune'], ['wsmigrate backups prune --older-than 30d --yes', 'Exit codes: 0 done']],
    [['schedule', 'list'], ['wsmigrate schedule list', 'Exit codes: 0 listed']],
    [['schedule', 'describe'], ['wsmigrate schedule describe k8s-dev-weekend', 'Exit codes: 0 shown']],
    [['schedule', 'unpause'], ['wsmigrate schedule unpause k8s-dev-weekend --note', '3 refused']],
    [['schedule', 'delete'], ['wsmigrate schedule delete k8s-dev-weekend', 'Exit codes: 0 done']],
    [['backups', 'list'], ['wsmigrate backups list', 'Exit codes: 0 listed']],
    [['backups', 'show'], ['wsmigrate backups show sha256:', 'Exit codes: 0 shown and intact']],
    [['fleet', 'status'], ['wsmigrate fleet status wsmigrate-org/coder --wait', 'wsmigrate-fleet/<org>/<template>-<time>', 'Exit codes: without --wait 0 shown, whatever the run\'s phase (a failed or cancelled run too', 'at once for a run that has already ended']],
  ])('%s --help', async (command, phrases) => {
    const r = await runMain(...command, '--help');
    expect(r.exitCode).toBe(0);
    for (const phrase of phrases) expect(r.out).toContain(phrase);
  });
});
