import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceBuild } from '../../src/adapters/coder';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { workflowFailureOf } from '../harness/wait';
import { homePvcName } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Option A, end to end on the simulator: someone presses Cancel in Coder on the start that carries
 * the migrated state (on the _v1 version). The run ends restored, the workspace running on its old
 * version, its PVC the one it had, and no build on the old version ever holds a _v1 type. Whether
 * that start is stopped on its version first depends on whether it ran (restore-by-build.ts
 * mayHaveApplied).
 */
describe('option A: our start on the _v1 version canceled in Coder', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let originalVersionId: string;
  beforeAll(async () => {
    // One daemon, so a test can keep our start pending; builds slow enough to cancel one while it runs.
    ({ env, targetVersionId, originalVersionId } = await createMigratedEnv({ workspaces: 2, buildLatencyMs: 400, provisioners: 1 }));
  });
  afterAll(async () => {
    env?.sim.setDaemonOffline('sim-provisioner-1', false);
    await env?.close();
  });

  const ws = (i: number) => env.sim.workspaces()[i];
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(ws(i).id))?.uid;
  const input = (i: number): MigrateWorkspaceInput => ({ owner: ws(i).owner, workspace: ws(i).name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } });
  const cancelInCoder = async (buildId: string) => {
    const res = await fetch(`${env.sim.url}/api/v2/workspacebuilds/${buildId}/cancel`, { method: 'PATCH', headers: { 'Coder-Session-Token': env.sim.token } });
    expect(res.status).toBe(200);
  };
  async function latestWhen(i: number, what: string, ok: (b: WorkspaceBuild) => boolean): Promise<WorkspaceBuild> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const latest = (await env.coder.workspace(ws(i).id)).latest_build;
      if (ok(latest)) return latest;
      if (Date.now() > deadline) throw new Error(`${what} never came; latest: #${latest.build_number} ${latest.transition} ${latest.job.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  async function expectRestored(i: number, handle: { workflowId: string; result(): Promise<unknown> }, uid: string | undefined) {
    const cause = await workflowFailureOf(handle.result());
    expect(cause.type).toBe('WsmigrateRolledBack');
    expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).phase).toBe('restored');
    expect((await env.coder.workspace(ws(i).id)).latest_build).toMatchObject({ transition: 'start', template_version_id: originalVersionId, status: 'running' });
    expect(pvcUid(i)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    const builds = await env.coder.workspaceBuilds(ws(i).id, { limit: 20 });
    for (const b of builds.filter((x) => x.template_version_id === originalVersionId)) {
      expect([b.build_number, (await env.coder.getWorkspaceBuildState(b.id)).toString('utf8').includes('_v1"')]).toEqual([b.build_number, false]);
    }
    return builds;
  }

  it('canceled while pending (no daemon took it): never ran, so nothing is stopped; the backup is started on the old version, PVC uid kept', async () => {
    const i = 0;
    const uid = pvcUid(i);
    const handle = await startWorkspaceMigration(env.t.client, input(i), { taskQueue: env.taskQueue });
    // Our stop running on the one daemon: once it ends, the daemon takes nothing more, so our start stays pending.
    await latestWhen(i, 'our stop running', (b) => b.transition === 'stop' && b.job.status === 'running');
    env.sim.setDaemonOffline('sim-provisioner-1');
    const start = await latestWhen(i, 'our start, pending', (b) => b.transition === 'start' && b.template_version_id === targetVersionId);
    expect(start.job.status).toBe('pending');
    await cancelInCoder(start.id);
    env.sim.setDaemonOffline('sim-provisioner-1', false);
    const builds = await expectRestored(i, handle, uid);
    expect(builds.slice(0, 3).map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['start', originalVersionId, 'succeeded'],
      ['start', targetVersionId, 'canceled'],
      ['stop', originalVersionId, 'succeeded'],
    ]);
    expect(builds[1].job.started_at ?? undefined).toBeUndefined();
  });

  it('canceled while running, after it created the deployment: stopped on its version first, then the backup started on the old version, PVC uid kept', async () => {
    const i = 1;
    const uid = pvcUid(i);
    const handle = await startWorkspaceMigration(env.t.client, input(i), { taskQueue: env.taskQueue });
    const start = await latestWhen(i, 'our start, running', (b) => b.transition === 'start' && b.template_version_id === targetVersionId && b.job.status === 'running');
    await cancelInCoder(start.id);
    const builds = await expectRestored(i, handle, uid);
    expect(builds.slice(0, 4).map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['start', originalVersionId, 'succeeded'],
      ['stop', targetVersionId, 'succeeded'],
      ['start', targetVersionId, 'canceled'],
      ['stop', originalVersionId, 'succeeded'],
    ]);
    // The canceled start's apply finished (CompleteJob after the cancel): its state holds the deployment it created.
    expect((await env.coder.getWorkspaceBuildState(builds[2].id)).toString('utf8')).toContain('"kubernetes_deployment_v1"');
  });
});
