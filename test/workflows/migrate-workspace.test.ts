import { WorkflowFailedError } from '@temporalio/client';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide, signalDecision } from '../../src/client/approvals';
import { WsmigratePendingApproval } from '../../src/contracts/search-attributes';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { statePutsOf, isWrite } from '../harness/coder-requests';
import { waitFor, failureOf, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

type Handle = Awaited<ReturnType<typeof startWorkspaceMigration>>;

/** The build the compensation made (restoreByBuild's result in the history). */
async function restoredBuildId(handle: Handle): Promise<string> {
  const history = await handle.fetchHistory();
  const scheduled = new Set(
    (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'restoreByBuild').map((e) => String(e.eventId)),
  );
  const done = (history.events ?? []).find((e) => e.activityTaskCompletedEventAttributes && scheduled.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)));
  const payload = done?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
  if (!payload?.data) throw new Error('no completed restoreByBuild in the history');
  return (JSON.parse(Buffer.from(payload.data).toString('utf8')) as { buildId: string }).buildId;
}

const lineageSerial = (state: string | Buffer) => {
  const s = JSON.parse(state.toString()) as { lineage: string; serial: number };
  return { lineage: s.lineage, serial: s.serial };
};

/** True once the worker has completed a workflow task after the latest signal (the handler ran). */
async function lastSignalProcessed(handle: Handle): Promise<boolean> {
  const events = (await handle.fetchHistory()).events ?? [];
  const signalled = [...events].reverse().find((e) => e.workflowExecutionSignaledEventAttributes);
  if (!signalled) return false;
  return events.some((e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) > Number(signalled.eventId));
}

const typesIn = (state: string) => (JSON.parse(state).resources as { mode: string; type: string }[]).filter((r) => r.mode === 'managed').map((r) => r.type);

