import type { WorkflowHandle } from '@temporalio/client';
import { controlFleet, fleetStatus, startFleet } from '../../src/client/fleet';
import { statusText } from '../../src/cli/fleet-render';
import { migrationStatus } from '../../src/client/migrations';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import { mostChildrenInFlight } from '../harness/history';
import { waitFor } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';
import { ACTIVE_VERSION_WATCH_MS } from '../../src/workflows/fleet-lock-watch';

const progressOf = async (env: MigrationEnv, id: string) => (await migrationStatus(env.t.client, id)) as FleetProgress;

/** Every build of the migrated template's workspaces, as the simulator recorded them. */
async function migrationBuilds(env: MigrationEnv) {
  const builds = [];
  for (const w of env.sim.workspaces().filter((x) => !x.name.startsWith('team-tools'))) {
    for (const b of await env.coder.workspaceBuilds(w.id)) if (b.build_number > 1) builds.push(b);
  }
  return builds;
}

describe("migrateFleet paced by Coder's provisioner daemons", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 4, buildLatencyMs: 150, provisioners: 2, moreTemplates: [{ name: 'team-tools', workspaces: 4, versioned: true }] }));
  });
  afterAll(async () => env?.close());

  const input = (): MigrateFleetInput => ({
    organization: 'coder',
    template: env.sim.template.name,
    targetVersionId,
    canary: 0,
    concurrency: 10,
    provisionerShare: 0.5,
    archiveOldVersions: false,
    requireActiveVersion: false,
    approval: { policy: 'none' },
  });

  it("waits while no daemon is online and while users' builds are queued, resumes after, survives a daemon going offline, keeps its window", async () => {
    const uidsBefore = pvcUids(env);
    const daemons = env.sim.provisionerDaemons().map((d) => d.name);
    for (const name of daemons) env.sim.setDaemonOffline(name);
    // Users press Start/Stop on another template's workspaces, faster than one daemon runs them.
    env.sim.startUserBuilds({ intervalMs: 100 });

    const handle = await startFleet(env.t.client, input(), { taskQueue: env.taskQueue });
    await waitFor(async () => /no provisioner daemon is online/.test((await progressOf(env, handle.workflowId)).pacing?.waiting ?? ''), 30_000);
    const atZero = await progressOf(env, handle.workflowId);
    expect(atZero.running).toEqual([]);
    expect(atZero.pacing).toMatchObject({ mode: 'paced', width: 0 });

    // One daemon back: the users' builds run first; the fleet says why it waits meanwhile.
    env.sim.setDaemonOffline(daemons[0] as string, false);
    await waitFor(async () => /users' own build/.test((await progressOf(env, handle.workflowId)).pacing?.waiting ?? ''), 30_000);
    expect((await progressOf(env, handle.workflowId)).running).toEqual([]);
    // The users stop pressing; their queue drains on both daemons and the fleet resumes.
    env.sim.stopUserBuilds();
    env.sim.setDaemonOffline(daemons[1] as string, false);

    // A daemon goes away mid-run (it finishes its job): the fleet goes on with the other one.
    await waitFor(async () => (await progressOf(env, handle.workflowId)).counts.migrated >= 1, 60_000);
    env.sim.setDaemonOffline(daemons[0] as string);
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 4, failed: 0, restored: 0, needsAttention: 0 });
    expect(env.sim.provisionerDaemons().map((d) => d.status)).toEqual(['offline', 'idle']);
    // Share 0.5 of 2 daemons is one slot: at most two migrations in flight (a migration builds for part
    // of its life), whatever --concurrency allows.
    const events = (await handle.fetchHistory()).events ?? [];
    expect(mostChildrenInFlight(events)).toBeGreaterThanOrEqual(1);
    expect(mostChildrenInFlight(events)).toBeLessThanOrEqual(2);
    // No build of the migration was created before every queued user's build had been taken by a daemon.
    const userBuilds = [];
    for (const w of env.sim.workspaces().filter((x) => x.name.startsWith('team-tools'))) userBuilds.push(...(await env.coder.workspaceBuilds(w.id)).filter((b) => b.build_number > 1));
    expect(userBuilds.length).toBeGreaterThanOrEqual(4);
    const userStarts = userBuilds.map((b) => Date.parse(b.job.started_at as string));
    const firstOurs = Math.min(...(await migrationBuilds(env)).map((b) => Date.parse(b.job.created_at)));
    expect(firstOurs).toBeGreaterThanOrEqual(Math.max(...userStarts));
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});

