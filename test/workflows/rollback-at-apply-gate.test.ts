import { decide } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { FailureType } from '../../src/contracts/failures';
import { api, homePvcName } from '../sim/helpers';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A template admin promotes the old version again (a rollback) while a migration waits at its apply
 * gate. The preflight had checked the target was active; built now, the workspace would be outdated on
 * the migrated version, and its owner's Update (the dashboard builds the active version) would build
 * the old version on the _v1 state: the home PVC destroyed. Driven from outside first (hazard drive,
 * docs/hazard-drive.md): the run approved after the rollback ended "migrated", and one Update lost the PVC.
 */
describe('an old version promoted again while a migration waits at its apply gate', () => {
  let env: MigrationEnv;
  let originalVersionId: string;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv({ workspaces: 2 }));
  });
  afterAll(async () => env?.close());

  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;
  const promote = (id: string) => api(env.sim, 'PATCH', `/templates/${env.sim.template.id}/versions`, { json: { id } });

  it('builds nothing on the target: the run rolls back, names the promote and what to run; the owner\'s Update afterwards loses nothing', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'stop');
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply');

    expect((await promote(originalVersionId)).status).toBe(200);
    try {
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
      const failure = await workflowFailureOf(handle.result());
      expect(failure.type).toBe(FailureType.rolledBack);
      expect(failure.message).toContain('migration rolled back, state and transition restored');
      expect(failure.message).toContain(`active version changed since the preflight: ${originalVersionId} is active now`);
      expect(failure.message).toContain('Terraform destroys the home PVC');

      // No build ever ran the target version; the workspace runs its old version on its old state again.
      const builds = await env.coder.workspaceBuilds(ws.id, { limit: 25 });
      expect(builds.filter((b) => b.template_version_id === targetVersionId)).toEqual([]);
      const latest = (await env.coder.workspace(ws.id)).latest_build;
      expect(latest).toMatchObject({ transition: 'start', template_version_id: originalVersionId, job: { status: 'succeeded' } });
      expect((await env.coder.getWorkspaceBuildState(latest.id)).toString('utf8')).not.toContain('_v1"');

      // The owner's Update now builds the active (old) version on the old state: nothing lost.
      const update = await api<{ id: string }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition: 'start', template_version_id: originalVersionId } });
      expect(update.status).toBe(201);
      await env.coder.waitForBuild(update.body.id);
      expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
      expect(env.sim.cluster.pvcLosses()).toEqual([]);
    } finally {
      await promote(targetVersionId);
    }
  });
});
