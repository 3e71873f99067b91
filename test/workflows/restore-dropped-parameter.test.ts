import { startWorkspaceMigration } from '../../src/client/migrations';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { failureOf } from '../harness/wait';
import { pushTemplateVersion, SIZED_HOME_TEMPLATE_MAIN_TF } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

const OLD = SIZED_HOME_TEMPLATE_MAIN_TF;

/**
 * A target version (pushed by hand) that no longer declares `home_disk_size`, the parameter the old version
 * sizes the home claim with (default 10; the workspace has 20); its claim is 20Gi as written. The migration's
 * start on it is created (Coder drops the value of a parameter the version does not declare on a start, in
 * both flows: wsbuilder.go getClassicParameters, dynamicparameters/resolver.go ResolveParameters) and fails.
 * The restore onto the old version must give the value back: otherwise Coder resolves the default, 10, and
 * the kubernetes provider replaces a claim whose storage shrinks (resource_kubernetes_persistent_volume_claim.go
 * CustomizeDiff): the migration's own rollback would delete the home volume.
 */
describe.each([
  ['dynamic', false],
  ['classic', true],
])('a failed migration onto a version without the claim-size parameter (%s parameter flow)', (_flow, classic) => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }], useClassicParameterFlow: classic });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('is restored with the value the workspace had: the same claim, 20Gi, home_disk_size 20 again', async () => {
    const ws = env.sim.workspaces()[0]!;
    const uid = env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid;
    const originalVersionId = env.sim.template.activeVersionId;
    const target = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "20Gi"') }], {}).files[0]!.content;
    const v = await pushTemplateVersion(env.sim, target, { promote: true });
    env.sim.setFaults({ failBuilds: { templateVersionId: v.id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    const failure = await failureOf((await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: v.id, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result());
    expect(failure).toMatch(/rolled back, state and transition restored/);
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ transition: 'start', status: 'running', template_version_id: originalVersionId });
    expect(await env.coder.workspaceBuildParameters(latest.id)).toEqual([{ name: 'home_disk_size', value: '20' }]);
    expect(env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(/"storage": ?"(\d+Gi)"/.exec(env.sim.stateOf(ws.id))?.[1]).toBe('20Gi');
  });
});
