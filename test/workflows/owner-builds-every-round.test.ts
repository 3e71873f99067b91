import { CoderClient } from '../../src/adapters/coder';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * An owner who starts their workspace again after every stop of wsmigrate's, before the migrated state
 * goes out: each round backs up, sees their build before writing, and starts over; the last round
 * stops. Nothing of ours may be built over their build, and the run must not say it restored a state
 * and transition it never built back.
 */
describe('an owner who builds after the backup in every round', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, buildLatencyMs: 20 });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
  }, 120_000);
  afterAll(async () => env?.close());

  const runWhileOwnerBuilds = async (ws: ReturnType<MigrationEnv['sim']['workspaces']>[number], ownersBuild: (round: number) => 'start' | 'stop') => {
    const owner = new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(ws.owner) });
    let round = 0;
    const worker = await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        rewriteAndVerify: async (i) => {
          const r = await acts.rewriteAndVerify(i);
          // The owner builds the workspace wsmigrate just stopped and backed up.
          round += 1;
          await owner.waitForBuild((await owner.createWorkspaceBuild(ws.id, { transition: ownersBuild(round) })).id);
          return r;
        },
      }),
    });
    try {
      const handle = await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
      const message = await failureOf(handle.result());
      const phase = ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).phase;
      const builds = await env.coder.workspaceBuilds(ws.id, { limit: 10 });
      return { message, phase, rounds: round, builds: builds.map((b) => [b.build_number, b.transition, b.initiator_name, b.job.status, b.template_version_id === targetVersionId]) };
    } finally {
      await worker.stop();
    }
  };
  const claimOf = (id: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id))?.uid;

  it('a Start after each of our stops: three rounds, then restored (their last start is the prior transition on the prior version, holding the backup\'s objects), nothing of ours on the new version, the claim kept', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = claimOf(ws.id);
    const run = await runWhileOwnerBuilds(ws, () => 'start');
    expect(run.rounds).toBe(3);
    expect(run.builds).toEqual([
      [7, 'start', ws.owner, 'succeeded', false],
      [6, 'stop', 'admin', 'succeeded', false],
      [5, 'start', ws.owner, 'succeeded', false],
      [4, 'stop', 'admin', 'succeeded', false],
      [3, 'start', ws.owner, 'succeeded', false],
      [2, 'stop', 'admin', 'succeeded', false],
      [1, 'start', ws.owner, 'succeeded', false],
    ]);
    expect(run.message).toMatch(new RegExp(`^${ws.owner}/${ws.name}: migration rolled back, state and transition restored\\. Cause: migrated-state build: .*build #7 \\(start, succeeded\\) was started by ${ws.owner} after build #6`));
    expect(run.phase).toBe('restored');
    expect(claimOf(ws.id)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);

  it('a Stop of theirs after our last stop: nothing is built back over it, and the run says so instead of "state and transition restored"', async () => {
    const ws = env.sim.workspaces()[1];
    const uid = claimOf(ws.id);
    const run = await runWhileOwnerBuilds(ws, (round) => (round < 3 ? 'start' : 'stop'));
    expect(run.rounds).toBe(3);
    expect(run.builds.slice(0, 3)).toEqual([
      [7, 'stop', ws.owner, 'succeeded', false],
      [6, 'stop', 'admin', 'succeeded', false],
      [5, 'start', ws.owner, 'succeeded', false],
    ]);
    expect(run.message).toMatch(
      new RegExp(`^${ws.owner}/${ws.name}: migration stopped, nothing built back \\(build #7 \\(stop\\) by ${ws.owner} came after the backup and no migrated state reached Coder: left as it is\\)\\. Cause: `),
    );
    expect(run.message).not.toContain('state and transition restored');
    expect(run.phase).toBe('restored');
    expect(claimOf(ws.id)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});
