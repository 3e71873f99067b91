import { isWrite } from '../harness/coder-requests';
import { CoderClient } from '../../src/adapters/coder';
import { controlFleet, fleetResult, fleetStatus, startFleet } from '../../src/client/fleet';
import { migrationStatus } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import { templateWorkflowId, workspaceWorkflowId } from '../../src/domain/migration-input';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import { failureOf, waitFor } from '../harness/wait';
import { createMigratedEnv, createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

const progressOf = async (env: MigrationEnv, id: string) => (await migrationStatus(env.t.client, id)) as FleetProgress;

describe('migrateFleet: template, canary, gate, window, archive', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 10 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('migrates the template first, waits at fleet-continue after the canary, migrates the rest, then archives the old version after approval', async () => {
    const original = env.sim.template.activeVersionId;
    const uids = () => env.sim.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.uid).sort();
    const uidsBefore = uids();
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, canary: 2, concurrency: 4, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    expect(handle.workflowId).toBe(`wsmigrate-fleet/coder/${env.sim.template.name}`);

    // The template child waits at its promote gate; the fleet lists it among its children's approvals.
    const templateId = templateWorkflowId('coder', env.sim.template.name);
    await waitFor(async () => (await progressOf(env, handle.workflowId)).childApprovals.some((a) => a.workflowId === templateId && a.gateId === 'template-promote'));
    expect((await progressOf(env, handle.workflowId)).phase).toBe('awaiting-approval');
    await decide(env.t.client, templateId, 'approve', { approver: 'sre' });

    await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-continue', 90_000);
    const atGate = await progressOf(env, handle.workflowId);
    expect(atGate.counts.migrated).toBe(2);
    expect(atGate.running).toEqual([]);
    expect(atGate.pendingApproval?.summary).toMatch(/Canary: 2 of 2 ok/);
    // This simulator lists no daemons (404), so pacing fell back and --concurrency alone is the window (the paced words: fleet-pacing.test.ts).
    expect(atGate.pendingApproval?.summary).toMatch(/with the rest, 4 at a time\?/);
    expect(env.notes.some((n) => n.kind === 'fleet-canary-done' && n.workflowId === handle.workflowId)).toBe(true);
    await expect(decide(env.t.client, handle.workflowId, 'approve', { approver: 'mallory' })).rejects.toThrow(/'mallory' is not an approver/);
    // While the fleet migrates, the template requires its active version: the owner of a migrated
    // workspace cannot start it on the old version (real Terraform destroys the PVC then).
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(true);
    const onTarget = [];
    for (const w of env.sim.workspaces()) if ((await env.coder.workspace(w.id)).latest_build.template_version_id === atGate.targetVersionId) onTarget.push(w);
    expect(onTarget).toHaveLength(2);
    const owner = new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(onTarget[0].owner), retry: { maxAttempts: 1 } });
    await expect(owner.createWorkspaceBuild(onTarget[0].id, { transition: 'start', template_version_id: original })).rejects.toThrow(/non-active version/);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre', comment: 'canary fine' });

    await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-archive', 120_000);
    const beforeArchive = await progressOf(env, handle.workflowId);
    expect(beforeArchive.counts.migrated).toBe(10);
    expect(beforeArchive.pendingApproval?.summary).toMatch(/Archive 1 old version/);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });

    const result = (await handle.result()) as FleetResult;
    expect(result.phase).toBe('done');
    expect(result.summary).toMatchObject({ migrated: 10, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0 });
    expect(result.summary.pvcUidsKept).toBe(10); // one home volume each
    expect(result.archive?.archived.map((v) => v.id)).toEqual([original]);
    // No old version can be built any more: the template's own setting is given back, and both fields say so.
    expect(result.archive?.activeVersion).toBe('switched-off');
    expect(result.activeVersionLock).toEqual({ state: 'given-back' });
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    expect(result.moreRemaining).toBe(false);
    expect(uids()).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);

    const described = await handle.describe();
    expect(described.memo).toMatchObject({ outcome: 'done', migrated: 10, pvcUidsKept: result.summary.pvcUidsKept });
    expect(described.searchAttributes.WsmigratePhase).toEqual(['done']);
    expect((await fleetStatus(env.t.client, handle.workflowId)).phase).toBe('done');

    // Archiving is tidiness, not a barrier: Coder (coderd/wsbuilder/wsbuilder.go) and the simulator still
    // build the archived pre-migration version when a build names it.
    const ws = env.sim.workspaces()[0]!;
    const downgrade = await env.coder.createWorkspaceBuild(ws.id, { transition: 'stop', template_version_id: original });
    expect(downgrade.template_version_id).toBe(original);
    expect((await env.coder.waitForBuild(downgrade.id)).job.status).toBe('succeeded');
    // What stays unguarded: the old version planned against the migrated state destroyed that home volume.
    expect(env.sim.cluster.pvcLosses()).toEqual([expect.objectContaining({ workspace: ws.id, buildId: downgrade.id })]);
  }, 240_000);
});

