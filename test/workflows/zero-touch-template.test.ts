import { startTemplateMigration } from '../../src/client/migrations';
import { readTar } from '../../src/adapters/template-tar';
import type { TemplateMigrationResult } from '../../src/workflows/migrate-template';
import { homePvcName, startBuild } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

describe('migrateTemplate zeroTouch', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('pushes and promotes a version with the zero-touch blocks; a plain start pinned to it migrates a workspace with the same PVC uid, no state push', async () => {
    const result = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    expect(result.outcome).toBe('promoted');
    expect(result.report.zeroTouch).toEqual([
      { from: 'kubernetes_persistent_volume_claim.home', to: 'kubernetes_persistent_volume_claim_v1.home' },
      { from: 'kubernetes_deployment.main', to: 'kubernetes_deployment_v1.main[0]' },
    ]);
    expect(result.report.guards).toEqual([]);
    const version = await env.coder.templateVersion(result.versionId);
    const files = await readTar(await env.coder.downloadFile(version.job.file_id));
    expect(files.map((f) => f.path).sort()).toEqual(['main.tf', 'wsmigrate_zero_touch.tf']);
    expect(files.find((f) => f.path === 'wsmigrate_zero_touch.tf')!.bytes.toString()).toMatch(/import \{\n {2}for_each = data\.coder_workspace\.me\.start_count > 0 && length\(/);

    const ws = env.sim.workspaces()[0];
    const pvcBefore = env.sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    const putsBefore = env.sim.requestLog().filter((r) => r.method === 'PUT' && r.path.includes('/state')).length;
    const build = await startBuild(env.sim, ws.id, { transition: 'start', template_version_id: result.versionId });
    expect(build.job.status).toBe('succeeded');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))!.uid).toBe(pvcBefore);
    const types = (JSON.parse(env.sim.stateOf(ws.id)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed').map((r) => r.type).filter((t) => t.startsWith('kubernetes_')).sort();
    expect(types).toEqual(['kubernetes_deployment_v1', 'kubernetes_persistent_volume_claim_v1']);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(env.sim.requestLog().filter((r) => r.method === 'PUT' && r.path.includes('/state')).length).toBe(putsBefore);
  });
});
