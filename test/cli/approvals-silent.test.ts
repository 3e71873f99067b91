import { registerApprovalCommands } from '../../src/cli/commands/approvals';
import { pendingApproval } from '../../src/client/approvals';
import { startWorkspaceMigration } from '../../src/client/migrations';
import { runCommand } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

/**
 * `wsmigrate approvals` queries each run its search attribute lists. A run whose worker is gone answers
 * no query: the listing must not wait on it (it held the list, and `/wsmigrate approvals`, for as long
 * as Temporal's own query deadline), and it names the run instead of dropping it silently.
 */
describe('wsmigrate approvals with a run whose worker is gone', () => {
  let env: MigrationEnv;
  const saved = { ...process.env };
  afterAll(async () => {
    process.env = saved;
    await env?.close();
  });

  it('lists the runs that answer, names the silent one and where to look, and does not wait on it', async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    const worker = await env.startWorker();
    const target = (await env.migrateTemplate()).versionId;
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '1h' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await pendingApproval(env.t.client, handle.workflowId)) !== undefined, 90_000);
    const live = await runCommand(registerApprovalCommands, 'approvals');
    expect(live.out).toContain(`${handle.workflowId}: '`);

    await worker.stop();
    const began = Date.now();
    const listed = await runCommand(registerApprovalCommands, 'approvals');
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(listed.exitCode).toBe(0);
    expect(listed.out).not.toContain(`${handle.workflowId}: '`);
    expect(listed.err).toMatch(new RegExp(`wait at a gate by their search attribute but answered no query in 5 s: [^\\n]*${handle.workflowId.replace(/[/]/g, '\\/')} \\(at '\\w+'\\)`));
    expect(listed.err).toContain('Is a worker running and polling their task queue?');

    await env.startWorker();
    await waitFor(async () => (await runCommand(registerApprovalCommands, 'approvals')).out.includes(`${handle.workflowId}: '`), 60_000);
    await handle.terminate('test done');
  }, 240_000);
});
