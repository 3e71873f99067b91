import { decide } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { runStatus } from '../../src/client/run-status';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { homePvcName } from '../sim/helpers';
import { waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * `temporal workflow terminate` of a migration after its option A stop: Temporal runs none of its
 * code, so no compensation starts the workspace again. Driven from outside first (docs/hazard-drive.md):
 * `wsmigrate status` said only "terminated (during awaiting-approval)", nothing of the workspace it had
 * stopped, its backup, or what to do.
 */
describe('status of a migration Temporal terminated', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  it('says no compensation ran, that the workspace is left stopped on its old version, its backup, what to run, and Coder\'s latest build', async () => {
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    const statusOf = async () => (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    await waitFor(async () => (await statusOf()).pendingApproval?.gateId === 'stop');
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    await waitFor(async () => (await statusOf()).pendingApproval?.gateId === 'apply');
    const backupRef = (await statusOf()).backup!.ref;
    await handle.terminate('an SRE on a bad day');

    const s = await runStatus(env.t.client, handle.workflowId, env.coder);
    expect(s.phase).toBe('terminated');
    const left = (s.left ?? []).join('\n');
    expect(left).toContain('Temporal terminated this run: none of its code ran after that, so nothing it had done was undone (no compensation, no restore).');
    expect(left).toContain(`This run had stopped ${subject} (it was running; option A stops first), and no migrated state reached Coder: it is left stopped on its old version, holding its old state.`);
    expect(left).toContain(`Its backup of the state before the migration: ${backupRef}.`);
    expect(left).toContain(`To finish, run the migration again (the same --template ${env.sim.template.name} and --version)`);
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ transition: 'stop', job: { status: 'succeeded' } });
    expect(latest.template_version_id).not.toBe(targetVersionId);
    expect(left).toContain(`Coder now: build #${latest.build_number} (stop on ${latest.template_version_name}, succeeded, by `);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
