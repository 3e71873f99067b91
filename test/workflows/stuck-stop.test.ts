import { startWorkspaceMigration } from '../../src/client/migrations';
import { migrationStatus } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { FailureType } from '../../src/contracts/failures';
import { homePvcName } from '../sim/helpers';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

const DAEMONS = ['sim-provisioner-1', 'sim-provisioner-2', 'sim-provisioner-3'];

/**
 * Option A's stop stuck in Coder's provisioner queue (every daemon offline) past the build timeout, on
 * each of its attempts: the run gives up and compensates while its stop is still queued, and the stop
 * runs once a daemon is back. Driven from outside first (docs/hazard-drive.md): the compensation took
 * the run's own stop for someone else's build ("came after the backup … left as it is"), the run ended
 * 'failed, restored', and the workspace, running before, was left stopped.
 */
describe("option A's stop stuck in Coder's queue past every attempt", () => {
  let env: MigrationEnv;
  let originalVersionId: string;
  let targetVersionId: string;
  beforeAll(async () => {
    // Each step's retries wait a tenth of the production backoff (fixtures/short-retries): the stop's
    // five attempts, each past its 1 s build timeout, take ~10 s instead of 5 + 10 + 20 + 40 s between them.
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv(
      { workspaces: 1, buildLatencyMs: 20, provisioners: 3 },
      { workflowInterceptorModules: [require.resolve('./fixtures/short-retries')] },
    ));
  });
  afterAll(async () => {
    for (const d of DAEMONS) env?.sim.setDaemonOffline(d, false);
    await env?.close();
  });

  it('is the run\'s own build: the compensation waits for it, then starts the workspace again on its old version', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const before = (await env.coder.workspace(ws.id)).latest_build;
    for (const d of DAEMONS) env.sim.setDaemonOffline(d, true);
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, buildTimeout: '1s', approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).phase === 'compensating', 200_000);
    for (const d of DAEMONS) env.sim.setDaemonOffline(d, false);

    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe(FailureType.rolledBack);
    expect(failure.message).toContain('migration rolled back, state and transition restored');
    expect(failure.message).not.toContain('left as it is');
    const builds = (await env.coder.workspaceBuilds(ws.id, { limit: 10 })).filter((b) => b.build_number > before.build_number).sort((a, b) => a.build_number - b.build_number);
    expect(builds.map((b) => [b.transition, b.template_version_id, b.job.status])).toEqual([
      ['stop', originalVersionId, 'succeeded'],
      ['start', originalVersionId, 'succeeded'],
    ]);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  }, 300_000);
});
