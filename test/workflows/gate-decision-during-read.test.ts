import { setTimeout as sleep } from 'node:timers/promises';
import { signalDecision } from '../../src/client/approvals';
import { approveUpdate, rejectUpdate } from '../../src/contracts/approval';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { homePvcName } from '../sim/helpers';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * An approver's answer that reaches the run in the same workflow task as the gate watch's timer:
 * the watch then asks Coder (a local activity) beside the gate's own notice (another), and the
 * notice's result ends the gate while the read is still out. A run that cancelled that read when
 * its result had already reached Temporal's core was failed by core ("[TMPRL1100] Nondeterminism
 * error: Invalid transition in state machine"): the workspace left where the gate left it, no
 * compensation. The answer must be taken and the run end as it says.
 */
describe('an answer at the apply gate that arrives with the watch’s recheck', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const readsStarted: (() => void)[] = [];
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker({
      workflowInterceptorModules: [require.resolve('./fixtures/short-timers'), require.resolve('./fixtures/slow-decisions')],
      wrap: (acts) => ({
        ...acts,
        readLatestBuild: async (input) => {
          readsStarted.splice(0).forEach((r) => r());
          await sleep(300);
          return acts.readLatestBuild(input);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;

  async function atApplyGate(index: number) {
    const ws = env.sim.workspaces()[index];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply', 60_000);
    return { ws, handle, uid: env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid };
  }

  /**
   * The answer sent while a signal the run ignores (an approval for another plan) holds its workflow for
   * four seconds (fixtures/slow-decisions), sent once the watch's rechecks are 3.2 s apart and its timer
   * runs: the timer fires meanwhile, so the timer and the answer reach the run in one task.
   */
  async function answerWithTheRecheck(workflowId: string, decision: 'approve' | 'reject') {
    const pending = (await statusOf(workflowId)).pendingApproval!;
    for (let read = 0; read < 5; read++) await new Promise<void>((resolve) => readsStarted.push(resolve));
    await sleep(1_600);
    await signalDecision(env.t.client, workflowId, decision, { gateId: pending.gateId, planHash: 'not-this-plan', approver: 'sre' });
    await sleep(500);
    const payload = { gateId: pending.gateId, planHash: pending.planHash, approver: 'sre', channel: 'cli' as const };
    await env.t.client.workflow.getHandle(workflowId).executeUpdate(decision === 'approve' ? approveUpdate : rejectUpdate, { args: [payload] });
  }

  it('approved: migrated, the PVC uid kept', async () => {
    const { ws, handle, uid } = await atApplyGate(0);
    await answerWithTheRecheck(handle.workflowId, 'approve');
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('rejected: restored (started again on its old version), not failed by Temporal', async () => {
    const { ws, handle, uid } = await atApplyGate(1);
    const oldVersion = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    await answerWithTheRecheck(handle.workflowId, 'reject');
    const failure = await workflowFailureOf(handle.result());
    expect(failure.message).not.toMatch(/TMPRL1100|Nondeterminism/);
    expect(failure.message).toMatch(/reject/i);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: oldVersion, job: { status: 'succeeded' } });
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
