import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { api, homePvcName } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

/**
 * On a Coder that allows renames (CODER_ALLOW_WORKSPACE_RENAMES), an owner renames their workspace
 * while its migration waits at the apply gate. The migration knows the workspace by id from its
 * preflight on: it goes on with the same workspace and keeps its claim.
 */
describe('a workspace renamed during its migration', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1, allowWorkspaceRenames: true }));
  });
  afterAll(async () => env?.close());

  it('is migrated under its new name, the claim kept, nothing built on another workspace', async () => {
    const ws = env.sim.workspaces()[0]!;
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    const statusOf = async () => (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    await waitFor(async () => (await statusOf()).pendingApproval?.gateId === 'apply', 120_000);
    const renamed = await api(env.sim, 'PATCH', `/workspaces/${ws.id}`, { json: { name: 'renamed-dev' }, token: env.sim.tokenOf(ws.owner) });
    expect(renamed.status).toBe(204);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice' });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const after = await env.coder.workspace(ws.id);
    expect(after.name).toBe('renamed-dev');
    expect(after.latest_build.template_version_id).toBe(targetVersionId);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
