import { isWrite } from '../harness/coder-requests';
import { migrationStatus, startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { readTar } from '../../src/adapters/template-tar';
import type { TemplateMigrationResult, TemplateMigrationStatus } from '../../src/contracts/migrate-template';
import { waitFor, failureOf } from '../harness/wait';
import { createMigratedEnv, createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';


describe('migrateTemplate', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('stops before promoting when asked, then a second run with approval promotes the same version (no duplicate)', async () => {
    const original = env.sim.template.activeVersionId;
    const first = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, stopBeforePromote: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    expect(first.outcome).toBe('pushed');
    expect(env.sim.template.activeVersionId).toBe(original);

    const version = await env.coder.templateVersion(first.versionId);
    const files = await readTar(await env.coder.downloadFile(version.job.file_id));
    const main = files.find((f) => f.path === 'main.tf')!.bytes.toString();
    expect(main).toMatch(/resource "kubernetes_persistent_volume_claim_v1" "home"/);
    expect(main).toMatch(/resource "kubernetes_deployment_v1" "main"/);
    expect(main).not.toMatch(/"kubernetes_deployment" "main"/);
    const guards = files.find((f) => f.path === 'wsmigrate_guards.tf')!.bytes.toString();
    expect(guards).toMatch(/removed\s*\{\s*from\s*=\s*kubernetes_persistent_volume_claim\.home\s*lifecycle\s*\{\s*destroy\s*=\s*false/);
    expect(first.report.guards).toEqual(['kubernetes_persistent_volume_claim.home']);

    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'destructive', approvers: ['alice'] } }, { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as TemplateMigrationStatus).pendingApproval?.gateId === 'template-promote');
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice' });
    const second = (await handle.result()) as TemplateMigrationResult;
    expect(second).toMatchObject({ outcome: 'promoted', versionId: first.versionId });
    expect(env.sim.template.activeVersionId).toBe(first.versionId);
    const versions = await env.coder.templateVersions(env.sim.template.id);
    expect(versions.filter((v) => v.name === first.versionName)).toHaveLength(1);
  });

});

describe('an already-migrated template', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('reports nothing to do on a second run', async () => {
    expect((await env.migrateTemplate()).outcome).toBe('promoted');
    const before = env.sim.requestLog().length;
    const r = (await (await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result()) as TemplateMigrationResult;
    expect(r.outcome).toBe('unchanged');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });
});

describe('workspace refusals on a migrated template', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 2 }));
  });
  afterAll(async () => env?.close());

  /** Puts a kubernetes_ingress (a DIFFERENT pair: its _v1 twin is another implementation) into a workspace's state. */
  async function injectIngress(i: number) {
    const ws = env.sim.workspaces()[i];
    const state = JSON.parse(env.sim.stateOf(ws.id));
    state.resources.push({
      mode: 'managed',
      type: 'kubernetes_ingress',
      name: 'web',
      provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
      instances: [{ schema_version: 1, attributes: { id: 'coder/web' }, sensitive_attributes: [] }],
    });
    state.serial += 1;
    await env.coder.putWorkspaceBuildState((await env.coder.workspace(ws.id)).latest_build.id, Buffer.from(JSON.stringify(state)));
    return ws;
  }

  it('refuses a workspace whose state holds a DIFFERENT type, naming it, before changing anything', async () => {
    const ws = await injectIngress(0);
    const before = env.sim.requestLog().length;
    const msg = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(msg).toMatch(/kubernetes_ingress\.web is a type whose _v1 twin is another implementation/);
    expect(msg).toMatch(/strategy "import"/);
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });

  it('refuses the import strategy clearly when the worker has no importer configured', async () => {
    const ws = await injectIngress(1);
    const msg = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, strategy: 'import', option: 'B', approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(msg).toMatch(/kubernetes_ingress\.web need terraform import, but this worker has no importer configured/);
    expect(msg).toMatch(/rolled back/);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});

describe('a Coder without PUT …/state (2.27.3)', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, version: 'v2.27.3+abc1234' });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('migrates: the state travels inside the pinned build, so no version floor within 2.x', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const before = env.sim.requestLog().length;
    const result = await (
      await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result();
    expect(result).toMatchObject({ outcome: 'migrated' });
    const writes = env.sim.requestLog().slice(before).filter(isWrite);
    expect(writes.filter((r) => r.method === 'PUT')).toEqual([]);
    expect(writes.filter((r) => r.method === 'POST' && r.path.endsWith(`/workspaces/${ws.id}/builds`))).toHaveLength(1);
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
