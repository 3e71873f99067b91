import { decide } from '../../src/client/approvals';
import { migrationStatus } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { api, homePvcName } from '../sim/helpers';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The recovery's build has the migration's hazard: a template admin promotes the old version again
 * (a rollback) while a recovery waits at its recover gate. Built now on the target, the workspace
 * would be outdated on the migrated version, and its owner's Update (the active, old version on the
 * _v1 state) would destroy the home PVC the recovery was run to keep. The build step refuses it,
 * as the migration's does (rollback-at-apply-gate.test.ts).
 */
describe('an old version promoted again while a recovery waits at its recover gate', () => {
  let env: MigrationEnv;
  let originalVersionId: string;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  const promote = (id: string) => api(env.sim, 'PATCH', `/templates/${env.sim.template.id}/versions`, { json: { id } });

  it('builds nothing on the target: the recovery is refused naming the promote, the workspace left as it was', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    // Damaged: Update and Restart before it was migrated; the guarded start fails and its state forgets the claim.
    const { startBuildId } = await env.sim.updateAndRestart(ws.id);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
    const handle = await startWorkspaceRecovery(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'recover', 120_000);
    const before = (await env.coder.workspace(ws.id)).latest_build;

    expect((await promote(originalVersionId)).status).toBe(200);
    try {
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
      const failure = await workflowFailureOf(handle.result());
      expect(failure.message).toContain(`active version changed since the preflight: ${originalVersionId} is active now`);
      expect(failure.message).toContain('Terraform destroys the home PVC');
      // Nothing built since the gate: no start on the target carrying the recovered state.
      expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(before.id);
      const builds = await env.coder.workspaceBuilds(ws.id, { limit: 25 });
      expect(builds.filter((b) => b.template_version_id === targetVersionId && b.job.status === 'succeeded')).toEqual([]);
      expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    } finally {
      await promote(targetVersionId);
    }
  }, 180_000);
});
