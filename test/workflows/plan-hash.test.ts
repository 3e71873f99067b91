import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { buildPostsOf } from '../harness/coder-requests';
import { waitFor } from '../harness/wait';
import { homePvcName } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

/**
 * The plan hash follows the state: a migration waiting at its apply gate, whose workspace someone
 * builds before the approval lands, backs up again and asks the same gate ('apply') for a new plan;
 * an approval that still carries the first plan's hash is refused there, and nothing is built on it.
 */
describe('the plan hash changes when the state changes', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 2 }));
  });
  afterAll(async () => env?.close());

  it('two states, one gate id: the approval carrying the old hash is refused; the new one migrates', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    const statusOf = async () => (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    await waitFor(async () => (await statusOf()).pendingApproval?.gateId === 'apply', 120_000);
    const first = await statusOf();
    const oldHash = first.pendingApproval!.planHash;

    // The owner restarts the workspace while the gate waits: Coder now holds another state (a new serial).
    const theirs = await env.coder.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: env.sim.template.originalVersionId });
    expect((await env.coder.waitForBuild(theirs.id)).job.status).toBe('succeeded');
    // The approval of the plan that was shown: the build it allows refuses to write over the owner's build, and the run starts over.
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice', gateId: 'apply', planHash: oldHash });
    await waitFor(async () => {
      const s = await statusOf();
      return s.pendingApproval?.gateId === 'apply' && s.backup !== undefined && s.backup.sha256 !== first.backup?.sha256;
    }, 120_000);
    const second = await statusOf();
    const newHash = second.pendingApproval!.planHash;
    expect(newHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(newHash).not.toBe(oldHash);
    const buildsBefore = buildPostsOf(env.sim, ws.id).length;

    await expect(decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice', gateId: 'apply', planHash: oldHash })).rejects.toThrow(
      new RegExp(`plan hash ${oldHash} does not match the pending plan`),
    );
    expect((await statusOf()).pendingApproval).toMatchObject({ gateId: 'apply', planHash: newHash });
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(buildsBefore);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(theirs.id);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice', gateId: 'apply', planHash: newHash });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect((await statusOf()).approvals.map((a) => [a.gateId, a.planHash])).toEqual([
      ['apply', oldHash],
      ['apply', newHash],
    ]);
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(buildsBefore + 1);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
