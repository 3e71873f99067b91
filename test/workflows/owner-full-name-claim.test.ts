import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

const CLAIM_NAME = 'name      = "coder-${data.coder_workspace.me.id}-home"';
// As public templates name it since the provider deprecated `owner`: the owner's full name, lower-cased (and its
// blanks made dashes: Kubernetes refuses a name with a blank, and the provider checks it while Terraform plans).
const BY_OWNER_NAME = K8S_TEMPLATE_MAIN_TF.replace(CLAIM_NAME, 'name      = "coder-${replace(lower(data.coder_workspace.me.owner_name), " ", "-")}-home"');

/**
 * A template that names the home claim after data.coder_workspace.me.owner_name. Coder fills that
 * with the owner's full name (coderd/provisionerdserver WorkspaceOwnerName = owner.Name), "default"
 * when empty, while the API's workspace owner_name is the username: alice's claim is
 * "coder-alice-liddell-home". The preflight cannot know the full name, so it must not compare it
 * with the username and refuse a rename the version never makes.
 */
describe('a template whose home claim is named after coder_workspace.owner_name (the full name)', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    expect(BY_OWNER_NAME).not.toBe(K8S_TEMPLATE_MAIN_TF);
    env = await createMigrationEnv({ workspaces: 1, templateFiles: [{ name: 'main.tf', content: BY_OWNER_NAME }] });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('is migrated, not refused, and the claim keeps its uid', async () => {
    const ws = env.sim.workspaces()[0]!;
    expect(ws.owner).toBe('alice');
    const claim = env.sim.cluster.pvc('coder', 'coder-alice-liddell-home');
    expect(claim).toBeDefined();
    const template = await env.migrateTemplate();
    expect(template.outcome).toBe('promoted');

    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: template.versionId, approval: { policy: 'none' as const } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', 'coder-alice-liddell-home')?.uid).toBe(claim?.uid);
    expect(env.sim.cluster.pvc('coder', 'coder-alice-home')).toBeUndefined();
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build.template_version_id).toBe(template.versionId);
    expect(env.sim.stateOf(ws.id)).toContain('"kubernetes_persistent_volume_claim_v1"');
  });
});
