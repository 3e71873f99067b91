import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';

/**
 * Day one, a typo of --org (Coder answers 404 for an organization the token cannot read). It used to
 * be: `fleet start --org nope --all-templates` with Coder's URL in the shell started a run (exit 0)
 * that failed with 'Activity task failed' and nothing else in `fleet status`; `schedule create --org
 * nope --all-templates` made a schedule (exit 0) whose every window would fail so; `scan --org nope`
 * exited 1 where an unknown --template exits 2.
 */
describe('an organization Coder does not know (--org typo)', () => {
  const cli = cliAgainstWorker(1);
  const saved = { ...process.env };
  afterEach(() => {
    process.env.CODER_URL = saved.CODER_URL;
    process.env.CODER_SESSION_TOKEN = saved.CODER_SESSION_TOKEN;
    if (saved.CODER_URL === undefined) delete process.env.CODER_URL;
    if (saved.CODER_SESSION_TOKEN === undefined) delete process.env.CODER_SESSION_TOKEN;
  });
  const withCoder = () => Object.assign(process.env, { CODER_URL: cli.env.sim.url, CODER_SESSION_TOKEN: cli.env.sim.token });
  const runs = async (id: string) => cli.env.t.client.workflow.getHandle(id).describe().then(() => true, () => false);

  it("with Coder's URL in the shell: fleet start --all-templates and schedule create refuse it (exit 2), nothing started or made; scan --org exits 2", async () => {
    withCoder();
    const started = await runMain('fleet', 'start', '--org', 'nope', '--all-templates', '--approver', 'sre');
    expect(started.exitCode).toBe(EXIT.usage);
    expect(started.err).toMatch(/no organization 'nope' that this token can read \(--org/);
    // The hint fits an organization: no owners' usernames (only an organization was read).
    expect(started.err).toMatch(/; check the spelling \('coder organizations show me' lists yours\), then start again$/);
    expect(started.err).not.toMatch(/usernames/);
    expect(await runs('wsmigrate-org/nope')).toBe(false);

    const schedule = await runMain('schedule', 'create', 'typo-org', '--org', 'nope', '--all-templates', '--cron', '0 2 * * 6', '--batch', '2', '--approver', 'sre');
    expect(schedule.exitCode).toBe(EXIT.usage);
    expect(schedule.err).toMatch(/no organization 'nope'/);
    expect(schedule.err).toMatch(/then create it again$/);
    expect((await runMain('schedule', 'list')).out).not.toMatch(/typo-org/);

    const scan = await runMain('scan', '--org', 'nope');
    expect(scan.exitCode).toBe(EXIT.usage);
    expect(scan.err).toMatch(/no organization 'nope' in Coder that this token can read: check --org/);
  }, 120_000);

  it("without Coder in the shell: the run refuses it as an unknown name (--wait exits 2) and fleet status says why, not 'Activity task failed'", async () => {
    delete process.env.CODER_URL;
    delete process.env.CODER_SESSION_TOKEN;
    const waited = await runMain('fleet', 'start', '--org', 'nope2', '--all-templates', '--approver', 'sre', '--wait');
    expect(waited.exitCode).toBe(EXIT.usage);
    const status = await runMain('fleet', 'status', 'wsmigrate-org/nope2');
    expect(status.out).toMatch(/^wsmigrate-org\/nope2: failed: no organization 'nope2' in Coder that the worker's token can read \(.*404.*\); check --org/);
    expect(status.out).not.toMatch(/^wsmigrate-org\/nope2: failed: Activity task failed$/m);
  }, 120_000);
});
