import { randomUUID } from 'node:crypto';
import { EXIT } from '../../src/cli/io';
import { fleetProgressQuery } from '../../src/contracts/migrate-fleet';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor } from '../harness/wait';

/**
 * A fleet started by hand and a schedule of the same template. Seen on `wsmigrate sim`: while the
 * hand-started fleet waited at its canary gate ('fleet-continue': "continue with the rest? 5 to go"),
 * a schedule created on the same template took a window every minute and migrated every workspace
 * behind that gate; the gate kept asking over counts no longer true. Now neither starts beside the other.
 */
describe('a fleet and a schedule of one template never run side by side', () => {
  const cli = cliAgainstWorker(4);
  const name = `overlap-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    await runMain('schedule', 'delete', name).catch(() => undefined);
  });

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
