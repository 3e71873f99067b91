import { startFleet } from '../../src/client/fleet';
import { startTemplateMigration } from '../../src/client/migrations';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { readTar } from '../../src/adapters/template-tar';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import { failureOf } from '../harness/wait';
import { homePvcName, pushTemplateVersion, startBuild } from '../sim/helpers';
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

describe('migrateFleet zeroTouch', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 5 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('only a pinned start per running workspace, nothing for a stopped one; the report says who migrated itself, who was migrated by the runbook, who still waits', async () => {
    const pvcUids = () => Object.fromEntries(env.sim.workspaces().map((w) => [w.id, env.sim.cluster.pvc('coder', homePvcName(w.id))?.uid]));
    const before = pvcUids();
    const [self, stopped] = env.sim.workspaces();
    await startBuild(env.sim, stopped.id, { transition: 'stop' });
    const template = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    // Its owner restarts it on the (now active) zero-touch version: it migrates itself.
    expect((await startBuild(env.sim, self.id, { transition: 'start', template_version_id: template.versionId })).job.status).toBe('succeeded');
    const statePuts = () => env.sim.requestLog().filter((r) => r.method === 'PUT' && r.path.includes('/state')).length;
    const putsBefore = statePuts();

    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId: template.versionId, zeroTouch: true, canary: 0, concurrency: 2, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.phase).toBe('done');
    const subject = (i: number) => `${env.sim.workspaces()[i].owner}/${env.sim.workspaces()[i].name}`;
    expect(result.zeroTouch).toEqual({
      migratedThemselves: 1,
      migratedByRunbook: expect.arrayContaining([subject(2), subject(3), subject(4)]),
      waitingForBuild: [subject(1)],
    });
    expect(result.zeroTouch!.migratedByRunbook).toHaveLength(3);
    expect(result.summary).toMatchObject({ migrated: 3, failed: 0, needsAttention: 0, restored: 0 });
    expect(result.summary.pvcUidsKept).toBe(3);
    // No state was pushed, no workspace was stopped by the fleet, and every PVC kept its uid.
    expect(statePuts()).toBe(putsBefore);
    expect(pvcUids()).toEqual(before);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    // The stopped one is still unmigrated until its next start.
    const types = (id: string) => (JSON.parse(env.sim.stateOf(id)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_')).map((r) => r.type).sort();
    expect(types(stopped.id)).toEqual(['kubernetes_persistent_volume_claim']);
    expect(types(env.sim.workspaces()[2].id)).toEqual(['kubernetes_deployment_v1', 'kubernetes_persistent_volume_claim_v1']);
    // The old version is still used by the stopped workspace: not archived.
    expect(result.archive?.archived ?? []).toEqual([]);
  });
});

describe('migrateTemplate zeroTouch refusals', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('a name only known after apply: refused naming the resource, nothing pushed, the active version unchanged', async () => {
    const { K8S_TEMPLATE_MAIN_TF } = await import('../../src/sim/template-source');
    const source = K8S_TEMPLATE_MAIN_TF.replace('name      = "coder-${data.coder_workspace.me.id}-home"', 'name      = "coder-${random_id.home.hex}-home"');
    expect(source).not.toBe(K8S_TEMPLATE_MAIN_TF);
    const pushed = await pushTemplateVersion(env.sim, `${source}\nresource "random_id" "home" {\n  byte_length = 4\n}\n`, { promote: true });
    const active = env.sim.template.activeVersionId;
    expect(active).toBe(pushed.id);
    const versionsBefore = (await env.coder.templateVersions(env.sim.template.id)).length;
    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    const failure = await failureOf(handle.result());
    expect(failure).toMatch(/main\.tf:\d+: kubernetes_persistent_volume_claim\.home: its metadata\.name uses random_id\.home/);
    expect(env.sim.template.activeVersionId).toBe(active);
    expect((await env.coder.templateVersions(env.sim.template.id)).length).toBe(versionsBefore);
  });
});