describe('migrateFleet: failure budget, pause, resume, cancel', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 8 }));
  });
  afterAll(async () => env?.close());

  const base = (): MigrateFleetInput => ({
    organization: 'coder',
    template: env.sim.template.name,
    targetVersionId,
    canary: 0,
    concurrency: 2,
    archiveOldVersions: false,
    approval: { policy: 'destructive', approvers: ['sre'] },
  });

  it("a gate nobody answers is a decision, not a failure: counted declined, apart from the failure budget (0 here), and the fleet goes on", async () => {
    // Every workspace's stop gate times out: each migration ends as it was (nothing stopped), declined.
    // Counted failed, the first one would have stopped the fleet at fleet-budget (its budget is 0).
    const handle = await startFleet(
      env.t.client,
      { ...base(), failureBudget: { percent: 0, min: 0 }, workspaceApproval: { policy: 'all', timeout: '1s' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.phase).toBe('done');
    expect(result.summary).toMatchObject({ declined: 8, failed: 0, needsAttention: 0, restored: 0, migrated: 0 });
    expect(result.failures).toEqual([]);
    expect(result.declines).toHaveLength(8);
    expect(result.declines![0].reason).toMatch(/: the stop gate timed out after [23]s with no decision \(escalated once\): nothing changed: \S+ was not stopped$/);
    expect(env.notes.some((n) => n.kind === 'fleet-budget-hit' && n.workflowId === handle.workflowId)).toBe(false);
    expect((await handle.describe()).memo).toMatchObject({ outcome: 'done', declined: 8, failed: 0 });
    expect(env.notes.find((n) => n.kind === 'fleet-done' && n.workflowId === handle.workflowId)?.text).toMatch(/0 failed, 8 declined at a gate \(rejected, or not answered in time: left as they were\)/);
    const shown = await fleetStatus(env.t.client, handle.workflowId);
    expect(shown.phase).toBe('done');
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 120_000);

  it('pause lets running migrations finish and starts none; resume continues; cancel ends it without abandoning a running one', async () => {
    const handle = await startFleet(env.t.client, base(), { taskQueue: env.taskQueue });
    await controlFleet(env.t.client, handle.workflowId, 'pause', 'sre', 'look at the first ones');
    await expect(controlFleet(env.t.client, handle.workflowId, 'pause', 'sre')).rejects.toThrow(/already paused/);
    // Until none runs and the window has announced the pause: a pause that lands before the window opens
    // (the fleet still switching require_active_version on) finds nothing running yet.
    await waitFor(async () => (await progressOf(env, handle.workflowId)).running.length === 0 && env.notes.some((n) => n.kind === 'fleet-paused' && n.workflowId === handle.workflowId), 90_000);
    const paused = await progressOf(env, handle.workflowId);
    expect(paused.phase).toBe('paused');
    const finishedWhilePaused = paused.finished;
    expect(finishedWhilePaused).toBeLessThanOrEqual(2);
    // The fleet has handled every child that ended while paused (none runs now): its history shows
    // that it started none after it accepted the pause.
    const events = (await handle.fetchHistory()).events ?? [];
    const pausedAt = events.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'pause');
    expect(pausedAt).toBeGreaterThan(0);
    expect(events.slice(pausedAt).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    expect((await progressOf(env, handle.workflowId)).finished).toBe(finishedWhilePaused);
    expect(env.notes.some((n) => n.kind === 'fleet-paused' && n.workflowId === handle.workflowId)).toBe(true);

    await controlFleet(env.t.client, handle.workflowId, 'resume', 'sre');
    await waitFor(async () => (await progressOf(env, handle.workflowId)).finished > finishedWhilePaused, 90_000);
    // The signal twin, as the Web UI sends it.
    await handle.signal('cancel', { by: 'sre', reason: 'enough for tonight' });
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(result.summary.migrated).toBeGreaterThan(finishedWhilePaused);
    // Every migration the fleet started has ended (none abandoned half-way), and no volume was lost.
    for (const ws of env.sim.workspaces()) {
      const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
      const d = await env.t.client.workflow.getHandle(id).describe().catch(() => undefined);
      if (d) expect(d.status.name).not.toBe('RUNNING');
    }
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);

  it("Temporal's own cancel (Web UI, `temporal workflow cancel`) is a fleet cancel: running migrations are not cancelled, they finish", async () => {
    const handle = await startFleet(env.t.client, base(), { taskQueue: env.taskQueue });
    await waitFor(async () => (await progressOf(env, handle.workflowId)).running.length > 0, 60_000);
    const runningIds = (await progressOf(env, handle.workflowId)).running.map((r) => r.workflowId);
    await handle.cancel();
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    for (const id of runningIds) {
      const d = await env.t.client.workflow.getHandle(id).describe();
      expect(d.status.name).toBe('COMPLETED');
    }
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 120_000);

  it('refuses bad input naming each field', async () => {
    await expect(
      startFleet(env.t.client, { ...base(), concurrency: 0, canary: -1, filters: { exclude: ['nobody'] }, targetVersionId: 'x' }, { taskQueue: env.taskQueue }),
    ).rejects.toThrow(/targetVersionId: .*filters\.exclude\.0: exclude entries are owner\/workspace.*concurrency: concurrency must be 1\.\.200.*canary: canary must be 0\.\.100/s);
  });
});

describe('migrateFleet: dry run, batches and re-runs', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 6 }));
  });
  afterAll(async () => env?.close());

  const run = async (extra: Partial<MigrateFleetInput>) =>
    (await (
      await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, approval: { policy: 'none' }, ...extra }, { taskQueue: env.taskQueue })
    ).result()) as FleetResult;

  it('a dry run reports every workspace and changes nothing', async () => {
    const before = env.sim.requestLog().length;
    const result = await run({ dryRun: true });
    expect(result.summary).toMatchObject({ dryRun: 6, migrated: 0, failed: 0 });
    expect(result.archive?.skipped).toBe('dry run');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  }, 120_000);

  it('a child reports its end by its result event alone: with no continue-as-new, no child signals and the fleet receives no signal', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, dryRun: true, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    expect(((await handle.result()) as FleetResult).summary).toMatchObject({ dryRun: 6, failed: 0 });
    const fleetEvents = (await handle.fetchHistory()).events ?? [];
    expect(fleetEvents.filter((e) => e.childWorkflowExecutionCompletedEventAttributes)).toHaveLength(6);
    expect(fleetEvents.filter((e) => e.workflowExecutionSignaledEventAttributes)).toEqual([]);
    for (const ws of env.sim.workspaces()) {
      const child = await env.t.client.workflow.getHandle(workspaceWorkflowId(env.sim.template.name, ws.owner, ws.name)).fetchHistory();
      expect((child.events ?? []).filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    }
  }, 120_000);

  it('a batch (limit) migrates only that many; the next run counts them already migrated and finishes the rest, then archives with no gate under policy none', async () => {
    const first = await run({ filters: { limit: 2 } });
    expect(first.summary).toMatchObject({ migrated: 2, skipped: 0 });
    expect(first.moreRemaining).toBe(true);
    expect(first.archive?.skipped).toBe('not every workspace is migrated yet');
    // Between batches no run watches the active version, so the batch gives the setting back as it ends (fleet-lock-window.test.ts).
    expect(first.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);

    const second = await run({ filters: { exclude: [] } });
    // The first batch's two are already migrated (on the target version, healthy), not "skipped".
    expect(second.summary).toMatchObject({ migrated: 4, alreadyMigrated: 2, skipped: 0, failed: 0 });
    expect(second.moreRemaining).toBe(false);
    expect(second.archive?.archived.map((v) => v.id)).toEqual([env.sim.template.originalVersionId]);
    // The second batch (another workflow) switches it on again, and gives it back once the old version is archived.
    expect(second.archive?.activeVersion).toBe('switched-off');
    expect(second.activeVersionLock).toEqual({ state: 'given-back' });
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});

