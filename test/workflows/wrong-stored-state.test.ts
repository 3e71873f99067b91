import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WrongStoredStateFault } from '../../src/sim';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { buildPostsOf } from '../harness/coder-requests';
import { homePvcName } from '../sim/helpers';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';
import { workflowFailureOf } from '../harness/wait';

jest.setTimeout(240_000);

const typesIn = (state: string) => (JSON.parse(state) as { resources: { mode: string; type: string }[] }).resources.filter((r) => r.mode === 'managed').map((r) => r.type);

/**
 * Coder keeping other bytes than a build wrote (the simulator's wrongStoredState fault), after the
 * build that carries the migrated state, after the compensation's restore build and after a
 * recovery's start: no run calls such a workspace migrated or restored. Each case asserts what a user
 * sees: the outcome and its message, the builds Coder ran, the state it holds, the PVC's uid.
 */
describe('a build whose state Coder keeps is not what it wrote', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 6 }));
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(ws(i).id))?.uid;
  const input = (i: number): MigrateWorkspaceInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: env.sim.template.name,
    targetVersionId,
    option: 'B',
    approval: { policy: 'none', approvers: ['sre'] },
  });
  const statusOf = async (workflowId: string) => (await migrationStatus(env.t.client, workflowId)) as WorkspaceMigrationStatus;
  const withFault = async <T>(fault: Parameters<MigrationEnv['sim']['setFaults']>[0], run: () => Promise<T>): Promise<T> => {
    env.sim.setFaults(fault);
    try {
      return await run();
    } finally {
      env.sim.setFaults(undefined);
    }
  };
  const latestBuild = async (i: number) => (await env.coder.workspace(ws(i).id)).latest_build;

  for (const [i, how, cause] of [
    [0, 'previous', 'kubernetes_persistent_volume_claim.home still has a deprecated type after the build'],
    [1, 'empty', 'persistent data lost in build'],
  ] as const) {
    it(`the migrated-state build kept as ${how === 'previous' ? "the backup's old-type state" : 'an empty state'}: not migrated; restored to the backup, the PVC's uid kept`, async () => {
      const uid = pvcUid(i);
      const original = env.sim.template.originalVersionId;
      const fault: WrongStoredStateFault = { how, workspaceId: ws(i).id, transition: 'start', times: 1 };
      const failure = await withFault({ wrongStoredState: fault }, async () => {
        const handle = await startWorkspaceMigration(env.t.client, input(i), { taskQueue: env.taskQueue });
        const f = await workflowFailureOf(handle.result());
        expect((await statusOf(handle.workflowId)).phase).toBe('restored');
        return f;
      });
      expect(failure.type).toBe('WsmigrateRolledBack');
      expect(failure.message).toContain(`${subject(i)}: migration rolled back, state and transition restored. Cause: post-build check: ${subject(i)}: ${cause}`);
      // Two builds: the migrated state on the new version, then the backup on the old one; Coder holds the old types again.
      expect(buildPostsOf(env.sim, ws(i).id)).toHaveLength(2);
      expect(await latestBuild(i)).toMatchObject({ transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
      expect(typesIn(env.sim.stateOf(ws(i).id))).toContain('kubernetes_persistent_volume_claim');
      expect(typesIn(env.sim.stateOf(ws(i).id))).not.toContain('kubernetes_persistent_volume_claim_v1');
      expect(pvcUid(i)).toBe(uid);
      expect(env.sim.cluster.pvcLosses()).toEqual([]);
    });
  }

  it("the compensation's restore build kept as the failed migrated build's _v1 state: needs-attention naming it, never 'restored'", async () => {
    const i = 2;
    const uid = pvcUid(i);
    const { handle, failure } = await withFault(
      {
        // The migrated-state start fails (before it touches state or cluster); the restore start then succeeds, but Coder keeps the failed build's _v1 state for it.
        failBuilds: { workspaceId: ws(i).id, transition: 'start', times: 1, message: 'node pool exhausted' },
        wrongStoredState: { how: 'previous', workspaceId: ws(i).id, transition: 'start', times: 1 },
      },
      async () => {
        const h = await startWorkspaceMigration(env.t.client, input(i), { taskQueue: env.taskQueue });
        return { handle: h, failure: await workflowFailureOf(h.result()) };
      },
    );
    expect(failure.type).toBe('WsmigrateNeedsAttention');
    const restoreBuild = await latestBuild(i);
    expect(failure.message).toContain(`ended failed: node pool exhausted) and the restore did not finish: restore build: ${subject(i)}: restore build #${restoreBuild.build_number} succeeded, but the state Coder holds for it is not the backup's: kubernetes_persistent_volume_claim.home is missing.`);
    const status = await statusOf(handle.workflowId);
    expect(status.phase).toBe('needs-attention');
    expect(failure.message).toContain(`wsmigrate state restore ${subject(i)} --backup ${status.backup?.ref} --yes`);
    // What the message warns of: Coder holds the _v1 state under the old version; the volume itself is untouched.
    expect(restoreBuild).toMatchObject({ template_version_id: env.sim.template.originalVersionId, job: { status: 'succeeded' } });
    expect(typesIn(env.sim.stateOf(ws(i).id))).toContain('kubernetes_persistent_volume_claim_v1');
    expect(pvcUid(i)).toBe(uid);
    expect(env.notes.some((n) => n.kind === 'migration-failed' && n.subject === `Needs attention: ${subject(i)}`)).toBe(true);
    expect(env.notes.some((n) => n.kind === 'restored' && n.subject === `Restored ${subject(i)}`)).toBe(false);
  });

  for (const [i, how] of [
    [3, 'previous'],
    [4, 'empty'],
  ] as const) {
    it(`a recovery whose start Coder keeps as ${how === 'previous' ? 'the damaged state' : 'an empty state'} ends needs-attention naming the PVC, not migrated`, async () => {
      // A user's "Update" on the guarded active version: a stop, then a start that fails and forgets the PVC.
      const { startBuildId } = await env.sim.updateAndRestart(ws(i).id);
      expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
      const uid = pvcUid(i);
      const failure = await withFault({ wrongStoredState: { how, workspaceId: ws(i).id, transition: 'start', times: 1 } }, async () => {
        // A plain repair (the PVC entry forgotten, the guard allows): with policy none it asks no one.
        const handle = await startWorkspaceMigration(env.t.client, input(i), { taskQueue: env.taskQueue });
        const f = await workflowFailureOf(handle.result());
        expect((await statusOf(handle.workflowId)).phase).toBe('needs-attention');
        expect((await statusOf(handle.workflowId)).approvals).toEqual([]);
        return f;
      });
      expect(failure.type).toBe('WsmigrateNeedsAttention');
      const start = await latestBuild(i);
      expect(failure.message).toContain(`protected-object check: ${subject(i)}: after build ${start.id}: kubernetes_persistent_volume_claim.home is missing.`);
      expect(start).toMatchObject({ transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
      expect(pvcUid(i)).toBe(uid);
    });
  }
});
