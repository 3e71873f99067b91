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
