import { decide } from '../../src/client/approvals';
import { controlFleet, fleetResult, startFleet } from '../../src/client/fleet';
import { migrationStatus } from '../../src/client/migrations';
import type { FleetProgress } from '../../src/contracts/migrate-fleet';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import { waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

const progressOf = async (env: MigrationEnv, id: string) => (await migrationStatus(env.t.client, id)) as FleetProgress;

/**
 * The fleet-budget gate after a loss (the first migration's build replaced its home claim: needs
 * attention), one migration at a time, a budget of none. Approved, the fleet accepts the failures so
 * far and goes on with the rest, asking again only at a new failure. Unanswered, it never goes on by
 * itself: the fleet is cancelled and starts nothing more. (migrate-fleet.test.ts has the rejection.)
 * And a fleet cancelled while paused, or while it waits at that gate, ends at once.
 */
describe('the fleet-budget gate, and a cancel while paused', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeEach(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }));
    // The first build carrying a migrated state replaces the home claim; the later ones keep it.
    env.sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', transition: 'start', times: 1 } });
  });
  afterEach(async () => env?.close());

  const fleetInput = (timeout: string): MigrateFleetInput => ({
    organization: 'coder',
    template: env.sim.template.name,
    targetVersionId,
    option: 'B',
    canary: 0,
    concurrency: 1,
    archiveOldVersions: false,
    approval: { policy: 'destructive', approvers: ['sre'], timeout },
    failureBudget: { percent: 0, min: 0 },
  });

  it('approved: the failure so far is accepted, the rest migrate, and it is not asked again', async () => {
    const handle = await startFleet(env.t.client, fleetInput('7d'), { taskQueue: env.taskQueue });
    await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-budget', 120_000);
    const asked = (await progressOf(env, handle.workflowId)).pendingApproval!;
    expect((await progressOf(env, handle.workflowId)).counts['needs-attention']).toBe(1);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    // Either it ends, or it asks again (a new request): only the first is right.
    await waitFor(async () => {
      const p = await progressOf(env, handle.workflowId);
      return p.phase === 'done' || (p.pendingApproval !== undefined && p.pendingApproval.requestedAt !== asked.requestedAt);
    }, 120_000);
    expect((await progressOf(env, handle.workflowId)).pendingApproval).toBeUndefined();
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('done');
    expect(result.summary).toMatchObject({ migrated: 2, needsAttention: 1 });
    expect(env.notes.filter((n) => n.kind === 'fleet-budget-hit' && n.workflowId === handle.workflowId)).toHaveLength(1);
  });

  it('unanswered (timed out, escalated once): the fleet is cancelled and starts nothing more', async () => {
    const handle = await startFleet(env.t.client, fleetInput('1s'), { taskQueue: env.taskQueue });
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect(result.cancelledBy).toMatchObject({ by: 'fleet-budget gate' });
    expect(result.summary).toMatchObject({ migrated: 0, needsAttention: 1 });
    expect(result.moreRemaining).toBe(true);
    // One migration started (the one that lost its claim); none after the gate.
    expect(env.sim.cluster.pvcLosses()).toHaveLength(1);
    const kinds = env.notes.filter((n) => n.workflowId === handle.workflowId).map((n) => n.kind);
    expect(kinds).toEqual(expect.arrayContaining(['fleet-budget-hit', 'approval-escalated', 'approval-timed-out']));
  });
  it('a paused fleet cancelled while paused ends cancelled at once, starting nothing more', async () => {
    env.sim.setFaults(undefined);
    const handle = await startFleet(env.t.client, { ...fleetInput('7d'), concurrency: 1 }, { taskQueue: env.taskQueue });
    await waitFor(async () => (await progressOf(env, handle.workflowId)).counts.migrated >= 1, 120_000);
    await controlFleet(env.t.client, handle.workflowId, 'pause', 'sre');
    // The window has seen the pause (it says so once) and waits for a resume or a cancel.
    await waitFor(async () => env.notes.some((n) => n.kind === 'fleet-paused' && n.workflowId === handle.workflowId), 60_000);
    await waitFor(async () => (await progressOf(env, handle.workflowId)).running.length === 0, 120_000);
    const started = (await progressOf(env, handle.workflowId)).counts.migrated;
    await controlFleet(env.t.client, handle.workflowId, 'cancel', 'sre', 'not today');
    await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 30_000);
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect(result.cancelledBy).toEqual({ by: 'sre', reason: 'not today' });
    expect(result.summary.migrated).toBe(started);
    expect(result.moreRemaining).toBe(true);
  });
  it('cancelled while it waits at the budget gate: the cancel answers the gate, and the fleet ends at once', async () => {
    const handle = await startFleet(env.t.client, fleetInput('7d'), { taskQueue: env.taskQueue });
    await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-budget', 120_000);
    await controlFleet(env.t.client, handle.workflowId, 'cancel', 'sre', 'enough for today');
    await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 30_000);
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect(result.cancelledBy).toEqual({ by: 'sre', reason: 'enough for today' });
    expect(result.summary).toMatchObject({ migrated: 0, needsAttention: 1 });
    expect(env.sim.cluster.pvcLosses()).toHaveLength(1);
  });
});