describe('migrateFleet: a rejected template', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('fails with the template\'s own reason and touches no workspace', async () => {
    const before = env.sim.requestLog().length;
    const handle = await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'destructive', approvers: ['sre'] } }, { taskQueue: env.taskQueue });
    const templateId = templateWorkflowId('coder', env.sim.template.name);
    await waitFor(async () => (await progressOf(env, handle.workflowId)).childApprovals.some((a) => a.workflowId === templateId));
    await decide(env.t.client, templateId, 'reject', { approver: 'sre', comment: 'not this week' });
    expect(await failureOf(handle.result())).toMatch(/^template migration failed, no workspace was touched: template coder\/\S+: rejected by sre at the template-promote gate \('not this week'\): \S+ stays pushed but inactive/);
    const fleetStatusNow = await fleetStatus(env.t.client, handle.workflowId);
    expect(fleetStatusNow.phase).toBe('failed');
    const workspaceWrites = env.sim.requestLog().slice(before).filter((r) => isWrite(r) && r.path.includes('/workspace'));
    expect(workspaceWrites).toEqual([]);
  }, 120_000);
});

describe('migrateFleet: a workspace that needs attention', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }));
  });
  afterAll(async () => env?.close());

  it('is counted needs-attention, and a re-run leaves it for a human instead of migrating it again', async () => {
    const base: MigrateFleetInput = { organization: 'coder', template: env.sim.template.name, targetVersionId, option: 'B', canary: 0, concurrency: 1, approval: { policy: 'destructive', approvers: ['sre'] } };
    const first = await startFleet(env.t.client, { ...base, filters: { limit: 1 }, workspaceApproval: { policy: 'destructive' } }, { taskQueue: env.taskQueue });
    await waitFor(async () => (await progressOf(env, first.workflowId)).childApprovals.some((a) => a.gateId === 'apply'), 60_000);
    const childId = (await progressOf(env, first.workflowId)).childApprovals[0].workflowId;
    const [, , owner, name] = childId.split('/');
    const ws = env.sim.workspaces().find((w) => w.owner === owner && w.name === name)!;
    // Every start of it fails (a broken node): the migrated build fails, and so does each restore build.
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', message: 'injected: node broken' } });
    let r1: FleetResult;
    try {
      await decide(env.t.client, childId, 'approve', { approver: 'sre' });
      r1 = (await first.result()) as FleetResult;
    } finally {
      env.sim.setFaults(undefined);
    }
    expect(r1.summary.needsAttention).toBe(1);
    const runBefore = (await env.t.client.workflow.getHandle(childId).describe()).runId;

    const second = (await (await startFleet(env.t.client, { ...base, archiveOldVersions: false }, { taskQueue: env.taskQueue })).result()) as FleetResult;
    expect(second.summary).toMatchObject({ migrated: 2, needsAttention: 0, skipped: 1 });
    expect(ws).toBeDefined();
    expect(second.failures).toEqual([expect.objectContaining({ workflowId: childId, outcome: 'needs-attention', reason: 'skipped: its last migration ended needs-attention; restore it by hand (wsmigrate state restore …), then run the fleet again' })]);
    expect((await env.t.client.workflow.getHandle(childId).describe()).runId).toBe(runBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 150_000);
});

