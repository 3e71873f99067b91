import { startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { K8S_TEMPLATE_MAIN_TF, packTar } from '../../src/sim';
import { api, waitForBuild } from '../sim/helpers';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A template pushed with `--var namespace=team-a`: its workspaces' claims live in team-a. Coder
 * gives a version pushed without values the defaults (namespace "coder"), and a claim whose
 * namespace changes is replaced. The migrated version must build where the old one did.
 */
describe('a template whose active version was pushed with variable values', () => {
  let env: MigrationEnv;
  const teamAWorkspaces: { id: string; owner: string; name: string }[] = [];
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
    const file = await env.coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]));
    const teamA = await env.coder.createTemplateVersion(env.sim.orgId, { template_id: env.sim.template.id, file_id: file.hash, user_variable_values: [{ name: 'namespace', value: 'team-a' }] });
    await env.coder.waitForTemplateVersion(teamA.id);
    await env.coder.promoteTemplateVersion(env.sim.template.id, teamA.id);
    // Workspaces created on it: their claims were born in team-a.
    for (const [owner, name] of [['alice', 'ta-1'], ['bob', 'ta-2']] as const) {
      const created = await api<{ id: string; latest_build: { id: string } }>(env.sim, 'POST', `/users/${owner}/workspaces`, { json: { name, template_id: env.sim.template.id } });
      expect(created.status).toBe(201);
      await waitForBuild(env.sim, created.body.latest_build.id);
      teamAWorkspaces.push({ id: created.body.id, owner, name });
    }
  });
  afterAll(async () => env?.close());

  const pvcIn = (namespace: string, i: number) => env.sim.cluster.pvc(namespace, `coder-${teamAWorkspaces[i]!.id}-home`);

  it('is migrated to a version that stores the same values, and each workspace keeps its claim in team-a', async () => {
    const lossesBefore = env.sim.cluster.pvcLosses().length;
    const uids = [0, 1].map((i) => pvcIn('team-a', i)?.uid);
    expect(uids.every(Boolean)).toBe(true);
    const template = await env.migrateTemplate();
    expect(template.outcome).toBe('promoted');
    expect((await env.coder.templateVersionVariables(template.versionId)).find((v) => v.name === 'namespace')?.value).toBe('team-a');
    const input = (i: number): MigrateWorkspaceInput => ({
      owner: teamAWorkspaces[i]!.owner,
      workspace: teamAWorkspaces[i]!.name,
      template: env.sim.template.name,
      targetVersionId: template.versionId,
      approval: { policy: 'none' },
    });
    const result = (await (await startWorkspaceMigration(env.t.client, input(0), { taskQueue: env.taskQueue })).result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(pvcIn('team-a', 0)?.uid).toBe(uids[0]);
    expect(pvcIn('coder', 0)).toBeUndefined();
    expect(env.sim.cluster.pvcLosses().length).toBe(lossesBefore);

    // A version pushed by hand without the values (the defaults) is refused before anything stops.
    const file = await env.coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace(/kubernetes_persistent_volume_claim\b/g, 'kubernetes_persistent_volume_claim_v1').replace(/kubernetes_deployment\b/g, 'kubernetes_deployment_v1') }]));
    const bare = await env.coder.createTemplateVersion(env.sim.orgId, { template_id: env.sim.template.id, file_id: file.hash });
    await env.coder.waitForTemplateVersion(bare.id);
    // And promoted, as 'coder templates push' does: refused for its values, not for being inactive.
    await env.coder.promoteTemplateVersion(env.sim.template.id, bare.id);
    const buildsBefore = (await env.coder.workspace(teamAWorkspaces[1]!.id)).latest_build.build_number;
    const refused = await failureOf((await startWorkspaceMigration(env.t.client, { ...input(1), targetVersionId: bare.id }, { taskQueue: env.taskQueue })).result());
    expect(refused).toContain("namespace: 'team-a' → 'coder'");
    expect((await env.coder.workspace(teamAWorkspaces[1]!.id)).latest_build.build_number).toBe(buildsBefore);
    expect(pvcIn('team-a', 1)?.uid).toBe(uids[1]);
  });
});
