import { CoderClient } from '../../src/adapters/coder';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * An owner deletes their workspace in the moment wsmigrate sends option A's stop: Coder answers 409
 * (their delete is active). Coder before 2.28 would then take a stop on the deleted workspace and
 * provision it again, an empty home claim nobody sees (coderd/workspacebuilds.go, PR #20584); from 2.28
 * it answers 409 and a run that waited for the delete ended needing attention over a 410. Either way the
 * run must build nothing after the delete and say the workspace was deleted.
 */
describe.each(['v2.27.9', 'v2.31.7'])('a workspace its owner deletes while wsmigrate stops it (Coder %s)', (version) => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, buildLatencyMs: 20, version });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
  }, 120_000);
  afterAll(async () => env?.close());

  const claimOf = (workspaceId: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(workspaceId));

  it('the run is refused naming the delete, nothing is built after it, its claim stays gone; the other workspace migrates with its claim kept', async () => {
    const [gone, kept] = env.sim.workspaces().filter((w) => !w.name.startsWith('api-'));
    const keptUid = claimOf(kept.id)?.uid;
    expect(claimOf(gone.id)).toBeDefined();
    let raced = false;
    const racingFetch: typeof fetch = async (url, init) => {
      if (!raced && init?.method === 'POST' && String(url).endsWith(`/workspaces/${gone.id}/builds`)) {
        raced = true;
        // The owner presses Delete a moment before wsmigrate's stop arrives.
        await new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(gone.owner) }).createWorkspaceBuild(gone.id, { transition: 'delete' });
      }
      return fetch(url, init);
    };
    const worker = await env.startWorker({ coder: new CoderClient({ url: env.sim.url, token: env.sim.token, fetchImpl: racingFetch, retry: { baseDelayMs: 20, maxDelayMs: 200 } }) });
    const input = (ws: { owner: string; name: string }) => ({ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A' as const, approval: { policy: 'none' as const } });

    const deleted = await startWorkspaceMigration(env.t.client, input(gone), { taskQueue: env.taskQueue });
    const message = await failureOf(deleted.result());
    expect(raced).toBe(true);
    const builds = await env.coder.workspaceBuilds(gone.id, { limit: 10 });
    expect(builds.map((b) => [b.build_number, b.transition, b.job.status, b.initiator_name])).toEqual([
      [2, 'delete', 'succeeded', gone.owner],
      [1, 'start', 'succeeded', expect.any(String)],
    ]);
    expect(claimOf(gone.id)).toBeUndefined();
    expect(message).toMatch(new RegExp(`^preflight refused for ${gone.owner}/${gone.name}: the workspace was deleted \\(build #2, delete by ${gone.owner}, succeeded\\); nothing to migrate, nothing was built$`));
    const status = (await migrationStatus(env.t.client, deleted.workflowId)) as WorkspaceMigrationStatus;
    expect(status.phase).not.toBe('needs-attention');

    const other = (await (await startWorkspaceMigration(env.t.client, input(kept), { taskQueue: env.taskQueue })).result()) as WorkspaceMigrationResult;
    expect(other.outcome).toBe('migrated');
    expect(claimOf(kept.id)?.uid).toBe(keptUid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    await worker.stop();
  }, 180_000);

  it('deleted to the end between the preflight and the stop: refused the same way, not left needing attention', async () => {
    const gone = env.sim.workspaces().find((w) => w.name.startsWith('api-'))!;
    const worker = await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          const r = await acts.preflightAndAssess(i);
          if (i.workspace === gone.name && r.health.health !== 'busy') {
            // Its owner deletes it right after wsmigrate read it, and the delete runs to its end.
            const owner = new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(gone.owner) });
            await owner.waitForBuild((await owner.createWorkspaceBuild(gone.id, { transition: 'delete' })).id);
          }
          return r;
        },
      }),
    });
    try {
      const handle = await startWorkspaceMigration(env.t.client, { owner: gone.owner, workspace: gone.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
      const message = await failureOf(handle.result());
      const builds = await env.coder.workspaceBuilds(gone.id, { limit: 10 });
      expect(builds.map((b) => [b.build_number, b.transition, b.job.status])).toEqual([
        [2, 'delete', 'succeeded'],
        [1, 'start', 'succeeded'],
      ]);
      expect(claimOf(gone.id)).toBeUndefined();
      expect(message).toMatch(new RegExp(`^preflight refused for ${gone.owner}/${gone.name}: the workspace was deleted \\(build #2, delete by ${gone.owner}, succeeded\\); nothing to migrate, nothing was built$`));
      expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).phase).not.toBe('needs-attention');
    } finally {
      await worker.stop();
    }
  }, 180_000);
});