describe('migrateFleet: failures past the budget', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 4 }));
  });
  afterAll(async () => env?.close());

  it('stops starting migrations when losses exceed the budget, asks at fleet-budget, and a rejection cancels the fleet', async () => {
    // Every build carrying a migrated state replaces the home claim (the simulator's lossy build): each
    // migration ends needs-attention, the failure the budget exists for. (A rolled-back one, restored,
    // does not count: README, "Failure budget".)
    env.sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', transition: 'start' } });
    try {
      const handle = await startFleet(
        env.t.client,
        {
          organization: 'coder',
          template: env.sim.template.name,
          targetVersionId,
          canary: 0,
          concurrency: 2,
          archiveOldVersions: false,
          approval: { policy: 'destructive', approvers: ['sre'] },
          failureBudget: { percent: 0, min: 0 },
        },
        { taskQueue: env.taskQueue },
      );
      await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-budget', 120_000);
      await waitFor(async () => (await progressOf(env, handle.workflowId)).running.length === 0, 60_000);
      const p = await progressOf(env, handle.workflowId);
      expect(p.phase).toBe('awaiting-approval');
      // The first window of two; no third started after the first failure.
      expect(p.counts['needs-attention']).toBe(2);
      expect(p.counts.migrated + p.counts.restored + p.counts.failed + (p.counts.declined ?? 0)).toBe(0);
      expect(p.failures[0].reason).toMatch(/destroyed protected kubernetes_persistent_volume_claim\.home/);
      expect(env.notes.some((n) => n.kind === 'fleet-budget-hit' && n.workflowId === handle.workflowId)).toBe(true);
      await expect(controlFleet(env.t.client, handle.workflowId, 'resume', 'sre')).rejects.toThrow(/resume refused: the fleet is not paused/);
      await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
      const result = await fleetResult(env.t.client, handle.workflowId);
      expect(result.phase).toBe('cancelled');
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect(result.summary.migrated).toBe(0);
      expect(result.moreRemaining).toBe(true);
      // The two the window had started lost their claims (the planted fault); the fleet started no third.
      expect(env.sim.cluster.pvcLosses()).toHaveLength(2);
    } finally {
      env.sim.setFaults(undefined);
    }
  }, 240_000);
});
