import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceRecoveryResult } from '../../src/contracts/recover-workspace';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

type State = { resources: { mode: string; type: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[] };
const entriesOf = (text: string, prefix: string) => (JSON.parse(text) as State).resources.filter((r) => r.mode === 'managed' && r.type.startsWith(prefix));

/**
 * The harsher "Update": Coder before 2.31.1 on the dynamic parameter flow (Coder's default for new
 * templates) starts a RUNNING workspace straight on the active version, no stop first (site/src/api/api.ts
 * `updateWorkspace`, fixed by PR #22201). On an unmigrated workspace that start runs the version
 * `wsmigrate migrate template` pushed against the old, running state: its guard forgets the claim, the
 * `_v1` claim cannot be created (AlreadyExists), the build fails and the home volume stays; the old
 * Deployment may go with it. `migrate workspace` then repairs it as after the stop-first Update.
 */
describe('an Update without the stop (Coder 2.30, dynamic parameters) of an unmigrated running workspace', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1, version: 'v2.30.4' }));
  });
  afterAll(async () => env?.close());

  const ws = () => env.sim.workspaces()[0]!;
  const pvc = () => env.sim.cluster.pvc('coder', `coder-${ws().id}-home`);
  const input = (): MigrateWorkspaceInput => ({
    owner: ws().owner,
    workspace: ws().name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'none', approvers: ['sre'] },
  });

  it('fails its build keeping the home volume; migrate workspace then recovers it onto the new version with the same claim', async () => {
    const before = pvc();
    expect(before).toBeDefined();
    expect((await env.coder.workspace(ws().id)).latest_build).toMatchObject({ transition: 'start', status: 'running' });
    const { stopBuildId, startBuildId } = await env.sim.updateAndRestart(ws().id);
    expect(stopBuildId).toBeUndefined();
    const failed = await env.coder.waitForBuild(startBuildId);
    expect(failed.template_version_id).toBe(targetVersionId);
    expect(failed.job.status).toBe('failed');
    expect(failed.job.error).toMatch(/already exists/);
    expect(pvc()?.uid).toBe(before?.uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(entriesOf(env.sim.stateOf(ws().id), 'kubernetes_persistent_volume_claim')).toEqual([]);

    const result = (await (await startWorkspaceMigration(env.t.client, input(), { taskQueue: env.taskQueue })).result()) as WorkspaceRecoveryResult;
    expect(result.outcome).toBe('migrated');
    expect(result.recovery.fromBuild).toBe(failed.build_number - 1);
    const latest = (await env.coder.workspace(ws().id)).latest_build;
    expect(latest).toMatchObject({ transition: 'start', template_version_id: targetVersionId, status: 'running' });
    expect(pvc()?.uid).toBe(before?.uid);
    const claims = entriesOf(env.sim.stateOf(ws().id), 'kubernetes_persistent_volume_claim');
    expect(claims.map((e) => e.type)).toEqual(['kubernetes_persistent_volume_claim_v1']);
    expect(claims[0]?.instances[0]?.attributes.metadata?.[0]?.uid).toBe(before?.uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
