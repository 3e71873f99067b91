import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { VerificationResult } from '../../src/contracts/migrate-workspace';
import { buildPostsOf, statePutsOf } from '../harness/coder-requests';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { fixtureSource, homePvcName, pushTemplateVersion } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

const V1 = fixtureSource('template-v1');
/** A _v1 version without the PVC: a start on it plans the home volume away. */
const V1_WITHOUT_PVC = V1.replace(/resource "kubernetes_persistent_volume_claim_v1" "home" \{[\s\S]*?\n\}\n/, '')
  .replace('kubernetes_persistent_volume_claim_v1.home.metadata.0.name', '"coder-${data.coder_workspace.me.id}-home"')
  .replace(/depends_on = \[\s*kubernetes_persistent_volume_claim_v1\.home\s*\]/, '');
/** A version that keeps the deployment under its deprecated type: the migrated deployment would be re-created. */

/**
 * The plan guard's verdicts reached end to end: a migration or a recovery whose target version would
 * destroy the PVC never builds; one whose plan needs approval waits at its gate even with policy
 * 'none'; a recovery whose start loses the PVC ends needs-attention. Each asserts what a user sees:
 * the outcome and its message, the builds Coder ran, the state Coder holds, the PVC's uid.
 */
describe('guard verdicts in migrations and recoveries', () => {
  let env: MigrationEnv;
  let migratedVersionId: string;
  let dropsPvc: string;
  let replacesDeployment: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 6 });
    // A target version whose real plan would replace the deployment (an attribute that forces a new
    // object): the structural planner, which sees no attributes, cannot tell, so the worker's verify
    // steps are made to answer what a real plan answers for it. A version that still declares the
    // state's deprecated types, the structural way to such a verdict, is refused in preflight.
    const replaced = (v: VerificationResult): VerificationResult => ({
      ...v,
      verdict: 'needs-approval',
      summary: 'NEEDS APPROVAL: this start destroys and re-creates 1 unprotected resource(s): kubernetes_deployment_v1.main[0]',
      reasons: ['kubernetes_deployment_v1.main[0] would be replaced (destroyed, then created)'],
    });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        rewriteAndVerify: async (i) => {
          const r = await acts.rewriteAndVerify(i);
          return i.targetVersionId === replacesDeployment ? { ...r, verdict: replaced(r.verdict) } : r;
        },
        verifyMigration: async (i) => {
          const v = await acts.verifyMigration(i);
          return i.targetVersionId === replacesDeployment ? replaced(v) : v;
        },
      }),
    });
    migratedVersionId = (await env.migrateTemplate()).versionId;
    dropsPvc = (await pushTemplateVersion(env.sim, V1_WITHOUT_PVC, { name: 'drops-pvc' })).id;
    replacesDeployment = (await pushTemplateVersion(env.sim, V1, { name: 'replaces-deployment' })).id;
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(ws(i).id))?.uid;
  const input = (i: number, targetVersionId: string, extra: Partial<MigrateWorkspaceInput> = {}): MigrateWorkspaceInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: env.sim.template.name,
    targetVersionId,
    option: 'B',
    // The candidate versions are pushed beside the active, migrated one (whose guards the damage below relies on): asked for by name.
    ...(targetVersionId === migratedVersionId ? {} : { allowInactiveVersion: true }),
    // 'none' asks no gate of its own; a gate the guard or a recovery asks anyway needs someone to answer it.
    approval: { policy: 'none', approvers: ['sre'] },
    ...extra,
  });
  /** What Coder holds and did for a workspace, to compare before and after a run. */
  const observe = async (i: number) => ({
    latestBuildId: (await env.coder.workspace(ws(i).id)).latest_build.id,
    builds: buildPostsOf(env.sim, ws(i).id).length,
    statePuts: (await statePutsOf(env.sim, env.coder, ws(i).id)).length,
    state: env.sim.stateOf(ws(i).id),
    pvcUid: pvcUid(i),
  });
  const statusOf = async (workflowId: string) => (await migrationStatus(env.t.client, workflowId)) as WorkspaceMigrationStatus;
  const damage = async (i: number) => {
    // A user's "Update" on the migrated (guarded) active version: a stop, then a start that fails and forgets the PVC.
    const { startBuildId } = await env.sim.updateAndRestart(ws(i).id);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
  };
  const failAStart = async (i: number) => {
    // A running workspace's start that fails (a flaky node): its last good state still has the deployment.
    env.sim.setFaults({ failBuilds: { workspaceId: ws(i).id, times: 1 } });
    try {
      const b = await env.coder.createWorkspaceBuild(ws(i).id, { transition: 'start', template_version_id: env.sim.template.originalVersionId });
      expect((await env.coder.waitForBuild(b.id)).job.status).toBe('failed');
    } finally {
      env.sim.setFaults(undefined);
    }
  };

  it('a migration whose target version drops the PVC is denied: restored, nothing built or written, the PVC named', async () => {
    const before = await observe(0);
    const handle = await startWorkspaceMigration(env.t.client, input(0, dropsPvc), { taskQueue: env.taskQueue });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe('WsmigrateRolledBack');
    expect(failure.message).toContain(
      `guard denied the migration of ${subject(0)}: DENY: this start would destroy 1 protected resource(s): kubernetes_persistent_volume_claim_v1.home.`,
    );
    const status = await statusOf(handle.workflowId);
    expect(status.phase).toBe('restored');
    expect(status.verdict?.verdict).toBe('deny');
    expect(await observe(0)).toEqual(before);
  });

  it('a migration whose plan needs approval waits at the apply gate with policy none, building nothing; rejected, it is restored', async () => {
    const before = await observe(1);
    const handle = await startWorkspaceMigration(env.t.client, input(1, replacesDeployment), { taskQueue: env.taskQueue });
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply', 120_000);
    const waiting = await statusOf(handle.workflowId);
    expect(waiting.phase).toBe('awaiting-approval');
    expect(waiting.pendingApproval?.summary).toMatch(/Guard: NEEDS APPROVAL: this start destroys and re-creates 1 unprotected resource\(s\): kubernetes_deployment_v1\.main\[0\]/);
    expect(await observe(1)).toEqual(before);
    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
    const failure = await workflowFailureOf(handle.result());
    // A person's no, undone: a decision (exit 3, a fleet's declined), not a rolled-back failure.
    expect(failure.type).toBe('WsmigrateRejected');
    expect(failure.message).toMatch(/: rejected by sre at the apply gate: nothing built on \S+; restored: state and transition as before$/);
    expect((await statusOf(handle.workflowId)).phase).toBe('restored');
    expect(await observe(1)).toEqual(before);
  });

  it('a recovery whose target version drops the PVC is denied: nothing changed, the PVC named', async () => {
    await damage(2);
    const before = await observe(2);
    const handle = await startWorkspaceMigration(env.t.client, input(2, dropsPvc), { taskQueue: env.taskQueue });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.message).toMatch(
      new RegExp(`^guard denied the recovery of ${subject(2)} from build #\\d+: DENY: this start would destroy 1 protected resource\\(s\\): kubernetes_persistent_volume_claim_v1\\.home\\..*Nothing was changed`),
    );
    expect((await statusOf(handle.workflowId)).verdict?.verdict).toBe('deny');
    expect(await observe(2)).toEqual(before);
  });

  it('a recovery whose plan needs approval waits at its gate with policy none, building nothing', async () => {
    await failAStart(3);
    const before = await observe(3);
    const handle = await startWorkspaceMigration(env.t.client, input(3, replacesDeployment), { taskQueue: env.taskQueue });
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'recover', 120_000);
    expect((await statusOf(handle.workflowId)).pendingApproval?.summary).toMatch(/Guard: NEEDS APPROVAL: .*kubernetes_deployment_v1\.main\[0\]/);
    expect(await observe(3)).toEqual(before);
    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
    await workflowFailureOf(handle.result());
    expect(await observe(3)).toEqual(before);
  });

  for (const [i, how] of [
    [4, 'replace'],
    [5, 'forget'],
  ] as const) {
    it(`a recovery whose start ${how === 'replace' ? 'replaces' : 'forgets'} the PVC ends needs-attention naming it`, async () => {
      await damage(i);
      const uid = pvcUid(i);
      env.sim.setFaults({ lossyBuild: { how, address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws(i).id, transition: 'start', times: 1 } });
      try {
        // A plain repair (the PVC entry forgotten, the guard allows): with policy none it asks no one.
        const handle = await startWorkspaceMigration(env.t.client, input(i, migratedVersionId), { taskQueue: env.taskQueue });
        const failure = await workflowFailureOf(handle.result());
        expect(failure.type).toBe('WsmigrateNeedsAttention');
        const now = pvcUid(i);
        expect(failure.message).toContain(
          how === 'replace' ? `protected-object check: ${subject(i)}: after build ${(await env.coder.workspace(ws(i).id)).latest_build.id}: kubernetes_persistent_volume_claim.home has uid ${now}, not ${uid}.` : 'kubernetes_persistent_volume_claim.home is missing.',
        );
        expect((await statusOf(handle.workflowId)).phase).toBe('needs-attention');
        expect((await statusOf(handle.workflowId)).approvals).toEqual([]);
        if (how === 'replace') expect(now).not.toBe(uid);
        else expect(now).toBe(uid);
      } finally {
        env.sim.setFaults(undefined);
      }
    });
  }
});
