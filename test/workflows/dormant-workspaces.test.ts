import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import type { ZeroTouchWorkspaceResult } from '../../src/contracts/zero-touch-workspace';
import { api, startBuild } from '../sim/helpers';
import { failureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Dormant workspaces: Coder lets anyone with the right stop one and nobody start one
 * (coderd/rbac/roles.go, workspace_dormant). A stopped one is migrated by a stop build carrying the
 * state; a running one could not be started again after the migration's stop, so it is refused first.
 */
describe('dormant workspaces', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 4 }));
  });
  afterAll(async () => env?.close());

  const input = (i: number) => ({
    owner: env.sim.workspaces()[i]!.owner,
    workspace: env.sim.workspaces()[i]!.name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'none' as const },
  });

  it('a stopped dormant workspace is migrated stopped and stays dormant; a running one is refused before anything stops, saying how to go on', async () => {
    const [stopped, running] = env.sim.workspaces();
    await startBuild(env.sim, stopped!.id, { transition: 'stop' });
    for (const ws of [stopped!, running!]) expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    const uid = env.sim.cluster.pvc('coder', `coder-${stopped!.id}-home`)?.uid;

    const result = (await (await startWorkspaceMigration(env.t.client, input(0), { taskQueue: env.taskQueue })).result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const after = await env.coder.workspace(stopped!.id);
    expect(after.latest_build).toMatchObject({ transition: 'stop', template_version_id: targetVersionId });
    expect(after.dormant_at).toEqual(expect.any(String));
    expect(env.sim.cluster.pvc('coder', `coder-${stopped!.id}-home`)?.uid).toBe(uid);
    expect(env.sim.stateOf(stopped!.id)).toContain('kubernetes_persistent_volume_claim_v1');

    const before = (await env.coder.workspace(running!.id)).latest_build.build_number;
    const refused = await failureOf((await startWorkspaceMigration(env.t.client, input(1), { taskQueue: env.taskQueue })).result());
    expect(refused).toContain('the workspace is running but dormant');
    // The fleet's sentence too: nothing stopped, who must act, then what.
    expect(refused).toContain('nothing was stopped: its owner or an admin makes it active first (its page in the dashboard');
    expect(refused).toContain('then run the migration again (or stop it and migrate it stopped)');
    expect(refused).toContain(`PUT /api/v2/workspaces/${running!.id}/dormant {"dormant": false}`);
    const latest = (await env.coder.workspace(running!.id)).latest_build;
    expect(latest.build_number).toBe(before);
    expect(latest.transition).toBe('start');
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('zero-touch: a stopped dormant workspace waits for a build that will not come until it is made active, and says so', async () => {
    const ws = env.sim.workspaces()[2]!;
    await startBuild(env.sim, ws.id, { transition: 'stop' });
    await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } });
    const handle = await env.t.client.workflow.start('zeroTouchWorkspace', { taskQueue: env.taskQueue, workflowId: `dormant-zero-touch/${ws.id}`, args: [input(2)] });
    const result = (await handle.result()) as ZeroTouchWorkspaceResult;
    expect(result.outcome).toBe('waiting-for-build');
    expect(result.warnings).toEqual([expect.stringMatching(new RegExp(`^${ws.owner}/${ws.name} is dormant \\(since .+\\): Coder starts it for nobody until it is made active`))]);
    expect(result.warnings[0]).toContain(`so it will not migrate itself: its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws.id}/dormant {"dormant": false}) (its next start then migrates it)`);
  });

  it('zero-touch: a stopped dormant workspace of a suspended owner names an admin, not the owner, as the one who makes it active', async () => {
    const ws = env.sim.workspaces()[3]!;
    await startBuild(env.sim, ws.id, { transition: 'stop' });
    await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } });
    expect((await api(env.sim, 'PUT', `/users/${ws.owner}/status/suspend`)).status).toBe(200);
    try {
      const handle = await env.t.client.workflow.start('zeroTouchWorkspace', { taskQueue: env.taskQueue, workflowId: `dormant-zero-touch-suspended/${ws.id}`, args: [input(3)] });
      const result = (await handle.result()) as ZeroTouchWorkspaceResult;
      expect(result.outcome).toBe('waiting-for-build');
      expect(result.warnings[0]).toContain(`so it will not migrate itself: a Coder admin makes it active first, not its owner: ${ws.owner} is suspended and cannot sign in`);
      expect(result.warnings[0]).not.toContain('its owner or an admin');
    } finally {
      await api(env.sim, 'PUT', `/users/${ws.owner}/status/activate`);
    }
  });
});
