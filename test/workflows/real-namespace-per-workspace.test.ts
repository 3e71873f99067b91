import { KubeClient, readKubeconfig } from '../../src/adapters/kube';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { describeRealStack } from '../harness/real-stack';
import { fixtureSource } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(900_000);

/**
 * A public-template shape on the real stack (real Terraform, hashicorp/kubernetes, coder/coder, a
 * kube-apiserver): one namespace per workspace holding its claim, service account, role binding and
 * pod. The migration renames all five in the state and builds once on the _v1 version: nothing is
 * destroyed, the namespace and the claim keep their uids in the API server.
 */
describeRealStack('namespace per workspace, migrated with real Terraform', () => {
  let env: MigrationEnv;
  let kube: KubeClient;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, provisioner: 'terraform', templateFiles: [{ name: 'main.tf', content: fixtureSource('template-namespace-per-workspace') }] });
    kube = new KubeClient(await readKubeconfig(env.sim.provisioner.kubeconfig ?? ''));
    await env.startWorker();
    const template = await env.migrateTemplate();
    expect(template.report?.guards).toEqual(['kubernetes_namespace.ws', 'kubernetes_persistent_volume_claim.data']);
    targetVersionId = template.versionId;
  });
  afterAll(async () => env?.close());

  const uids = async (id: string) => ({
    namespace: (await kube.get('Namespace', '', `ws-${id}`))?.uid,
    claim: (await kube.get('PersistentVolumeClaim', `ws-${id}`, 'data'))?.uid,
  });
  const managedTypes = (id: string) =>
    (JSON.parse(env.sim.stateOf(id)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed' && r.type.startsWith('kubernetes_')).map((r) => r.type).sort();

  it.each([['A', 0], ['B', 1]] as const)('option %s: migrated, every kubernetes type _v1 in the state, namespace and claim uids unchanged', async (option, i) => {
    const ws = env.sim.workspaces()[i]!;
    const before = await uids(ws.id);
    expect(before.namespace).toBeDefined();
    expect(before.claim).toBeDefined();
    const result = (await (
      await startWorkspaceMigration(
        env.t.client,
        { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' }, option },
        { taskQueue: env.taskQueue },
      )
    ).result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(await uids(ws.id)).toEqual(before);
    expect(managedTypes(ws.id)).toEqual(['kubernetes_namespace_v1', 'kubernetes_persistent_volume_claim_v1', 'kubernetes_pod_v1', 'kubernetes_role_binding_v1', 'kubernetes_service_account_v1']);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
