import { EXIT } from '../../src/cli/io';
import { migrationStatus } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor } from '../harness/wait';

/**
 * A workspace run that hit its Temporal timeout (a run or execution timeout an operator or a platform
 * set) ended as a terminated one does: none of its code ran after, nothing undone. `wsmigrate status`
 * says so on its 'left:' lines (terminated-run-status.test.ts has the terminate, through the client):
 * without them the SRE reads 'timed-out' and nothing of where the workspace stands or what to run.
 */
describe('wsmigrate status of a workspace run Temporal timed out', () => {
  const cli = cliAgainstWorker(1);

  it("prints what the run left: no compensation, built nothing (ended at its gate), the command that finishes it", async () => {
    const ws = cli.env.sim.workspaces()[0];
    const template = cli.env.sim.template.name;
    const id = `wsmigrate/${template}/${ws.owner}/${ws.name}`;
    const handle = await cli.env.t.client.workflow.start('migrateWorkspace', {
      taskQueue: cli.env.taskQueue,
      workflowId: id,
      args: [{ owner: ws.owner, workspace: ws.name, template, targetVersionId: cli.version, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } }],
      workflowExecutionTimeout: '15s',
    });
    await waitFor(async () => ((await migrationStatus(cli.env.t.client, id).catch(() => undefined)) as WorkspaceMigrationStatus | undefined)?.pendingApproval?.gateId === 'stop', 60_000);
    await expect(handle.result()).rejects.toThrow();

    const r = await runMain('status', id);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toMatch(new RegExp(`^${id}: timed-out`));
    expect(r.outLines).toContain('  left: Temporal timed out this run: none of its code ran after that, so nothing it had done was undone (no compensation, no restore).');
    expect(r.outLines).toContain(`  left: It had built nothing: ${ws.owner}/${ws.name} is as it was before the run. To migrate it, run the migration again (the same --template ${template} and --version).`);
  }, 120_000);
});
