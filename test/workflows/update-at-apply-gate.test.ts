import { decide } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { api, homePvcName } from '../sim/helpers';
import { workflowFailureOf } from '../harness/wait';
import { waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The owner presses "Update" (a start on the active version, which is the migration's target) while
 * the migration waits at its apply gate. Their build has the shape of ours (the next build number,
 * a start on the target version): it must be taken for theirs, never waited on as our own.
 */
describe("the owner's Update while the migration waits at its apply gate", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    // The gate's rechecks (10 s, then 20 s, …) last a hundredth (fixtures/short-timers): the owner's build is seen in
    // well under a second instead of waited out; the approval timeout is set long enough that no gate escalates meanwhile.
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }, { workflowInterceptorModules: [require.resolve('./fixtures/short-timers')] }));
  });
  afterAll(async () => env?.close());

  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;

  it('is their build: the run starts over, repairs what their guarded build forgot (recover gate) and ends migrated, the PVC uid kept', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply');

    const update = await api<{ id: string; build_number: number }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition: 'start', template_version_id: targetVersionId } });
    expect(update.status).toBe(201);
    // The guard makes their start on the new version with the old state fail, forgetting the PVC entry (the claim stays).
    await waitFor(async () => (await env.coder.workspaceBuild(update.body.id)).job.status === 'failed');

    // What the approver reads at the gate no longer describes a plan that will be applied: status, the Web UI's
    // details and the chat message say the workspace changed, whose build it was, and what each answer does now.
    const changed = new RegExp(
      `^THE WORKSPACE CHANGED SINCE THIS PLAN: build #${update.body.build_number} \\(start on \\S+, \\w+ when seen, by ${ws.owner}\\) came after build #${update.body.build_number - 1}, the one backed up and planned\\. ` +
        `This plan will not be applied; approving builds nothing on this plan: the run reads ${ws.owner}/${ws.name} again, backs it up and plans again .*Rejecting leaves their build as it is\\. Before: Start ${ws.owner}/${ws.name} on `,
    );
    await waitFor(async () => changed.test((await statusOf(handle.workflowId)).pendingApproval?.summary ?? ''), 60_000);
    const meta = (await env.t.client.workflow.getHandle(handle.workflowId).query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(meta.currentDetails).toContain('THE WORKSPACE CHANGED SINCE THIS PLAN');
    const note = env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === 'approval-changed');
    expect(note).toMatchObject({ gateId: 'apply', subject: 'Changed under the gate: apply' });
    expect(note?.text).toMatch(changed);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'recover');
    expect((await statusOf(handle.workflowId)).pendingApproval?.summary).toMatch(new RegExp(`kubernetes_persistent_volume_claim\\.home forgotten by build #${update.body.build_number}`));
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });

    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
  });

  it('rejected at the gate after it: the compensation leaves their build as it is, naming it, and builds nothing over it', async () => {
    const ws = env.sim.workspaces()[1];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply');
    const update = await api<{ id: string; build_number: number }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition: 'start', template_version_id: targetVersionId } });
    await waitFor(async () => (await env.coder.workspaceBuild(update.body.id)).job.status === 'failed');

    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.message).toMatch(new RegExp(`nothing built back \\(build #${update.body.build_number} \\(start\\) by ${ws.owner} came after the backup and no migrated state reached Coder: left as it is; it ended failed: 'wsmigrate scan' tells`));
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(update.body.id);
  });

  it('on the last round the gate says approving ends the run; approved, nothing is built and their build is left as it is', async () => {
    const ws = env.sim.workspaces()[2];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    const summary = async () => (await statusOf(handle.workflowId)).pendingApproval?.summary ?? '';
    /** The apply gate of round `restarts + 1`, as first asked (not yet amended). */
    const freshGate = async (restarts: number) => {
      const st = await statusOf(handle.workflowId);
      return st.pendingApproval?.gateId === 'apply' && (st.restarts ?? 0) === restarts && !st.pendingApproval.summary.startsWith('THE WORKSPACE CHANGED');
    };
    /** The owner's own stop or start (no version: the previous build's, the old one, on their unmigrated state), waited for. */
    const ownerBuilds = async (transition: 'start' | 'stop') => {
      const b = await api<{ id: string; build_number: number }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition } });
      expect(b.status).toBe(201);
      expect((await env.coder.waitForBuild(b.body.id)).job.status).toBe('succeeded');
      return { id: b.body.id, number: b.body.build_number };
    };
    // Rounds 1 and 2 overtaken by the owner's builds and approved anyway: each starts over.
    for (const [round, transition] of [[0, 'stop'], [1, 'start']] as const) {
      await waitFor(() => freshGate(round), 120_000);
      const theirs = await ownerBuilds(transition);
      await waitFor(async () => (await summary()).startsWith(`THE WORKSPACE CHANGED SINCE THIS PLAN: build #${theirs.number} `), 60_000);
      expect(await summary()).toContain('approving builds nothing on this plan: the run reads');
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    }

    await waitFor(() => freshGate(2), 120_000);
    const last = await ownerBuilds('stop');
    const lastRound = new RegExp(
      `^THE WORKSPACE CHANGED SINCE THIS PLAN: build #${last.number} \\(stop on \\S+, succeeded when seen, by ${ws.owner}\\) came after build #${last.number - 1}, the one backed up and planned\\. ` +
        `This plan will not be applied; this is the last of 3 rounds, so approving builds nothing: the run ends, leaving their build as it is \\(run the migration again\\)\\. ` +
        `Rejecting leaves their build as it is\\. Before: Start ${ws.owner}/${ws.name} on `,
    );
    await waitFor(async () => lastRound.test(await summary()), 60_000);
    expect(env.notes.filter((n) => n.workflowId === handle.workflowId && n.kind === 'approval-changed').at(-1)?.text).toMatch(lastRound);

    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.message).toMatch(new RegExp(`nothing built back \\(build #${last.number} \\(stop\\) by ${ws.owner} came after the backup`));
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(last.id);
    const steps = (await statusOf(handle.workflowId)).stepsDone;
    expect(steps).not.toContain('build');
    // Each round's steps once, after the round it is: never "done: preflight, preflight".
    const round = ['preflight', 'backup', 'rewrite', 'verify'];
    expect(steps.slice(0, 14)).toEqual([...round, 'started over: round 2 of 3', ...round, 'started over: round 3 of 3', ...round]);
  }, 240_000);
});
