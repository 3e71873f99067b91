import { isWrite } from '../harness/coder-requests';
import { fleetStatus, startFleet } from '../../src/client/fleet';
import { startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { K8S_TEMPLATE_MAIN_TF, packTar } from '../../src/sim';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

// The seeded template plus a module from git, holding (in real life) a deprecated PVC we cannot see.
const GIT_MODULE = '\nmodule "cache" {\n  source = "git::https://ci:hunter2-token@git.example.com/infra/cache-volume.git?ref=v3"\n}\n';

/** Pushes `main.tf` as a new version of the sim's template and makes it active. */
async function activate(env: MigrationEnv, mainTf: string, name: string): Promise<string> {
  const file = await env.coder.uploadFile(await packTar([{ name: 'main.tf', content: mainTf }]));
  const template = await env.coder.template(env.sim.template.id);
  const version = await env.coder.waitForTemplateVersion(
    (await env.coder.createTemplateVersion(template.organization_id, { template_id: template.id, file_id: file.hash, name })).id,
  );
  expect(version.job.status).toBe('succeeded');
  await env.coder.promoteTemplateVersion(template.id, version.id);
  return version.id;
}

/** Adds `module.cache.kubernetes_persistent_volume_claim.data`, as a build of the git module would have left it. */
async function addModulePvc(env: MigrationEnv, i: number) {
  const ws = env.sim.workspaces()[i];
  const state = JSON.parse(env.sim.stateOf(ws.id));
  state.resources.push({
    module: 'module.cache',
    mode: 'managed',
    type: 'kubernetes_persistent_volume_claim',
    name: 'data',
    provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
    instances: [{ schema_version: 0, attributes: { id: 'coder/cache-data', metadata: [{ name: 'cache-data', uid: 'uid-cache-1' }] }, sensitive_attributes: [] }],
  });
  state.serial += 1;
  await env.coder.putWorkspaceBuildState((await env.coder.workspace(ws.id)).latest_build.id, Buffer.from(JSON.stringify(state)));
  return ws;
}

describe('templates calling a module whose code is not in the template', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
    await activate(env, `${K8S_TEMPLATE_MAIN_TF}${GIT_MODULE}`, 'with-git-module');
  });
  afterAll(async () => env?.close());

  it('strict modules: migrateTemplate refuses before pushing anything, naming the module and its source without the token', async () => {
    const before = env.sim.requestLog().length;
    const msg = await failureOf(
      (await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, allowRemoteModules: false, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(msg).toContain('module.cache (main.tf:');
    expect(msg).toContain('source = "git::https://***@git.example.com/infra/cache-volume.git?ref=v3"');
    expect(msg).toContain('vendor it into the template');
    expect(msg).toContain('Nothing was pushed');
    expect(msg).not.toContain('hunter2');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });

  it('strict modules: a fleet that migrates the template first fails with the same refusal and touches no workspace', async () => {
    const before = env.sim.requestLog().length;
    const handle = await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, allowRemoteModules: false, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    const msg = await failureOf(handle.result());
    expect(msg).toMatch(/^template migration failed, no workspace was touched: .*module\.cache \(main\.tf:\d+, source = "git::https:\/\/\*\*\*@git\.example\.com/);
    // A failed fleet says so where people search for it, and `fleet status` gives the reason.
    expect((await handle.describe()).searchAttributes.WsmigratePhase).toEqual(['failed']);
    const shown = await fleetStatus(env.t.client, handle.workflowId);
    expect(shown).toMatchObject({ phase: 'failed', error: expect.stringMatching(/^template migration failed, no workspace was touched: .*module\.cache/) });
    expect(msg).not.toContain('hunter2');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });

  it('by default the template goes on; a workspace holding a deprecated PVC inside the module is refused and its state never pushed, one without migrates', async () => {
    const t = (await (
      await startTemplateMigration(
        env.t.client,
        { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      )
    ).result()) as TemplateMigrationResult;
    expect(t.outcome).toBe('promoted');

    const risky = await addModulePvc(env, 0);
    const stateBefore = env.sim.stateOf(risky.id);
    const before = env.sim.requestLog().length;
    const msg = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: risky.owner, workspace: risky.name, template: env.sim.template.name, targetVersionId: t.versionId, option: 'B', approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(msg).toContain('module.cache.kubernetes_persistent_volume_claim.data');
    expect(msg).toContain('from a source outside the template');
    expect(msg).toContain('Nothing was pushed');
    expect(env.sim.requestLog().slice(before).filter((r) => r.method === 'PUT' && /\/state$/.test(r.path))).toEqual([]);
    expect(env.sim.stateOf(risky.id)).toBe(stateBefore);

    const plain = env.sim.workspaces()[1];
    const ok = await (
      await startWorkspaceMigration(env.t.client, { owner: plain.owner, workspace: plain.name, template: env.sim.template.name, targetVersionId: t.versionId, option: 'B', approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result();
    expect(ok).toMatchObject({ outcome: 'migrated' });
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
