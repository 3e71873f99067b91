import { randomUUID } from 'node:crypto';
import { decide } from '../../src/client/approvals';
import { startFleet } from '../../src/client/fleet';
import { controlFleetSchedule, createFleetSchedule } from '../../src/client/schedules';
import { createOrganizationSchedule } from '../../src/client/organization';
import type { OrganizationResult } from '../../src/contracts/migrate-organization';
import { fleetProgressQuery } from '../../src/contracts/migrate-fleet';
import { failureOf, waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';

/** A fleet of the template started by hand, its canary done and waiting at its fleet-continue gate. */
async function handFleetAtItsGate(env: MigrationEnv, template: string, targetVersionId: string) {
  const hand = await startFleet(
    env.t.client,
    { organization: 'coder', template, targetVersionId, canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
    { taskQueue: env.taskQueue },
  );
  await waitFor(async () => (await hand.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 60_000);
  return hand;
}

jest.setTimeout(240_000);

/**
 * Hazard drive, rounds 1 and 2: `wsmigrate schedule trigger`/`unpause` refuse while a fleet of the
 * template runs, but `temporal schedule trigger` (Temporal runs a trigger of a paused schedule) and
 * `temporal schedule toggle --unpause` ask nobody. The window then migrated the workspaces behind the
 * hand fleet's canary gate. Now the window's fleet asks Temporal as it starts and refuses before any change.
 */
describe('a paused schedule triggered with Temporal\'s own CLI while a fleet of its template runs by hand', () => {
  let env: MigrationEnv;
  const name = `beside-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3 });
    await env.startWorker();
  });
  afterAll(async () => {
    await env?.t.client.schedule.getHandle(`wsmigrate-${name}`).delete().catch(() => undefined);
    await env?.close();
  });

  it('the window refuses before any change, naming the hand fleet; the hand fleet goes on', async () => {
    const uids = pvcUids(env);
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const template = env.sim.template.name;
    const hand = await handFleetAtItsGate(env, template, targetVersionId);

    const scheduleId = await createFleetSchedule(
      env.t.client,
      name,
      { organization: 'coder', template, targetVersionId, canary: 0, concurrency: 2, archiveOldVersions: false, approval: { policy: 'none' } },
      { cron: '0 2 * * 6', batch: 5, taskQueue: env.taskQueue },
    );
    const schedule = env.t.client.schedule.getHandle(scheduleId);
    await schedule.pause('paused while the hand fleet runs');
    // What `temporal schedule trigger` does: Temporal's own call, which asks wsmigrate nothing.
    await schedule.trigger();
    let windowId: string | undefined;
    await waitFor(async () => {
      windowId = (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId;
      return windowId !== undefined;
    }, 30_000);
    const failure = await failureOf(env.t.client.workflow.getHandle(windowId as string).result());
    expect(failure).toMatch(new RegExp(`window ${windowId} of coder/${template} refused before any change: ${hand.workflowId} \\(started by hand\\) migrates this template now`));

    // Nothing migrated behind the gate: the canary's one workspace, the two others still on their first build.
    const builds = await Promise.all(env.sim.workspaces().map(async (w) => (await env.coder.workspace(w.id)).latest_build.build_number));
    expect(builds.filter((n) => n === 1)).toHaveLength(2);
    expect((await hand.query(fleetProgressQuery)).pendingApproval?.gateId).toBe('fleet-continue');
    await decide(env.t.client, hand.workflowId, 'approve', { approver: 'sre' });
    await hand.result();
    expect(pvcUids(env)).toEqual(uids);
  });
});

/**
 * An organization's window triggered the same way: its fleet of the template takes the id of the fleet
 * started by hand, which Temporal refuses ("Workflow execution already started"). The organization's
 * row said only Temporal's words; it names the running fleet and what to do now.
 */
describe('an organization window triggered with Temporal\'s own CLI while a fleet of one of its templates runs by hand', () => {
  let env: MigrationEnv;
  const name = `org-beside-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => {
    await env?.t.client.schedule.getHandle(`wsmigrate-${name}`).delete().catch(() => undefined);
    await env?.close();
  });

  it('the template row names the running fleet and what to do', async () => {
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const template = env.sim.template.name;
    const hand = await handFleetAtItsGate(env, template, targetVersionId);
    const scheduleId = await createOrganizationSchedule(
      env.t.client,
      name,
      { organization: 'coder', templates: [template], canary: 0, concurrency: 2, archiveOldVersions: false, approval: { policy: 'none' } },
      { cron: '0 2 * * 6', batch: 5, taskQueue: env.taskQueue },
    );
    const schedule = env.t.client.schedule.getHandle(scheduleId);
    await schedule.pause('paused while the hand fleet runs');
    await schedule.trigger();
    let windowId: string | undefined;
    await waitFor(async () => {
      windowId = (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId;
      return windowId !== undefined;
    }, 30_000);
    const result = (await env.t.client.workflow.getHandle(windowId as string).result()) as OrganizationResult;
    const row = result.templates.find((r) => r.template === template);
    expect(row?.state).toBe('failed');
    expect(row?.note).toMatch(new RegExp(`not started: ${hand.workflowId} already runs .*Let it end \\(wsmigrate fleet status ${hand.workflowId}\\)`));
    await decide(env.t.client, hand.workflowId, 'approve', { approver: 'sre' });
    await hand.result();
  });
});

/** Hazard drive, round 2: a schedule deleted (or paused) while its window runs: the window goes on, and is now said to. */
describe('a schedule deleted while its window runs', () => {
  let env: MigrationEnv;
  const name = `deleted-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('pause and delete name the window still running', async () => {
    const targetVersionId = (await env.migrateTemplate()).versionId;
    await createFleetSchedule(
      env.t.client,
      name,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { cron: '0 2 * * 6', batch: 5, taskQueue: env.taskQueue },
    );
    const { triggered } = await controlFleetSchedule(env.t.client, name, 'trigger');
    const windowId = triggered?.started as string;
    expect(windowId).toBeDefined();
    const window = env.t.client.workflow.getHandle(windowId);
    await waitFor(async () => (await window.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 60_000);
    expect((await controlFleetSchedule(env.t.client, name, 'pause')).stillRunning).toEqual([windowId]);
    expect((await controlFleetSchedule(env.t.client, name, 'delete')).stillRunning).toEqual([windowId]);
    expect((await window.describe()).status.name).toBe('RUNNING');
    await decide(env.t.client, windowId, 'reject', { approver: 'sre' });
  });
});
