import { decide } from '../../src/client/approvals';
import { migrationStatus } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { KubeCluster } from '../../src/sim/kube-cluster';
import { homePvcName, migrateStateByHand } from '../sim/helpers';
import { failureOf, waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A workspace damaged by the old compensation (before it stopped our start first): option A backed up
 * the state of its stop, the start on the new version created the deployment, and the restore start
 * on the old version, carrying that stop's state, failed with AlreadyExists. The deployment is left in
 * the cluster, and no state holds it any more. `wsmigrate recover` cannot build past it: its failure
 * must say which object, where, that the state does not hold it, and what to run; it deletes nothing.
 */
describe('recover on a workspace with a deployment left outside its state', () => {
  let env: MigrationEnv;
  let originalVersionId: string;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  it('fails saying which deployment, in which namespace, that no state holds it, and the kubectl delete or terraform import to run; after the delete, recover brings it back', async () => {
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const deploymentName = `coder-${ws.id}`;
    const build = async (body: { transition: 'start' | 'stop'; template_version_id: string; state?: Buffer }) =>
      env.coder.waitForBuild((await env.coder.createWorkspaceBuild(ws.id, body)).id);
    const pvcUid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;

    // The old compensation's damage, build by build: our stop, our start on the new version with the
    // migrated state, then the restore start on the old version carrying the stop's state.
    const stopped = await build({ transition: 'stop', template_version_id: originalVersionId });
    const stopState = env.sim.stateOf(ws.id);
    const started = await build({ transition: 'start', template_version_id: targetVersionId, state: Buffer.from(migrateStateByHand(stopState)) });
    expect(started.job.status).toBe('succeeded');
    const orphan = env.sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === deploymentName);
    expect(orphan).toBeDefined();
    const restore = await build({ transition: 'start', template_version_id: originalVersionId, state: Buffer.from(stopState) });
    expect(restore.job).toMatchObject({ status: 'failed', error: expect.stringMatching(/already exists/) });
    expect(stopped.build_number).toBe(started.build_number - 1);

    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'all', approvers: ['sre'] } };
    const recover = async () => {
      const handle = await startWorkspaceRecovery(env.t.client, input, { taskQueue: env.taskQueue });
      await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'recover', 120_000);
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
      return handle;
    };

    const message = await failureOf((await recover()).result());
    // Terraform's own words stay, and what it means follows.
    expect(message).toMatch(/already exists \(AlreadyExists\), with kubernetes_deployment_v1\.main/);
    expect(message).toMatch(
      new RegExp(
        `Kubernetes object deployments/${deploymentName} in namespace 'coder' already exists, and the state build #\\d+ ran on does not hold it \\(nothing at kubernetes_deployment_v1\\.main\\[0\\]\\): ` +
          `it is left in the cluster outside Terraform's state; the state of build #${started.build_number} held it \\(uid ${orphan?.uid}\\) at kubernetes_deployment_v1\\.main\\[0\\]`,
      ),
    );
    expect(message).toContain(`\`kubectl delete deployments ${deploymentName} -n coder\``);
    expect(message).toContain(`\`terraform import 'kubernetes_deployment_v1.main[0]' coder/${deploymentName}\``);
    expect(message).toContain(`Then run \`wsmigrate recover ${subject}\` again (the same --template and --version). backups: `);
    expect(message).toMatch(/wsmigrate deletes nothing\..*Nothing was deleted; the backups stay as they are$/s);
    expect(message).not.toMatch(/wsmigrate state restore/);
    // Nothing was deleted: the deployment and the home volume are the same objects.
    expect(env.sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === deploymentName)?.uid).toBe(orphan?.uid);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(pvcUid);

    // The SRE runs the kubectl delete the message gave, then recover again: the workspace comes back, the volume kept.
    (env.sim.cluster as unknown as KubeCluster).destroy('Deployment', 'coder', deploymentName, { workspace: ws.id, buildId: 'kubectl', workspaceDelete: false });
    expect(await (await recover()).result()).toMatchObject({ outcome: 'migrated' });
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(pvcUid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});
