import { EXIT } from '../../src/cli/io';
import { decide } from '../../src/client/approvals';
import { migrationStatus } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor, workflowFailureOf } from '../harness/wait';

/**
 * A second start of a run that is running (one run per workspace, one fleet per template) is a
 * refusal of a sound request, exit 3 as every other refusal, not a failure (exit 1): scripts that
 * tell "refused, nothing changed" from "broke" read the code. Driven from outside first
 * (docs/hazard-drive.md): a second 'fleet start' of a running fleet exited 1.
 */
describe('a second start of a running run, through the CLI', () => {
  const cli = cliAgainstWorker(1);

  it('migrate workspace, recover and fleet start of a workspace or template whose run is running: exit 3, naming the run', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const template = cli.env.sim.template.name;
    const id = `wsmigrate/${template}/${ws.owner}/${ws.name}`;
    const first = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', template, '--version', cli.version, '--approval', 'all', '--approver', 'sre');
    expect(first.exitCode).toBe(EXIT.ok);
    await waitFor(async () => ((await migrationStatus(cli.env.t.client, id)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'stop');

    const again = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', template, '--version', cli.version, '--approval', 'none');
    expect(again.exitCode).toBe(EXIT.denied);
    expect(again.err).toContain(`a migration of ${ws.owner}/${ws.name} is already running (${id}); see 'wsmigrate status ${id}'`);
    const recover = await runMain('recover', `${ws.owner}/${ws.name}`, '--template', template, '--version', cli.version, '--any-approver');
    expect(recover.exitCode).toBe(EXIT.denied);
    expect(recover.err).toContain(`is already running (${id})`);

    const fleet = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', cli.version, '--approver', 'sre');
    expect(fleet.exitCode).toBe(EXIT.ok);
    const fleetAgain = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', cli.version, '--approver', 'sre');
    expect(fleetAgain.exitCode).toBe(EXIT.denied);
    expect(fleetAgain.err).toContain(`a fleet of coder/${template} is already running (wsmigrate-fleet/coder/${template})`);

    expect((await runMain('fleet', 'cancel', `wsmigrate-fleet/coder/${template}`, '--by', 'sre')).exitCode).toBe(EXIT.ok);
    await decide(cli.env.t.client, id, 'reject', { approver: 'sre', comment: 'test over' });
    expect((await workflowFailureOf(cli.env.t.client.workflow.getHandle(id).result())).type).toBe('WsmigrateRejected');
  }, 120_000);
});
