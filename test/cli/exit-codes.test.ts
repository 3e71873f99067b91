import { randomUUID } from 'node:crypto';
import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { cliAgainstWorker } from '../harness/cli-env';

// README: "Exit codes of every command: 0 ok, 1 failure, 2 usage, 3 denied/refused, 4 changes pending."
describe("commander's own errors exit 2 (usage), like every other usage error", () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1'; // nothing here may get as far as connecting
  });
  afterAll(() => {
    process.env = saved;
  });

  it('a typo of a flag is named as unknown, with the flag it most likely means, before any missing option', async () => {
    const r = await runMain('scan', '--templte', 'k8s-dev');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toBe('wsmigrate: unknown option --templte; did you mean --template?');
    const m = await runMain('migrate', 'workspace', 'alice/dev', '--templte', 'k8s', '--version', 'v');
    expect(m.err).toBe('wsmigrate: unknown option --templte; did you mean --template?');
    expect(m.exitCode).toBe(EXIT.usage);
  });

  it('a typo of a subcommand followed by options is named as the unknown command, with the one it most likely means, not as an unknown option', async () => {
    const r = await runMain('fleet', 'strat', '--template', 'k8s-dev', '--approver', 'sre');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/^error: unknown command 'strat'\n\(Did you mean start\?\)/);
    expect(r.err).not.toMatch(/unknown option --template/);
  });

  it('an unknown flag with nothing close says where the options are listed', async () => {
    const r = await runMain('approvals', '--bogus');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toBe("wsmigrate: unknown option --bogus; 'wsmigrate approvals --help' lists the options");
  });

  it('values of options are not mistaken for options (a variadic list, an inline value)', async () => {
    const r = await runMain('migrate', 'workspace', 'alice/dev', '--approver', 'a', 'b', '--template=k8s', '--frobnicate');
    expect(r.err).toMatch(/unknown option --frobnicate/);
    expect(r.exitCode).toBe(EXIT.usage);
  });

  it('a missing required option, a missing argument, an unknown command and a bad option value: 2', async () => {
    const missing = await runMain('scan');
    expect(missing.exitCode).toBe(EXIT.usage);
    expect(missing.err).toMatch(/scan needs --template <name>, or --org <organization> for every template of it/);
    expect((await runMain('fleet', 'status')).exitCode).toBe(EXIT.usage);
    expect((await runMain('nosuch')).exitCode).toBe(EXIT.usage);
    expect((await runMain('scan', '--template', 't', '--depth', 'many')).exitCode).toBe(EXIT.usage);
    expect((await runMain('--help')).exitCode).toBe(EXIT.ok);
  });

  it("a missing required option or argument is one error and where the options are listed, not the whole help after it", async () => {
    const r = await runMain('migrate', 'workspace', 'alice/dev', '--version', 'v');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err.trim()).toBe("error: required option '--template <name>' not specified\n('wsmigrate migrate workspace --help' lists the options)");
    const a = await runMain('fleet', 'status');
    expect(a.err.trim()).toBe("error: missing required argument 'workflow-id'\n('wsmigrate fleet status --help' lists the options)");
    expect(r.out).toBe('');
  });
});

describe('exit codes against a running Temporal', () => {
  const cli = cliAgainstWorker(2);

  it('a cron Temporal cannot read is a usage error (2), naming --cron', async () => {
    const r = await runMain('schedule', 'create', `bad-${randomUUID().slice(0, 8)}`, '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--cron', 'every saturday', '--batch', '2', '--approval', 'none');
    expect(r.err).toMatch(/^wsmigrate: Temporal refused the schedule's spec: .*check --cron/m);
    expect(r.exitCode).toBe(EXIT.usage);
    expect((await runMain('schedule', 'create', 'x', '--org', 'coder', '--template', 't', '--version', cli.version, '--cron', '0 2 * * 6', '--batch', 'ten')).exitCode).toBe(EXIT.usage);
    // A field out of its range (hour 25, weekday 9): the same, not a bare "Hour is not in range [0-23]" with exit 1.
    for (const cron of ['0 25 * * *', '0 2 * * 9']) {
      const out = await runMain('schedule', 'create', `bad-${randomUUID().slice(0, 8)}`, '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--cron', cron, '--batch', '2', '--approval', 'none');
      expect(out.err).toMatch(/^wsmigrate: Temporal refused the schedule's spec: \w+ is not in range \[\d+-\d+\]; check --cron/m);
      expect(out.exitCode).toBe(EXIT.usage);
    }
  }, 60_000);

  it("a non-approver's approve is refused like a non-approver's pause or cancel: 3", async () => {
    // No --org: the Coder CLI's CODER_ORGANIZATION, else "coder", Coder's first organization.
    const started = await runMain('fleet', 'start', '--template', cli.env.sim.template.name, '--version', cli.version, '--canary', '1', '--approver', 'sre', '--no-archive', '--json');
    expect(started.exitCode).toBe(EXIT.ok);
    const { workflowId } = JSON.parse(started.out) as { workflowId: string };
    expect(workflowId).toBe(`wsmigrate-fleet/coder/${cli.env.sim.template.name}`);
    await waitFor(async () => (await runMain('fleet', 'status', workflowId)).out.includes("'fleet-continue'"), 90_000);
    const approve = await runMain('approve', workflowId, '--approver', 'mallory');
    expect(approve.err).toMatch(/^wsmigrate: approve refused: .*mallory/);
    expect(approve.exitCode).toBe(EXIT.denied);
    const pause = await runMain('fleet', 'pause', workflowId, '--by', 'mallory');
    expect(pause.exitCode).toBe(EXIT.denied);
    // WSMIGRATE_APPROVER names the operator for pause/resume/cancel as it does for approve.
    process.env.WSMIGRATE_APPROVER = 'sre';
    try {
      const asEnv = await runMain('fleet', 'pause', workflowId);
      expect(asEnv.out).toBe(`paused ${workflowId} as sre`);
      expect((await runMain('fleet', 'resume', workflowId)).out).toBe(`resumed ${workflowId} as sre`);
    } finally {
      delete process.env.WSMIGRATE_APPROVER;
    }
    expect((await runMain('fleet', 'cancel', workflowId, '--by', 'sre')).exitCode).toBe(EXIT.ok);
  }, 150_000);
});
