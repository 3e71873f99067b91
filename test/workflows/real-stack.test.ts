import { WorkflowFailedError } from '@temporalio/client';
import { migrationStatus } from '../../src/client/migrations';
import { KubeClient, readKubeconfig } from '../../src/adapters/kube';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { describeRealStack } from '../harness/real-stack';
import { unpackTar } from '../../src/sim';
import { pushTemplateVersion } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(900_000);

/**
 * The runbook end to end with the real provisioner: every build the workflows trigger runs real
 * Terraform with the real providers against a real kube-apiserver, and PVC uids are read from it.
 */
describeRealStack('migrateTemplate + migrateWorkspace with real Terraform', () => {
  let env: MigrationEnv;
  let kube: KubeClient;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4, provisioner: 'terraform' });
    kube = new KubeClient(await readKubeconfig(env.sim.provisioner.kubeconfig ?? ''));
    await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i] ?? (() => { throw new Error(`no workspace ${i}`); })();
  const pvcUid = async (i: number) => (await kube.get('PersistentVolumeClaim', 'coder', `coder-${ws(i).id}-home`))?.uid;
  const managedTypes = (i: number) =>
    (JSON.parse(env.sim.stateOf(ws(i).id)).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed').map((r) => r.type);
  const run = async (i: number, option: 'A' | 'B') =>
    (await startWorkspaceMigration(
      env.t.client,
      { owner: ws(i).owner, workspace: ws(i).name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' }, option },
      { taskQueue: env.taskQueue },
    )).result() as Promise<WorkspaceMigrationResult>;

  it('option A: stop, state renamed, one start on the _v1 version carrying it: same PVC uid in the API server, _v1 types in the state', async () => {
    const uid = await pvcUid(0);
    expect(uid).toBeDefined();
    const result = await run(0, 'A');
    expect(result.outcome).toBe('migrated');
    expect(await pvcUid(0)).toBe(uid);
    expect(managedTypes(0)).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim_v1', 'kubernetes_deployment_v1']));
    expect(managedTypes(0)).not.toContain('kubernetes_persistent_volume_claim');
    const build = (await env.coder.workspace(ws(0).id)).latest_build;
    expect(build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('compensation: the start carrying the migrated state fails; one build on the old version carrying the backup restores it, PVC kept', async () => {
    const uid = await pvcUid(1);
    env.sim.setFaults({ failBuilds: { workspaceId: ws(1).id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    try {
      await expect(run(1, 'A')).rejects.toThrow(WorkflowFailedError);
    } finally {
      env.sim.setFaults(undefined);
    }
    const handle = env.t.client.workflow.getHandle(`wsmigrate/${env.sim.template.name}/${ws(1).owner}/${ws(1).name}`);
    const status = (await handle.query('status')) as WorkspaceMigrationStatus;
    expect(status.phase).toBe('restored');
    const build = (await env.coder.workspace(ws(1).id)).latest_build;
    expect(build).toMatchObject({ transition: 'start', template_version_id: env.sim.template.originalVersionId });
    expect(build.job.status).toBe('succeeded');
    expect(managedTypes(1)).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim', 'kubernetes_deployment']));
    expect(await pvcUid(1)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it("cancelled while option A's start on the _v1 version runs: that start is stopped on its version, then the backup started on the old one (a start on top of ours fails AlreadyExists on a real API server), PVC kept", async () => {
    const uid = await pvcUid(2);
    const originalVersionId = env.sim.template.originalVersionId;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws(2).owner, workspace: ws(2).name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' }, option: 'A' },
      { taskQueue: env.taskQueue },
    );
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('the migrated-state build never appeared');
      const latest = (await env.coder.workspace(ws(2).id)).latest_build;
      if (latest.template_version_id === targetVersionId && latest.transition === 'start') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
    const builds = await env.coder.workspaceBuilds(ws(2).id, { limit: 3 });
    expect(builds.map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['start', originalVersionId, 'succeeded'],
      ['stop', targetVersionId, 'succeeded'],
      ['start', targetVersionId, 'succeeded'],
    ]);
    expect(await migrationStatus(env.t.client, handle.workflowId)).toMatchObject({ phase: 'restored' });
    expect(managedTypes(2)).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim', 'kubernetes_deployment']));
    expect(await kube.get('Deployment', 'coder', `coder-${ws(2).id}`)).toBeDefined();
    expect(await pvcUid(2)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it("option A's start on the _v1 version fails after creating the deployment (wait_for_rollout times out: no kubelet): that failed start is stopped on its version with the state Coder holds for it, then the backup started on the old one, PVC kept", async () => {
    const uid = await pvcUid(3);
    const originalVersionId = env.sim.template.originalVersionId;
    // The migrated source, but its deployment waits for a rollout that never comes: the provider creates
    // it, sets its id, then times out; Terraform keeps it (tainted) in the failed build's state.
    const migrated = await env.coder.templateVersion(targetVersionId);
    const source = (await unpackTar(await env.coder.downloadFile(migrated.job.file_id))).find((f) => f.name === 'main.tf')?.content.toString() ?? '';
    const waiting = source.replace('wait_for_rollout = false', 'wait_for_rollout = true\n  timeouts {\n    create = "10s"\n  }');
    expect(waiting).not.toBe(source);
    const version = await pushTemplateVersion(env.sim, waiting, { name: 'v1-waits-for-rollout' });
    expect(version.job.status).toBe('succeeded');
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws(3).owner, workspace: ws(3).name, template: env.sim.template.name, targetVersionId: version.id, approval: { policy: 'none' }, option: 'A' },
      { taskQueue: env.taskQueue },
    );
    const outcome = await handle.result().then(
      (r) => ({ ok: r as unknown }),
      (e: unknown) => ({ err: e }),
    );
    const builds = await env.coder.workspaceBuilds(ws(3).id, { limit: 12 });
    // What the real stack did, in the test's output whatever the assertions below say.
    console.log(
      'failed-start case:',
      JSON.stringify({ outcome: 'ok' in outcome ? outcome.ok : String((outcome.err as Error & { cause?: Error }).cause?.message ?? outcome.err) }),
      JSON.stringify(builds.map((b) => [b.build_number, b.transition, b.template_version_id === version.id ? 'v1-waits' : b.template_version_id === originalVersionId ? 'original' : b.template_version_id, b.job.status, b.job.error ?? ''])),
      JSON.stringify(await migrationStatus(env.t.client, handle.workflowId)),
    );
    expect('err' in outcome && outcome.err).toBeInstanceOf(WorkflowFailedError);
    expect(builds.slice(0, 4).map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['start', originalVersionId, 'succeeded'],
      ['stop', version.id, 'succeeded'],
      ['start', version.id, 'failed'],
      ['stop', originalVersionId, 'succeeded'],
    ]);
    expect(builds[2].job.error).toMatch(/rollout|timeout|context deadline/i);
    expect(await migrationStatus(env.t.client, handle.workflowId)).toMatchObject({ phase: 'restored' });
    expect(managedTypes(3)).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim', 'kubernetes_deployment']));
    expect(managedTypes(3)).not.toContain('kubernetes_deployment_v1');
    expect(await kube.get('Deployment', 'coder', `coder-${ws(3).id}`)).toBeDefined();
    expect(await pvcUid(3)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
