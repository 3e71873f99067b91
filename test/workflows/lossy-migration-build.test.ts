import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { homePvcName } from '../sim/helpers';
import { workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The build that carries the migrated state replaces the home PVC without a delete in its log (the
 * simulator's lossyBuild fault): only the post-build check sees the new uid. As with a delete the
 * log shows, the data is gone from the cluster: the run ends needs-attention at once, and builds no
 * restore of the old state, which could not bring the object back.
 */
describe('the migrated-state build replaces the PVC silently', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  it('ends needs-attention naming the PVC and both uids, with nothing built after that build', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    env.sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws.id, transition: 'start', times: 1 } });
    try {
      const handle = await startWorkspaceMigration(
        env.t.client,
        { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      );
      const failure = await workflowFailureOf(handle.result());
      const now = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
      expect(now).not.toBe(uid);
      expect(failure.type).toBe('WsmigrateNeedsAttention');
      expect(failure.message).toMatch(
        new RegExp(`start build #\\d+ destroyed protected kubernetes_persistent_volume_claim\\.home \\(replaced: uid ${uid} -> ${now}\\)\\. Its data is gone from the cluster: restore it from your storage backups`),
      );
      expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).phase).toBe('needs-attention');
      // No restore build of the old state on top of it.
      expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    } finally {
      env.sim.setFaults(undefined);
    }
  });
});
