import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { packTar } from '../../src/sim';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { SIZED_HOME_TEMPLATE_MAIN_TF } from '../sim/helpers';

const OLD = SIZED_HOME_TEMPLATE_MAIN_TF;

/**
 * Workspaces created with a 20 Gi home on a template whose claim size is a coder_parameter (default
 * 10). Coder carries each build's values to the next (coderd/wsbuilder); the migration gives none of
 * its own, so the migrated workspace keeps 20 and its claim.
 */
describe('a template whose claim size is a workspace parameter', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }] });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  const input = (i: number, targetVersionId: string) => ({
    owner: env.sim.workspaces()[i]!.owner,
    workspace: env.sim.workspaces()[i]!.name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'none' as const },
  });
  const storageOf = (i: number) => /"storage": ?"(\d+Gi)"/.exec(env.sim.stateOf(env.sim.workspaces()[i]!.id))?.[1];

  it('is migrated keeping each workspace its 20 Gi claim; a hand-pushed target that requires a new parameter is refused before anything stops', async () => {
    const ws = env.sim.workspaces()[0]!;
    const uid = env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid;
    expect(storageOf(0)).toBe('20Gi');
    const template = await env.migrateTemplate();
    expect(template.outcome).toBe('promoted');
    const result = (await (await startWorkspaceMigration(env.t.client, input(0, template.versionId), { taskQueue: env.taskQueue })).result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(uid);
    expect(storageOf(0)).toBe('20Gi');
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest.template_version_id).toBe(template.versionId);
    expect(await env.coder.workspaceBuildParameters(latest.id)).toEqual([{ name: 'home_disk_size', value: '20' }]);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);

    const required = rewriteTemplate([{ path: 'main.tf', content: `${OLD}\ndata "coder_parameter" "quota" {\n  name = "quota"\n  type = "number"\n}\n` }], {}).files[0]!.content;
    const file = await env.coder.uploadFile(await packTar([{ name: 'main.tf', content: required }]));
    const bare = await env.coder.createTemplateVersion(env.sim.orgId, { template_id: env.sim.template.id, file_id: file.hash });
    await env.coder.waitForTemplateVersion(bare.id);
    // And promoted, as 'coder templates push' does: refused for its parameters, not for being inactive.
    await env.coder.promoteTemplateVersion(env.sim.template.id, bare.id);
    const other = env.sim.workspaces()[1]!;
    const before = (await env.coder.workspace(other.id)).latest_build.build_number;
    const refused = await failureOf((await startWorkspaceMigration(env.t.client, input(1, bare.id), { taskQueue: env.taskQueue })).result());
    expect(refused).toContain("'quota' is required and the last build has no value for it");
    expect((await env.coder.workspace(other.id)).latest_build.build_number).toBe(before);
  });
});