describe('migrateWorkspace on the simulator', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let originalVersionId: string;

  beforeAll(async () => {
    ({ env, originalVersionId, targetVersionId } = await createMigratedEnv({ workspaces: 10 }));
  });
  afterAll(async () => env?.close());

  const ws = (i: number) => env.sim.workspaces()[i];
  const pvcUid = (i: number) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws(i).id))?.uid;
  const input = (i: number, extra: Partial<MigrateWorkspaceInput> = {}): MigrateWorkspaceInput => ({
    owner: ws(i).owner,
    workspace: ws(i).name,
    template: env.sim.template.name,
    targetVersionId,
    approval: { policy: 'none' },
    ...extra,
  });
  const run = async (i: number, extra: Partial<MigrateWorkspaceInput> = {}) =>
    (await startWorkspaceMigration(env.t.client, input(i, extra), { taskQueue: env.taskQueue })).result() as Promise<WorkspaceMigrationResult>;
  const latestBuild = async (i: number) => (await env.coder.workspace(ws(i).id)).latest_build;

  it('option A: stops, migrates the state to _v1 only, starts on the new version, and keeps the PVC', async () => {
    const uid = pvcUid(0);
    const handle = await startWorkspaceMigration(env.t.client, input(0, { option: 'A' }), { taskQueue: env.taskQueue });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    // What a fleet of 10,000 costs on Temporal Cloud: the runbook's own events only (docs/benchmarks.md: 21),
    // no patch marker and no TemporalChangeVersion upsert of the SDK's in a run that met no gate.
    const { events } = await handle.fetchHistory();
    expect(events?.filter((e) => e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_local_activity')).toEqual([]);
    expect(events?.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion)).toEqual([]);
    expect(events?.length).toBeLessThanOrEqual(21);
    // After the stop only the PVC is in state (the deployment's count is start_count); the start creates deployment_v1.
    expect(result.renamedCount).toBe(1);
    const types = typesIn(env.sim.stateOf(ws(0).id));
    expect(types.filter((t) => t.startsWith('kubernetes_'))).toEqual(expect.arrayContaining(['kubernetes_persistent_volume_claim_v1', 'kubernetes_deployment_v1']));
    expect(types.some((t) => t === 'kubernetes_persistent_volume_claim' || t === 'kubernetes_deployment')).toBe(false);
    const build = await latestBuild(0);
    expect(build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(build.job.status).toBe('succeeded');
    expect(pvcUid(0)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('option B: migrates a running workspace without stopping it, PVC kept', async () => {
    const uid = pvcUid(1);
    const before = env.sim.requestLog().length;
    const result = await run(1, { option: 'B' });
    expect(result.outcome).toBe('migrated');
    const posts = env.sim.requestLog().slice(before).filter((r) => r.method === 'POST' && r.path.includes(`/workspaces/${ws(1).id}/builds`));
    expect(posts).toHaveLength(1); // only the start carrying the migrated state: no stop build
    expect(await latestBuild(1)).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(pvcUid(1)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('an already-migrated workspace is a no-op that builds nothing', async () => {
    expect((await run(8)).outcome).toBe('migrated');
    const before = env.sim.requestLog().length;
    const result = await run(8);
    expect(result.outcome).toBe('already-migrated');
    const writes = env.sim.requestLog().slice(before).filter(isWrite);
    expect(writes).toEqual([]);
  });

  it('a failed migrated-state build is undone by one build carrying the backup on the old version: old types, PVC kept', async () => {
    const stateBefore = env.sim.stateOf(ws(2).id);
    const uid = pvcUid(2);
    env.sim.setFaults({ failBuilds: { workspaceId: ws(2).id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    try {
      await expect(run(2, { option: 'A' })).rejects.toThrow(WorkflowFailedError);
    } finally {
      env.sim.setFaults(undefined);
    }
    const handle = env.t.client.workflow.getHandle(`wsmigrate/${env.sim.template.name}/${ws(2).owner}/${ws(2).name}`);
    const status = (await handle.query('status')) as WorkspaceMigrationStatus;
    expect(status.phase).toBe('restored');
    expect(status.stepsDone).toEqual(['preflight', 'stop', 'backup', 'rewrite', 'verify', 'restore']);
    expect(status.backup?.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The restore build ran on the backup (taken after the stop): same lineage, old types, a newer serial.
    const restored = await env.coder.workspaceBuild(await restoredBuildId(handle));
    expect(restored).toMatchObject({ transition: 'start', template_version_id: originalVersionId, job: { status: 'succeeded' } });
    const backup = await env.blobs.get(status.backup!.ref);
    const after = await env.coder.getWorkspaceBuildState(restored.id);
    expect(lineageSerial(after).lineage).toBe(lineageSerial(backup).lineage);
    expect(typesIn(after.toString())).toEqual(typesIn(stateBefore));
    expect((await latestBuild(2)).id).toBe(restored.id);
    expect(pvcUid(2)).toBe(uid);
    expect(await statePutsOf(env.sim, env.coder, ws(2).id)).toEqual([]);
  });

  it('a stopped workspace stays stopped: one stop build on the new version carries the migrated state', async () => {
    const uid = pvcUid(3);
    await env.coder.waitForBuild((await env.coder.createWorkspaceBuild(ws(3).id, { transition: 'stop' })).id);
    const before = env.sim.requestLog().length;
    const result = await run(3, { option: 'A' });
    expect(result.outcome).toBe('migrated');
    const posts = env.sim.requestLog().slice(before).filter((r) => r.method === 'POST' && r.path.endsWith(`/workspaces/${ws(3).id}/builds`));
    expect(posts).toHaveLength(1);
    expect(await latestBuild(3)).toMatchObject({ transition: 'stop', template_version_id: targetVersionId, job: { status: 'succeeded' } });
    expect(typesIn(env.sim.stateOf(ws(3).id))).toContain('kubernetes_persistent_volume_claim_v1');
    expect(pvcUid(3)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('a rejection changes nothing: the workspace is back running on its old version with its old state types', async () => {
    const before = env.sim.stateOf(ws(4).id);
    const uid = pvcUid(4);
    const handle = await startWorkspaceMigration(env.t.client, input(4, { approval: { policy: 'destructive', approvers: ['alice'] } }), { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval !== undefined);
    await expect(decide(env.t.client, handle.workflowId, 'approve', { approver: 'mallory' })).rejects.toThrow(/'mallory' is not an approver/);
    await expect(decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice', planHash: 'sha256:stale', gateId: 'apply' })).rejects.toThrow(/does not match the pending plan/);
    const receipt = await decide(env.t.client, handle.workflowId, 'reject', { approver: 'alice', comment: 'not today' });
    expect(receipt).toMatchObject({ decision: 'reject', gateId: 'apply', approver: 'alice', channel: 'cli' });
    // A person's decision, said in words and typed as one (exit 3, a fleet's `declined`), once the restore is done.
    const err = await workflowFailureOf(handle.result());
    expect(err).toMatchObject({ type: 'WsmigrateRejected' });
    expect(err.message).toMatch(new RegExp(`^${ws(4).owner}/${ws(4).name}: rejected by alice at the apply gate \\('not today'\\): nothing built on \\S+; restored: state and transition as before$`));
    expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).decision).toMatchObject({ gateId: 'apply', how: 'rejected', by: 'alice', comment: 'not today' });
    expect(typesIn(env.sim.stateOf(ws(4).id))).toEqual(typesIn(before));
    expect(await latestBuild(4)).toMatchObject({ transition: 'start', template_version_id: originalVersionId });
    expect(pvcUid(4)).toBe(uid);
    expect(env.notes.some((n) => n.kind === 'approval-requested' && n.workflowId === handle.workflowId)).toBe(true);
  });

  it('an approval timeout escalates once, then aborts and restores; it never proceeds', async () => {
    const handle = await startWorkspaceMigration(env.t.client, input(5, { option: 'B', approval: { policy: 'destructive', anyApprover: true, timeout: '2s', escalateTo: 'oncall-lead' } }), { taskQueue: env.taskQueue });
    // Escalated after 2s, then 2s more: said as a person would, with how long it waited.
    expect(await failureOf(handle.result())).toMatch(/: the apply gate timed out after [45]s with no decision \(escalated once\): nothing built on \S+; restored: state and transition as before$/);
    expect(await (await handle.describe()).memo).toMatchObject({ approvers: 'any (started with --any-approver)' });
    const kinds = env.notes.filter((n) => n.workflowId === handle.workflowId).map((n) => n.kind);
    expect(kinds).toEqual(expect.arrayContaining(['approval-requested', 'approval-timed-out', 'restored']));
    expect(kinds.filter((k) => k === 'approval-escalated')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'approval-requested')).toHaveLength(1);
    expect(env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === 'approval-escalated')?.escalateTo).toBe('oncall-lead');
    // Each message of the wait says on whom it waits, as status and the Web UI do.
    for (const kind of ['approval-requested', 'approval-escalated']) {
      expect(env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === kind)?.approvers).toBe('any name (the run was started with --any-approver)');
    }
    // It timed out at the 'apply' gate: nothing was built with the migrated state and it runs as before.
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.stepsDone).not.toContain('build');
    expect(status.phase).toBe('restored');
    const build = await latestBuild(5);
    expect(build.template_version_id).toBe(originalVersionId);
  });

  it('a stop gate nobody answers (policy all, option A) stops nothing: declined (exit 3), the workspace still running on its old version, its PVC the same', async () => {
    const before = await latestBuild(9);
    const uid = pvcUid(9);
    const handle = await startWorkspaceMigration(env.t.client, input(9, { option: 'A', approval: { policy: 'all', anyApprover: true, timeout: '1s' } }), { taskQueue: env.taskQueue });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe('WsmigrateRejected');
    expect(failure.message).toMatch(new RegExp(`^${ws(9).owner}/${ws(9).name}: the stop gate timed out after \\d+s with no decision \\(escalated once\\): nothing changed: ${ws(9).owner}/${ws(9).name} was not stopped$`));
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.stepsDone).not.toContain('stop');
    expect(status.approvals).toEqual([]);
    // No build of ours: not the stop, not a restore.
    expect(await latestBuild(9)).toMatchObject({ id: before.id, transition: 'start', template_version_id: originalVersionId });
    expect(pvcUid(9)).toBe(uid);
  });

  it('approves by signal (as `temporal workflow signal` would), ignoring an invalid one, with the pending gate in a search attribute', async () => {
    const uid = pvcUid(7);
    const handle = await startWorkspaceMigration(env.t.client, input(7, { approval: { policy: 'destructive', approvers: ['alice'] } }), { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval !== undefined);
    const pending = ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval!;
    await waitFor(async () => (await handle.describe()).typedSearchAttributes.get(WsmigratePendingApproval) === 'apply');
    await signalDecision(env.t.client, handle.workflowId, 'approve', { gateId: 'apply', planHash: pending.planHash, approver: 'mallory' });
    await waitFor(() => lastSignalProcessed(handle));
    expect(((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId).toBe('apply');
    // A signal claiming to come from Slack is still recorded as a signal: only chatops' update can say 'slack'.
    const claimsSlack = { gateId: 'apply', planHash: pending.planHash, approver: 'alice', channel: 'slack', slackUserId: 'UFAKE' } as Parameters<typeof signalDecision>[3];
    await signalDecision(env.t.client, handle.workflowId, 'approve', claimsSlack);
    expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
    const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
    expect(status.approvals).toEqual([expect.objectContaining({ gateId: 'apply', decision: 'approve', approver: 'alice', channel: 'signal', planHash: pending.planHash })]);
    expect(status.approvals[0].slackUserId).toBeUndefined();
    expect((await handle.describe()).typedSearchAttributes.get(WsmigratePendingApproval)).toBe('none');
    // The gate's closing notification (an activity input, so in the history) carries the signal's receipt.
    const closed = env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === 'approval-closed');
    expect(closed).toMatchObject({ gateId: 'apply', planHash: pending.planHash, decision: { approver: 'alice', decision: 'approve', channel: 'signal', at: expect.any(String) } });
    expect(pvcUid(7)).toBe(uid);
  });

  it('refuses at start a run whose gates would ask for approval with no approver named', async () => {
    await expect(startWorkspaceMigration(env.t.client, input(6, { approval: { policy: 'destructive' } }), { taskQueue: env.taskQueue })).rejects.toThrow(
      /approval\.approvers: .*--approver.*WSMIGRATE_APPROVERS.*--any-approver/,
    );
  });

  it('refuses bad input at once, naming the field', async () => {
    await expect(startWorkspaceMigration(env.t.client, { ...input(6), option: 'C' as never, targetVersionId: 'nope' }, { taskQueue: env.taskQueue })).rejects.toThrow(
      /targetVersionId: targetVersionId must be a template version UUID.*option/s,
    );
  });

  it('dry run reads, rewrites and verifies but changes nothing', async () => {
    const before = env.sim.requestLog().length;
    const result = await run(6, { dryRun: true });
    expect(result.outcome).toBe('dry-run');
    expect(result.verdict).toBe('allow');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });
});