/** What each of the fleet's readings of the daemons decided, in order: 'hold', 'full' or 'room'. */
function readingsOf(events: NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>): string[] {
  return events
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === 'core_local_activity' && /readProvisionerCapacity/.test(Buffer.from(m.details?.data?.payloads?.[0]?.data ?? []).toString('utf8')))
    .map((m) => {
      const r = JSON.parse(Buffer.from(m?.details?.result?.payloads?.[0]?.data ?? []).toString('utf8')) as { decision?: { hold?: string; full?: boolean } };
      return r.decision?.hold ? 'hold' : r.decision?.full ? 'full' : 'room';
    });
}

describe('migrateFleet while its own builds fill the share', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    // Two daemons, share 1: two slots and up to four migrations at once; builds slow enough that ours fill both daemons.
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 6, buildLatencyMs: 1500, provisioners: 2 }));
  });
  afterAll(async () => env?.close());

  it('waits for a migration to end, with no timer, and reads the daemons again then', async () => {
    const uidsBefore = pvcUids(env);
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 10, provisionerShare: 1, archiveOldVersions: false, requireActiveVersion: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 6, failed: 0, restored: 0, needsAttention: 0 });
    const events = (await handle.fetchHistory()).events ?? [];
    const readings = readingsOf(events);
    // A reading found both daemons busy with our builds: no new migration started then...
    expect(readings).toContain('full');
    // ...and the fleet waited for one to end, not on a timer: no users' build queued, every daemon online.
    // (The active-version watch's minute timer runs beside every fleet with a target: not a pacing wait.)
    const watchTimer = String(ACTIVE_VERSION_WATCH_MS / 1000);
    expect(events.filter((e) => e.timerStartedEventAttributes && String(e.timerStartedEventAttributes.startToFireTimeout?.seconds) !== watchTimer)).toEqual([]);
    // A migration's end after a full reading was read as a chance that a daemon is free: the daemons were read again.
    expect(readings.lastIndexOf('full')).toBeLessThan(readings.length - 1);
    expect(mostChildrenInFlight(events)).toBeLessThanOrEqual(4);
    expect(pvcUids(env)).toEqual(uidsBefore);
  }, 180_000);
});

describe('migrateFleet without the daemons API', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    // Unlimited daemons: the simulator answers as a Coder without GET …/provisionerdaemons.
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 4 }));
  });
  afterAll(async () => env?.close());

  it('falls back to --concurrency, says so once, and migrates every workspace', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, archiveOldVersions: false, requireActiveVersion: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 4, failed: 0 });
    const progress = await progressOf(env, handle.workflowId);
    expect(progress.pacing).toMatchObject({ mode: 'fallback', width: 3 });
    expect(progress.pacing?.fallback).toMatch(/Coder answered 404 to GET \/organizations\/coder\/provisionerdaemons.*runs up to its concurrency of 3/);
    const history = await handle.fetchHistory();
    // One capacity reading: after the refusal it never asks again (the run's end reads the active version too, another local activity).
    const activityType = (e: (typeof history.events & object)[number]) => {
      const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type : undefined;
    };
    const readings = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && activityType(e) === 'readProvisionerCapacity');
    expect(readings).toHaveLength(1);
  }, 180_000);
});

describe('migrateFleet paced, at its canary gate', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3, provisioners: 2 }));
  });
  afterAll(async () => env?.close());

  it("`fleet status` asks to go on at the window the daemons allow (not --concurrency alone) and says how old the daemons' reading is", async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 10, provisionerShare: 0.5, archiveOldVersions: false, requireActiveVersion: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await progressOf(env, handle.workflowId)).pendingApproval?.gateId === 'fleet-continue', 90_000);
    const text = statusText(await fleetStatus(env.t.client, handle.workflowId));
    // Share 0.5 of 2 daemons is one slot, two migrations at once.
    expect(text).toMatch(/Continue fleet coder\/\S+ with the rest, up to 10 at a time, paced by Coder's provisioners: 2 now\?/);
    expect(text).toMatch(/paced: window 2 .* daemon\(s\) busy, 0 users' job\(s\) queued \(read \d+s ago\)/);
    await controlFleet(env.t.client, handle.workflowId, 'cancel', 'sre', 'seen the gate');
    await handle.result().catch(() => undefined);
  }, 180_000);
});
