import { decide } from '../../src/client/approvals';
import { migrationStatus } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { WorkspaceRecoveryResult } from '../../src/contracts/recover-workspace';
import { api, homePvcName } from '../sim/helpers';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A damaged workspace waits at its recover gate, and its owner builds it meanwhile. The plan under
 * the gate (the good build's state, started on top of the damaged build) is then stale: the gate
 * says so wherever an approver reads it, and approving it builds nothing on that plan.
 */
describe("the owner's build while a recovery waits at its recover gate", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    // The gate's rechecks (10 s, then 20 s, …) last a hundredth (fixtures/short-timers): the owner's build is seen in
    // well under a second instead of waited out; the approval timeout is set long enough that no gate escalates meanwhile.
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }, { workflowInterceptorModules: [require.resolve('./fixtures/short-timers')] }));
  });
  afterAll(async () => env?.close());

  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;
  const latestBuild = async (id: string) => (await env.coder.workspace(id)).latest_build;

  /** Update and Restart on a workspace not migrated yet: the guarded start fails and its state forgets the PVC (the claim stays). */
  const damage = async (wsId: string) => {
    const { startBuildId } = await env.sim.updateAndRestart(wsId);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
  };
  const recoverAsking = async (ws: { owner: string; name: string }, policy: 'all' | 'none' = 'all') =>
    startWorkspaceRecovery(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy, approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
  /** How many of the run's reads of the latest build have come back and been acted on (a workflow task completed after). */
  const readsDone = async (id: string) => {
    const events = (await env.t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const reads = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readLatestBuild').map((e) => String(e.eventId)));
    const lastTaskDone = Math.max(...events.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => Number(e.eventId)));
    return events.filter((e) => reads.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)) && Number(e.eventId) < lastTaskDone).length;
  };
  /** The owner's own build (no version: Coder reuses the previous build's), waited for to its end, whatever it is. */
  const ownerBuilds = async (ws: { id: string; owner: string }, transition: 'start' | 'stop') => {
    const b = await api<{ id: string; build_number: number }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition } });
    expect(b.status).toBe(201);
    const done = await env.coder.waitForBuild(b.body.id);
    return { id: b.body.id, number: b.body.build_number, status: done.job.status };
  };
  const changedText = (ws: { owner: string; name: string }, b: { number: number }, transition: string, approving: string) =>
    new RegExp(
      `^THE WORKSPACE CHANGED SINCE THIS PLAN: build #${b.number} \\(${transition} on \\S+, \\w+ when seen, by ${ws.owner}\\) came after build #${b.number - 1}, the one backed up and planned\\. ` +
        `This plan will not be applied; ${approving}\\. Rejecting leaves their build as it is\\. Before: (Try \\d of 3, planned again: .*)?Recover ${ws.owner}/${ws.name}: `,
    );
  const pendingSummary = async (id: string) => (await statusOf(id)).pendingApproval?.summary ?? '';

  it('the gate says the plan is stale (status, Web UI details, chat); approved, nothing is built on it: the recovery plans again on their build, says why, and ends recovered', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    await damage(ws.id);
    const handle = await recoverAsking(ws);
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'recover', 120_000);
    // The gate's first look finds no build after its plan: it says nothing of a change.
    const readsBefore = await readsDone(handle.workflowId);
    await waitFor(async () => (await readsDone(handle.workflowId)) > readsBefore, 60_000);
    expect(await pendingSummary(handle.workflowId)).toMatch(new RegExp(`^Recover ${ws.owner}/${ws.name}: `));

    const stop = await ownerBuilds(ws, 'stop');
    const changed = changedText(
      ws,
      stop,
      'stop',
      `approving builds nothing on this plan: the recovery reads ${ws.owner}/${ws.name} again; still damaged, it backs it up and plans again \\(and asks again\\), else it ends saying what it is now`,
    );
    await waitFor(async () => changed.test(await pendingSummary(handle.workflowId)), 60_000);
    const meta = (await env.t.client.workflow.getHandle(handle.workflowId).query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(meta.currentDetails).toContain('THE WORKSPACE CHANGED SINCE THIS PLAN');
    const note = env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === 'approval-changed');
    expect(note).toMatchObject({ gateId: 'recover', subject: 'Changed under the gate: recover' });
    expect(note?.text).toMatch(changed);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    // Asked again, on top of their build, saying why; nothing of ours was built on the stale plan.
    await waitFor(async () => (await pendingSummary(handle.workflowId)).startsWith('Try 2 of 3'), 60_000);
    const again = await statusOf(handle.workflowId);
    expect(again.pendingApproval?.summary).toMatch(
      new RegExp(
        `^Try 2 of 3, planned again: recovery build: ${ws.owner}/${ws.name}: build #${stop.number} \\(stop, ${stop.status}\\) was started by ${ws.owner} after build #${stop.number - 1}, the one this step read; nothing was written over it\\. ` +
          `Recover ${ws.owner}/${ws.name}: .* in one build on top of build #${stop.number}\\.`,
      ),
    );
    expect(again.restarts).toBe(1);
    expect(again.stepsDone).not.toContain('build');
    expect(again.approvals.map((a) => a.decision)).toEqual(['approve']);
    expect((await latestBuild(ws.id)).id).toBe(stop.id);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const result = (await handle.result()) as WorkspaceRecoveryResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(await latestBuild(ws.id)).toMatchObject({ build_number: stop.number + 1, transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
  }, 120_000);

  it('on the last try the gate says approving ends the recovery; approved, it ends needs-attention with their build as it is', async () => {
    const ws = env.sim.workspaces()[1];
    await damage(ws.id);
    const handle = await recoverAsking(ws);
    // Two tries overtaken by the owner's builds and approved anyway: each plans again.
    for (const [transition, asked] of [['stop', 'Recover'], ['start', 'Try 2 of 3']] as const) {
      await waitFor(async () => (await pendingSummary(handle.workflowId)).startsWith(asked), 120_000);
      const theirs = await ownerBuilds(ws, transition);
      await waitFor(async () => (await pendingSummary(handle.workflowId)).startsWith(`THE WORKSPACE CHANGED SINCE THIS PLAN: build #${theirs.number} `), 60_000);
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    }
    await waitFor(async () => (await pendingSummary(handle.workflowId)).startsWith('Try 3 of 3'), 60_000);
    const last = await ownerBuilds(ws, 'stop');
    const changed = changedText(
      ws,
      last,
      'stop',
      `this is the last of 3 tries, so approving builds nothing: the recovery ends needs-attention, leaving their build as it is \\(run 'wsmigrate recover' again when it is idle\\)`,
    );
    await waitFor(async () => changed.test(await pendingSummary(handle.workflowId)), 60_000);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.message).toMatch(
      new RegExp(`not recovered: someone built it during each of 3 tries \\(recovery build: ${ws.owner}/${ws.name}: build #${last.number} \\(stop, ${last.status}\\) was started by ${ws.owner} after build #${last.number - 1}`),
    );
    const status = await statusOf(handle.workflowId);
    expect(status.phase).toBe('needs-attention');
    expect(status.stepsDone).not.toContain('build');
    expect((await latestBuild(ws.id)).id).toBe(last.id);
  }, 180_000);

  it('a recovery let through by the policy is not watched: no one is asked, and it is recovered at once', async () => {
    const ws = env.sim.workspaces()[2];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    await damage(ws.id);
    const handle = await recoverAsking(ws, 'none');
    const result = (await handle.result()) as WorkspaceRecoveryResult;
    expect(result.outcome).toBe('migrated');
    expect((await statusOf(handle.workflowId)).approvals).toEqual([]);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  }, 60_000);
});
