import { randomUUID } from 'node:crypto';
import { EXIT } from '../../src/cli/io';
import { fleetProgressQuery } from '../../src/contracts/migrate-fleet';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor } from '../harness/wait';
import { exclusiveFile, ORG_CODER_LOCK } from '../harness/exclusive';

// The organization run wsmigrate-org/coder and schedules of organization coder: one such file at a time.
exclusiveFile(ORG_CODER_LOCK);

/**
 * A fleet started by hand and a schedule of the same template. Seen on `wsmigrate sim`: while the
 * hand-started fleet waited at its canary gate ('fleet-continue': "continue with the rest? 5 to go"),
 * a schedule created on the same template took a window every minute and migrated every workspace
 * behind that gate; the gate kept asking over counts no longer true. Now neither starts beside the other.
 */
describe('a fleet and a schedule of one template never run side by side', () => {
  const cli = cliAgainstWorker(4);
  const name = `overlap-${randomUUID().slice(0, 8)}`;
  const orgWide = `${name}-org`;
  const two = `${name}-two`;
  afterAll(async () => {
    for (const n of [name, orgWide, two]) await runMain('schedule', 'delete', n).catch(() => undefined);
  });

  it('organization-wide: --all-templates or several --template schedules, organization runs and fleets sharing a template are refused (exit 3); a fleet start right after a create sees the schedule', async () => {
    const env = cli.env;
    const t = env.sim.template.name;
    const other = `other-${randomUUID().slice(0, 8)}`;
    const cron = ['--cron', '0 2 * * 6', '--batch', '1', '--canary', '0', '--approval', 'none'];

    // Created, then at once a fleet of one of its templates: the schedule list's lag after a create lets no fleet through.
    expect((await runMain('schedule', 'create', orgWide, '--org', 'coder', '--all-templates', ...cron)).exitCode).toBe(EXIT.ok);
    const fleet = await runMain('fleet', 'start', '--org', 'coder', '--template', t, '--version', cli.version, '--canary', '0', '--approval', 'none');
    expect(fleet.exitCode).toBe(EXIT.denied);
    expect(fleet.err).toMatch(
      new RegExp(`fleet of coder/${t} not started: schedule wsmigrate-${orgWide} \\(next window [^)]+\\) starts an organization run of every template of coder at each window.*Pause the schedule first \\(wsmigrate schedule pause ${orgWide}\\)`),
    );

    // A second schedule that names the template among others (repeated --template): refused beside the first.
    const beside = await runMain('schedule', 'create', two, '--org', 'coder', '--template', t, '--template', other, ...cron);
    expect(beside.exitCode).toBe(EXIT.denied);
    expect(beside.err).toMatch(
      new RegExp(`wsmigrate-${two} would start an organization run of coder/\\{${t}, ${other}\\} beside schedule wsmigrate-${orgWide} \\(an organization run of every template of coder\\).*wsmigrate schedule pause ${orgWide}`),
    );

    // The organization-wide one paused, the two-template one created: an organization run by hand of every template is refused beside it.
    expect((await runMain('schedule', 'pause', orgWide)).exitCode).toBe(EXIT.ok);
    expect((await runMain('schedule', 'create', two, '--org', 'coder', '--template', t, '--template', other, ...cron)).exitCode).toBe(EXIT.ok);
    const orgRun = await runMain('fleet', 'start', '--org', 'coder', '--all-templates', '--canary', '0', '--approval', 'none');
    expect(orgRun.exitCode).toBe(EXIT.denied);
    expect(orgRun.err).toMatch(new RegExp(`organization run of every template of coder not started: schedule wsmigrate-${two} \\(next window [^)]+\\) starts an organization run of coder/\\{${t}, ${other}\\} at each window`));

    // Both paused, a fleet of the template by hand waits at its canary gate: neither schedule may take windows, nor a new organization-wide one.
    expect((await runMain('schedule', 'pause', two)).exitCode).toBe(EXIT.ok);
    const fleetId = `wsmigrate-fleet/coder/${t}`;
    expect((await runMain('fleet', 'start', '--org', 'coder', '--template', t, '--version', cli.version, '--canary', '1', '--approver', 'sre')).exitCode).toBe(EXIT.ok);
    await waitFor(async () => (await env.t.client.workflow.getHandle(fleetId).query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 90_000);
    for (const [action, n] of [['unpause', two], ['trigger', orgWide]]) {
      const r = await runMain('schedule', action, n);
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toMatch(new RegExp(`wsmigrate-${n} would start an organization run of (coder/\\{${t}, ${other}\\}|every template of coder) while ${fleetId} runs`));
    }
    const wide = await runMain('schedule', 'create', `${orgWide}-2`, '--org', 'coder', '--all-templates', ...cron);
    expect(wide.exitCode).toBe(EXIT.denied);
    expect(wide.err).toMatch(new RegExp(`wsmigrate-${orgWide}-2 would start an organization run of every template of coder while ${fleetId} runs.*or create the schedule with --paused`));

    expect((await runMain('fleet', 'cancel', fleetId, '--by', 'sre')).exitCode).toBe(EXIT.ok);
    await env.t.client.workflow.getHandle(fleetId).result().catch(() => undefined);
    for (const n of [orgWide, two]) expect((await runMain('schedule', 'delete', n)).exitCode).toBe(EXIT.ok);
  }, 240_000);

  it('schedule create/unpause/trigger beside a running fleet, and fleet start beside an active schedule: refused (exit 3), saying which and what to do', async () => {
    const env = cli.env;
    const t = env.sim.template.name;
    const fleetId = `wsmigrate-fleet/coder/${t}`;
    const started = await runMain('fleet', 'start', '--org', 'coder', '--template', t, '--version', cli.version, '--canary', '1', '--approver', 'sre');
    expect(started.exitCode).toBe(EXIT.ok);
    await waitFor(async () => (await env.t.client.workflow.getHandle(fleetId).query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 90_000);

    const created = await runMain('schedule', 'create', name, '--org', 'coder', '--template', t, '--version', cli.version, '--cron', '0 2 * * 6', '--batch', '2', '--approver', 'sre');
    expect(created.exitCode).toBe(EXIT.denied);
    expect(created.err).toMatch(new RegExp(`wsmigrate-${name} would start a fleet of coder/${t} while ${fleetId} runs: its windows would migrate workspaces behind that fleet's canary gate.*wsmigrate fleet cancel ${fleetId}.*or create the schedule with --paused`));
    expect((await runMain('schedule', 'describe', name)).exitCode).not.toBe(EXIT.ok);

    // Paused, it takes no window: allowed; unpausing or triggering it while the fleet runs is not.
    expect((await runMain('schedule', 'create', name, '--org', 'coder', '--template', t, '--version', cli.version, '--cron', '0 2 * * 6', '--batch', '2', '--approver', 'sre', '--paused')).exitCode).toBe(EXIT.ok);
    for (const action of ['unpause', 'trigger']) {
      const r = await runMain('schedule', action, name);
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toMatch(new RegExp(`wsmigrate-${name} would start a fleet of coder/${t} while ${fleetId} runs`));
    }
    const d = JSON.parse((await runMain('schedule', 'describe', name, '--json')).out) as { paused: boolean; recentRuns: unknown[] };
    expect(d).toMatchObject({ paused: true, recentRuns: [] });

    // The fleet ends; the schedule may take windows; a fleet by hand is then refused while it is active.
    expect((await runMain('fleet', 'cancel', fleetId, '--by', 'sre')).exitCode).toBe(EXIT.ok);
    await env.t.client.workflow.getHandle(fleetId).result().catch(() => undefined);
    expect((await runMain('schedule', 'unpause', name)).exitCode).toBe(EXIT.ok);
    const again = await runMain('fleet', 'start', '--org', 'coder', '--template', t, '--version', cli.version, '--canary', '1', '--approver', 'sre');
    expect(again.exitCode).toBe(EXIT.denied);
    expect(again.err).toMatch(new RegExp(`fleet of coder/${t} not started: schedule wsmigrate-${name} \\(next window [^)]+\\) starts a fleet of this template at each window.*Pause the schedule first \\(wsmigrate schedule pause ${name}\\)`));
    expect((await runMain('schedule', 'pause', name)).exitCode).toBe(EXIT.ok);
    const ok = await runMain('fleet', 'start', '--org', 'coder', '--template', t, '--version', cli.version, '--canary', '0', '--approval', 'none', '--approver', 'sre', '--wait');
    expect(ok.exitCode).toBe(EXIT.ok);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});
