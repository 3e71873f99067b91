import type { BlobStore } from '../../src/adapters/blob-store';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { buildPostsOf, statePutsOf } from '../harness/coder-requests';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Option A's stop and backup run as one activity (stopAndBackUp). When the backup fails after our
 * stop, the workspace must not be left stopped: the failure names our stop build, and the
 * compensation starts the workspace again on its prior version.
 */
describe('option A: the backup fails after our stop', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, buildLatencyMs: 20 });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
  }, 120_000);
  afterAll(async () => env?.close());

  it('restores: the workspace runs again on its prior version, its PVC kept, and the run says why', async () => {
    const failingPut: BlobStore = { ...env.blobs, put: async () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) };
    // Retries wait a tenth of the production backoff (fixtures/short-retries): the backup's three attempts on a full disk take ~1.5 s, not 15.
    await env.startWorker({ blobs: failingPut, workflowInterceptorModules: [require.resolve('./fixtures/short-retries')] });
    const ws = env.sim.workspaces()[0];
    const before = (await env.coder.workspace(ws.id)).latest_build;
    expect(before.transition).toBe('start');
    const pvcUid = () => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const uidBefore = pvcUid();
    expect(uidBefore).toBeDefined();
    const buildsBefore = buildPostsOf(env.sim, ws.id).length;

    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const message = await failureOf(handle.result());
    expect(message).toMatch(/rolled back/);
    expect(message).toMatch(/disk is full \(ENOSPC\)/);

    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ transition: 'start', template_version_id: before.template_version_id, job: { status: 'succeeded' } });
    // Our stop, then the compensation's start: nothing else, and no bare state write.
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(buildsBefore + 2);
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect(pvcUid()).toBe(uidBefore);
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
    // Still on the deprecated types: nothing migrated was left behind.
    expect(env.sim.stateOf(ws.id)).toContain('"kubernetes_persistent_volume_claim"');
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.phase).toBe('restored');
    expect(status.stepsDone).toEqual(['preflight', 'restore']);
  }, 180_000);
});
