import { startTemplateMigration } from '../../src/client/migrations';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import type { ZeroTouchWorkspaceResult } from '../../src/contracts/zero-touch-workspace';
import { isWrite } from '../harness/coder-requests';
import { homePvcName } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A zero-touch dry run changes nothing: a running workspace on its old version, which a real run
 * backs up and starts pinned to the zero-touch version, is only reported as waiting for that start.
 * No backup, no build, no write to Coder; its PVC the same.
 */
describe('zeroTouchWorkspace dry run', () => {
  let env: MigrationEnv;
  let versionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
    versionId = (
      (await (
        await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
      ).result()) as TemplateMigrationResult
    ).versionId;
  });
  afterAll(async () => env?.close());

  it('reports a running workspace as waiting for its pinned start and runs none: no backup, no build, no write', async () => {
    const ws = env.sim.workspaces()[0];
    const before = (await env.coder.workspace(ws.id)).latest_build;
    expect(before).toMatchObject({ transition: 'start', job: { status: 'succeeded' } });
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const requests = env.sim.requestLog().length;
    const blobs = (await env.blobs.list()).length;
    const handle = await env.t.client.workflow.start('zeroTouchWorkspace', {
      taskQueue: env.taskQueue,
      workflowId: `zero-touch-dry-run/${ws.id}`,
      args: [{ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, dryRun: true, approval: { policy: 'none' } }],
    });
    const result = (await handle.result()) as ZeroTouchWorkspaceResult;
    expect(result).toMatchObject({ outcome: 'waiting-for-build', workspaceId: ws.id });
    expect(result.warnings).toContain('dry run: the pinned start was not run');
    expect(env.sim.requestLog().slice(requests).filter(isWrite)).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(before.id);
    expect((await env.blobs.list()).length).toBe(blobs);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});
