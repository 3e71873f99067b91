import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide, signalDecision } from '../../src/client/approvals';
import { runStatus } from '../../src/client/run-status';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { homePvcName } from '../sim/helpers';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

/**
 * A worker whose workflow code no longer replays a run's history (a deploy that changed the
 * workflow without a patch, or Temporal's core refusing a command, as it once did at the apply
 * gate). Failing the run there would skip its compensation and leave the workspace as the step
 * left it; the run must instead wait, `status` say why, and the run go on once a worker that can
 * replay it runs again.
 */
describe('a worker that cannot replay a run', () => {
  let env: MigrationEnv;
  afterAll(async () => env?.close());

  it('leaves the run waiting, not failed; status says why; a worker that can replay it takes it on to the end', async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    const good = await env.startWorker();
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    const statusOf = async () => (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    await waitFor(async () => (await statusOf()).pendingApproval?.gateId === 'apply', 60_000);
    const pending = (await statusOf()).pendingApproval!;
    await good.stop();

    const breaking = await env.startWorker({ workflowInterceptorModules: [require.resolve('./fixtures/replay-breaking')] });
    // Anything that gives the run a workflow task makes the new worker replay it: a signal it ignores (another plan's approval).
    await signalDecision(env.t.client, handle.workflowId, 'approve', { gateId: pending.gateId, planHash: 'not-this-plan', approver: 'sre' });
    await waitFor(async () => {
      const d = await handle.describe();
      return d.status.name !== 'RUNNING' || (d.raw.pendingWorkflowTask?.attempt ?? 0) >= 2;
    }, 120_000);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const text = ((await runStatus(env.t.client, handle.workflowId)).waitingOn ?? []).join('\n');
    expect(text).toMatch(/fails this run's workflow task \(attempt \d+\), so the run moves no further/);
    expect(text).toMatch(/Nondeterminism/i);
    await breaking.stop();

    await env.startWorker();
    await waitFor(async () => (await statusOf().catch(() => undefined))?.pendingApproval?.gateId === 'apply', 120_000);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
