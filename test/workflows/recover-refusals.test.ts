import { startWorkspaceRecovery } from '../../src/client/recovery';
import { WsmigratePhase } from '../../src/contracts/search-attributes';
import { FailureType } from '../../src/domain/failure-types';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { homePvcName } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';


/**
 * `wsmigrate recover` only repairs a damaged workspace: one that its owner starts building between
 * the recovery's preflight and its health check (busy) is refused saying so (exit 3), never taken for
 * damaged: nothing backed up or built, and its run does not end needs-attention (which a later fleet
 * would hold for a human).
 */
describe('wsmigrate recover of a workspace that is not damaged', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const afterPreflight = new Map<string, () => Promise<void>>();
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, provisioners: 1 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightWorkspace: async (i, reads) => {
          const r = await acts.preflightWorkspace(i, reads);
          const then = afterPreflight.get(i.workspace);
          afterPreflight.delete(i.workspace);
          await then?.();
          return r;
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const daemonsOffline = (offline: boolean) => {
    for (const d of env.sim.provisionerDaemons()) env.sim.setDaemonOffline(d.name, offline);
  };

  it("busy with its owner's stop by the time its health is read: refused (exit 3), naming the build; nothing backed up or built, not needs-attention", async () => {
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const blobs = (await env.blobs.list()).length;
    let owners: { id: string; build_number: number } | undefined;
    afterPreflight.set(ws.name, async () => {
      daemonsOffline(true);
      const r = await fetch(`${env.sim.url}/api/v2/workspaces/${ws.id}/builds`, {
        method: 'POST',
        headers: { 'Coder-Session-Token': env.sim.tokenOf(ws.owner), 'Content-Type': 'application/json' },
        body: JSON.stringify({ transition: 'stop' }),
      });
      owners = (await r.json()) as { id: string; build_number: number };
    });
    try {
      const handle = await startWorkspaceRecovery(
        env.t.client,
        { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      );
      const failure = await workflowFailureOf(handle.result());
      expect(failure.type).toBe(FailureType.refused);
      expect(failure.message).toBe(`recover refused for ${subject}: it is busy (build #${owners!.build_number} (stop) is pending), not damaged; nothing was changed`);
      expect((await handle.describe()).typedSearchAttributes.get(WsmigratePhase)).not.toBe('needs-attention');
      expect((await env.blobs.list()).length).toBe(blobs);
      expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ id: owners!.id, job: { status: 'pending' } });
    } finally {
      daemonsOffline(false);
    }
    await waitFor(async () => (await env.coder.workspace(ws.id)).latest_build.job.status === 'succeeded', 30_000);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
