import { startWorkspaceMigration } from '../../src/client/migrations';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { failureOf } from '../harness/wait';
import { pushTemplateVersion } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

const REGION = (regex: string) => `
data "coder_parameter" "region" {
  name    = "region"
  default = "eu-west"
  mutable = true
  validation {
    regex = "${regex}"
    error = "a region"
  }
}
`;
const OLD = K8S_TEMPLATE_MAIN_TF + REGION('^[a-z-]+$');

/**
 * A target whose parameter rules the preflight cannot judge (a regular expression: Go's syntax, left to
 * Coder) refuses the workspace's carried value: Coder answers the migration's start with a 400 before any
 * job exists, after the migration's stop. On both parameter flows (coderd/wsbuilder/wsbuilder.go
 * getClassicParameters: `Unable to validate parameter "region"` + detail; getDynamicParameters →
 * coderd/dynamicparameters/error.go: `Unable to validate parameters` + one validation per parameter, no
 * detail) the workspace is put back as it was and the failure names the parameter and Coder's reason.
 */
describe.each([
  ['dynamic', false],
  ['classic', true],
])('the migration start refused for a parameter after the stop (%s parameter flow)', (_flow, classic) => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'region', value: 'eu-west' }], useClassicParameterFlow: classic });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('is put back on its old version, running, with its claim; the failure names the parameter', async () => {
    const ws = env.sim.workspaces()[0]!;
    const uid = env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid;
    const originalVersionId = env.sim.template.activeVersionId;
    const strict = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF + REGION('^[a-z]+$') }], {}).files[0]!.content;
    const target = await pushTemplateVersion(env.sim, strict, { promote: true });

    const failure = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target.id, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(failure).toMatch(/region/);
    expect(failure).toMatch(/does not match regex/);
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ transition: 'start', template_version_id: originalVersionId, status: 'running' });
    expect(env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(uid);
    expect(env.sim.stateOf(ws.id)).toContain('"kubernetes_persistent_volume_claim"');
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
