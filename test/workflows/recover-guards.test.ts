import { decide } from '../../src/client/approvals';
import { migrationStatus } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { FailureType } from '../../src/domain/failure-types';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { api, homePvcName, putState } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

/**
 * `wsmigrate recover` of a workspace its owner's Update damaged (the guarded build failed and forgot
 * the PVC entry): what it judged is what it builds over, and it builds only onto the active version.
 * A state put onto the damaged build while the recover gate waits is not written over: the recovery
 * plans again (try 2 of 3). A target that is no longer the active version is refused before anything
 * is backed up, as a migration's is, unless --allow-inactive-version.
 */
describe('wsmigrate recover: what it read is what it builds over, onto the active version only', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let originalVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId, originalVersionId } = await createMigratedEnv({ workspaces: 2 }));
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i];
  const input = (i: number, extra: Partial<MigrateWorkspaceInput> = {}): MigrateWorkspaceInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'destructive', approvers: ['sre'], timeout: '7d' },
    ...extra,
  });
  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;
  const damage = async (i: number) => {
    const { startBuildId } = await env.sim.updateAndRestart(ws(i).id);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
    return startBuildId;
  };

  it('a state put onto the damaged build while the recover gate waits: nothing built from the old read; the recovery plans again and recovers from the state put there', async () => {
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid;
    const damaged = await damage(0);
    const handle = await startWorkspaceRecovery(env.t.client, input(0), { taskQueue: env.taskQueue });
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'recover', 60_000);
    const first = (await statusOf(handle.workflowId)).backup!;
    // `coder state push` of the same objects with a newer serial, onto the build the recovery backed up.
    const pushed = JSON.parse((await env.coder.getWorkspaceBuildState(damaged)).toString('utf8')) as { serial: number };
    pushed.serial += 5;
    expect((await putState(env.sim, damaged, `${JSON.stringify(pushed, null, 2)}\n`)).status).toBe(204);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    // Try 2 backs up what is there now and asks again.
    await waitFor(async () => {
      const s = await statusOf(handle.workflowId);
      return s.pendingApproval?.gateId === 'recover' && s.backup?.sha256 !== first.sha256;
    }, 60_000);
    expect((await env.coder.workspace(ws(0).id)).latest_build.id).toBe(damaged);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const status = await statusOf(handle.workflowId);
    expect(status.restarts).toBe(1);
    expect(status.stepsDone).toContain('started over: try 2 of 3');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid).toBe(uid);
  });

  it('onto a target that is no longer the active version: refused before anything is backed up or built, naming the active version', async () => {
    // Damaged on its old version: a restart there whose build forgot the PVC entry (the claim stays in the cluster).
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim.home', workspaceId: ws(1).id, transition: 'start', times: 1 } });
    try {
      for (const transition of ['stop', 'start'] as const) {
        const b = await env.coder.createWorkspaceBuild(ws(1).id, { transition, template_version_id: originalVersionId });
        expect((await env.coder.waitForBuild(b.id)).job.status).toBe('succeeded');
      }
    } finally {
      env.sim.setFaults(undefined);
    }
    const damaged = (await env.coder.workspace(ws(1).id)).latest_build.id;
    const blobs = (await env.blobs.list()).length;
    // An admin rolls the template back to its old version.
    expect((await api(env.sim, 'PATCH', `/templates/${env.sim.template.id}/versions`, { json: { id: originalVersionId } })).status).toBe(200);
    try {
      const handle = await startWorkspaceRecovery(env.t.client, input(1, { approval: { policy: 'none' } }), { taskQueue: env.taskQueue });
      const failure = await workflowFailureOf(handle.result());
      expect(failure.type).toBe(FailureType.refused);
      expect(failure.message).toContain(`(${targetVersionId}) is not the active version of template ${env.sim.template.name} (${originalVersionId} is)`);
      expect((await env.coder.workspace(ws(1).id)).latest_build.id).toBe(damaged);
      expect((await env.blobs.list()).length).toBe(blobs);
    } finally {
      expect((await api(env.sim, 'PATCH', `/templates/${env.sim.template.id}/versions`, { json: { id: targetVersionId } })).status).toBe(200);
    }
  });
});
