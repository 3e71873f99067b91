import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { scanFleet } from '../../src/client/fleet-scan';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';
import { workflowFailureOf } from '../harness/wait';

/**
 * Builds of ours that do not succeed. Option A's own stop fails (a flaky provisioner): the compensation knows that failed build for its
 * own and starts the workspace again on its version, so "restored" is true by Coder's record (found
 * by the fault storm: the failed stop was taken for someone else's build and left, the workspace
 * reported restored while Coder showed it failed and stopped).
 */
describe('our own build failing or canceled', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3, buildLatencyMs: 400 }));
  });
  afterAll(async () => env?.close());

  it('option A\'s stop fails: ends restored, the workspace running again on its version, its PVC uid kept, healthy by the scan', async () => {
    const ws = env.sim.workspaces()[0];
    const originalVersionId = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    const before = (await env.coder.workspace(ws.id)).latest_build;
    expect(before).toMatchObject({ transition: 'start', status: 'running' });
    const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'stop', times: 1 } });
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    const cause = await workflowFailureOf(handle.result());
    env.sim.setFaults(undefined);
    expect(cause.type).toBe('WsmigrateRolledBack');
    expect(cause.message).toMatch(/stop build #\d+ of .* ended failed: simulated provisioner failure/);

    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 5 });
    // Newest first: our restore (a start on the original version) on top of our failed stop.
    expect(builds.slice(0, 2).map((b) => [b.build_number, b.transition, b.job.status])).toEqual([
      [before.build_number + 2, 'start', 'succeeded'],
      [before.build_number + 1, 'stop', 'failed'],
    ]);
    expect(builds[0].template_version_id).toBe(originalVersionId);
    expect((await env.coder.workspace(ws.id)).latest_build.status).toBe('running');
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(pvcUid);
    const scan = await scanFleet(env.coder, { template: env.sim.template.name });
    expect(scan.workspaces.find((w) => w.id === ws.id)?.health).toBe('unmigrated');
  });

  it('someone cancels the build that carries the migrated state (PATCH …/cancel): restored on its version, PVC uid kept, never called migrated', async () => {
    const ws = env.sim.workspaces()[1];
    const originalVersionId = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    // As an Owner in the dashboard would: cancel our build on the new version while it runs.
    let canceled: string | undefined;
    const deadline = Date.now() + 60_000;
    while (!canceled) {
      if (Date.now() > deadline) throw new Error('the migrated-state build never appeared');
      const latest = (await env.coder.workspace(ws.id)).latest_build;
      if (latest.template_version_id === targetVersionId && ['pending', 'running'].includes(latest.job.status)) {
        const res = await fetch(`${env.sim.url}/api/v2/workspacebuilds/${latest.id}/cancel`, { method: 'PATCH', headers: { 'Coder-Session-Token': env.sim.token } });
        expect(res.status).toBe(200);
        canceled = latest.id;
      } else await new Promise((r) => setTimeout(r, 20));
    }
    const cause = await workflowFailureOf(handle.result());
    expect(cause.type).toBe('WsmigrateRolledBack');
    expect(cause.message).toMatch(/ended canceled: its job was canceled in Coder/);
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ transition: 'start', template_version_id: originalVersionId, status: 'running' });
    expect((await env.coder.workspaceBuild(canceled)).job.status).toBe('canceled');
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(pvcUid);
    const scan = await scanFleet(env.coder, { template: env.sim.template.name });
    expect(scan.workspaces.find((w) => w.id === ws.id)?.health).toBe('unmigrated');
  });

  it("someone cancels the migration (temporal workflow cancel) while option A's start on the new version runs: restored and running on its version, PVC uid kept, and it says it was cancelled", async () => {
    const ws = env.sim.workspaces()[2];
    const originalVersionId = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('the migrated-state build never appeared');
      const latest = (await env.coder.workspace(ws.id)).latest_build;
      if (latest.template_version_id === targetVersionId && latest.transition === 'start') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    // The backup is our stop's state: the start that carried the migrated state is stopped on its version first, else the restore start fails (AlreadyExists).
    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 3 });
    expect(builds.map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['start', originalVersionId, 'succeeded'],
      ['stop', targetVersionId, 'succeeded'],
      ['start', targetVersionId, 'succeeded'],
    ]);
    expect((await env.coder.workspace(ws.id)).latest_build.status).toBe('running');
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(pvcUid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status).toMatchObject({ phase: 'restored', error: 'the migration was cancelled (a cancel request to its workflow)' });
    const scan = await scanFleet(env.coder, { template: env.sim.template.name });
    expect(scan.workspaces.find((w) => w.id === ws.id)?.health).toBe('unmigrated');
  });
});
