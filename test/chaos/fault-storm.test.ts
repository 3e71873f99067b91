/**
 * Fault storms and stray users on the Coder simulator, with a real dev server: the fleet must end
 * every workspace migrated or restored (each restore with its reason), retry nothing past its budget,
 * lose no PVC, and find and recover every workspace a user damaged meanwhile, never reporting a
 * damaged one migrated. Sizes grow with WSMIGRATE_CHAOS_SCALE=full (make bench-reliability).
 */
import { migrationStatus } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { startFleet } from '../../src/client/fleet';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import { workspaceWorkflowId } from '../../src/domain/migration-input';
import { CoderClient } from '../../src/adapters/coder';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { chaosSeed, FULL_SCALE, reportFigures, seededRandom } from './fixtures/chaos-report';
import { fleetTruth, pvcUids, scanDamaged } from './fixtures/fleet-checks';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fleetInput = (env: MigrationEnv, targetVersionId: string, extra: Partial<MigrateFleetInput> = {}): MigrateFleetInput => ({
  organization: 'coder',
  template: env.sim.template.name,
  targetVersionId,
  canary: 0,
  concurrency: FULL_SCALE ? 10 : 5,
  archiveOldVersions: false,
  approval: { policy: 'none', approvers: ['sre'] },
  failureBudget: { percent: 100, min: 10_000 },
  ...extra,
});

/** Every activity attempt against the retry budget of its schedule; attempts past it would be a runaway retry. */
async function attemptsOverBudget(env: MigrationEnv, workflowId: string): Promise<{ overBudget: string[]; retried: number }> {
  const history = await env.t.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, { name: string; max: number }>();
  const overBudget: string[] = [];
  let retried = 0;
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { name: s.activityType?.name ?? '?', max: s.retryPolicy?.maximumAttempts ?? 0 });
    const st = e.activityTaskStartedEventAttributes;
    if (st) {
      const sched = scheduled.get(String(st.scheduledEventId));
      const attempt = st.attempt ?? 1;
      if (attempt > 1) retried++;
      if (sched && sched.max > 0 && attempt > sched.max) overBudget.push(`${workflowId} ${sched.name} attempt ${attempt} of ${sched.max}`);
    }
  }
  return { overBudget, retried };
}

describe('fault storm: 10% 500s, 5% 429s, 2% dropped connections, 5 s latency spikes, 5% failed builds', () => {
  const N = FULL_SCALE ? 100 : 16;
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: N, buildLatencyMs: 60, seed: chaosSeed() });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it(`${N} workspaces: 100% migrated or restored (each restore with its reason), nothing retried past its budget, 0 PVCs lost`, async () => {
    const originalVersionId = env.sim.template.activeVersionId;
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const uidsBefore = pvcUids(env.sim);
    env.sim.setFaults({
      error500Rate: 0.1,
      rate429: 0.05,
      retryAfterSeconds: 1,
      dropConnectionRate: 0.02,
      latencySpikeRate: 0.01,
      latencySpikeMs: 5000,
      // Every build, restores' included: a restore's stop or start that the provisioner fails is built again
      // (three tries), so a workspace whose migrated build and then its restore's stop both fail is restored,
      // not left needs-attention (seen in CI before restores retried their stop: 1 run in ~8).
      failBuilds: { rate: 0.05 },
    });
    const handle = await startFleet(env.t.client, fleetInput(env, targetVersionId), { taskQueue: env.taskQueue });
    const result = (await handle.result()) as FleetResult;
    const faults = env.sim.faultCounts();
    env.sim.setFaults(undefined);

    const truth = await fleetTruth(env.sim, env.coder, { targetVersionId, originalVersionId, uidsBefore, checkDuplicates: false });
    const s = result.summary;
    const restoredReasons = result.failures.filter((f) => f.outcome === 'restored');
    const budget = { overBudget: [] as string[], retried: 0 };
    for (const ws of env.sim.workspaces()) {
      const r = await attemptsOverBudget(env, workspaceWorkflowId(env.sim.template.name, ws.owner, ws.name));
      budget.overBudget.push(...r.overBudget);
      budget.retried += r.retried;
    }
    reportFigures('fault-storm', {
      workspaces: N,
      faults,
      summary: s,
      restoredWithReason: restoredReasons.filter((f) => f.reason.length > 0).length,
      notMigrated: result.failures.map((f) => `${f.subject} ${f.outcome}: ${f.reason}`),
      activityRetries: budget.retried,
      overBudget: budget.overBudget.length,
      pvcLosses: truth.pvcLosses,
      pvcsReplaced: truth.pvcsReplaced,
      scan: truth.scan.counts,
      damaged: await Promise.all(
        truth.scan.workspaces
          .filter((w) => w.health === 'damaged')
          .map(async (w) => ({
            workspace: w.workspace,
            reason: w.reason,
            builds: (await env.coder.workspaceBuilds(w.id, { limit: 12 })).map((b) => `#${b.build_number} ${b.transition} ${b.template_version_id === targetVersionId ? 'target' : b.template_version_id === originalVersionId ? 'original' : b.template_version_id.slice(0, 8)} ${b.job.status} by ${b.initiator_name ?? '?'}`),
          })),
      ),
    });

    // The storm really blew: every kind of fault was injected.
    expect(faults.http500).toBeGreaterThan(0);
    expect(faults.http429).toBeGreaterThan(0);
    expect(faults.dropped).toBeGreaterThan(0);
    // At the small size 5% leaves about a fifth of the runs with no failed build (a higher rate makes
    // compound failures, which the suite cannot tell from bugs, likelier): checked at full size only.
    expect(FULL_SCALE ? faults.buildFailed : 1).toBeGreaterThan(0);
    expect(FULL_SCALE ? faults.latencySpike : 1).toBeGreaterThan(0);

    expect(result.phase).toBe('done');
    expect(s.failed + s.needsAttention + s.skipped).toBe(0);
    expect(s.migrated + s.restored).toBe(N);
    expect(truth.onTarget).toHaveLength(s.migrated);
    expect(truth.onOriginal).toHaveLength(s.restored);
    expect(truth.elsewhere).toEqual([]);
    // Each restore says why, in the operator's words (not Temporal's wrapper).
    expect(restoredReasons).toHaveLength(s.restored);
    for (const f of restoredReasons) expect(f.reason).toMatch(/rolled back.*Cause: \S/);
    expect(budget.overBudget).toEqual([]);
    expect(truth.pvcLosses).toBe(0);
    expect(truth.pvcsReplaced).toBe(0);
    // Every workspace healthy by the scan: a restored one too (a failed stop of ours used to be left as
    // someone else's build, the workspace called restored while Coder showed it failed).
    expect(truth.scan.workspaces.filter((w) => w.health === 'damaged').map((w) => `${w.workspace}: ${w.reason}`)).toEqual([]);
    // The simulator's own record (failed builds, volumes and uids in the cluster and the states) as the
    // independent truth: none damaged by it either.
    expect(truth.simDamaged).toEqual([]);
  }, (FULL_SCALE ? 40 : 6) * 60_000);
});

type StrayAction = 'update' | 'restart' | 'start-old';

describe('stray users: Update, Restart and starts pinned to the old version while the fleet runs', () => {
  const N = FULL_SCALE ? 60 : 14;
  let env: MigrationEnv;
  /** Run before the fleet gives require_active_version back as it ends: the users stop first (after it, nothing holds them). */
  let beforeGiveBack: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: N, buildLatencyMs: 150 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        releaseActiveVersion: async (i) => {
          await beforeGiveBack();
          return acts.releaseActiveVersion(i);
        },
      }),
    });
  });
  afterAll(async () => env?.close());

  /** Approves every recovery a fleet's children ask for, as the on-call SRE would. */
  const approveRecoveries = (fleetId: string, stop: () => boolean) =>
    (async () => {
      let approved = 0;
      while (!stop()) {
        const p = (await migrationStatus(env.t.client, fleetId).catch(() => undefined)) as FleetProgress | undefined;
        for (const a of p?.childApprovals ?? []) {
          if (a.gateId !== 'recover') continue;
          await decide(env.t.client, a.workflowId, 'approve', { approver: 'sre' })
            .then(() => approved++)
            .catch(() => undefined);
        }
        await sleep(500);
      }
      return approved;
    })();

  it(`${N} workspaces: 0 PVCs lost, every damaged workspace found and recovered, none reported migrated while damaged`, async () => {
    const rnd = seededRandom(chaosSeed());
    const originalVersionId = env.sim.template.activeVersionId;
    const targetVersionId = (await env.migrateTemplate()).versionId;
    // The users act as themselves (workspace owners, not template admins), and "start pinned to the
    // old version" uses the real pre-migration version, unguarded: on a migrated workspace real
    // Terraform destroys the PVC with it. The fleet holds members to the active version meanwhile.
    const asOwner = new Map<string, CoderClient>();
    const ownerClient = (owner: string) => {
      if (!asOwner.has(owner)) asOwner.set(owner, new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(owner), retry: { maxAttempts: 1 } }));
      return asOwner.get(owner) as CoderClient;
    };
    let refusedOldStarts = 0;
    let attempts = 0;
    const uidsBefore = pvcUids(env.sim);
    const strays: { ws: string; action: StrayAction; buildNumber: number; status: string }[] = [];
    // One user is always first: Update on an unmigrated workspace, before the fleet reaches it (the
    // guarded build fails and forgets the PVC), so the run always has damage to find, however fast it goes.
    const earlyUser = env.sim.workspaces()[N - 1];
    const firstStray = await env.coder.waitForBuild((await env.sim.updateAndRestart(earlyUser.id)).startBuildId);
    strays.push({ ws: `${earlyUser.owner}/${earlyUser.name}`, action: 'update', buildNumber: firstStray.build_number, status: firstStray.job.status });

    const handle = await startFleet(env.t.client, fleetInput(env, targetVersionId, { concurrency: FULL_SCALE ? 8 : 4 }), { taskQueue: env.taskQueue });
    let fleetDone = false;
    // "While the fleet runs" ends when it gives the setting back (as it ends): from then on an old-version
    // start is the unguarded case the README names, so the users stop just before it.
    let usersStop = false;
    const approvals = approveRecoveries(handle.workflowId, () => fleetDone);
    const startOld = (ws: { id: string; owner: string }) =>
      ownerClient(ws.owner)
        .createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: originalVersionId })
        .then((b) => b.id)
        .catch((err: Error) => {
          if (/non-active version/.test(err.message)) refusedOldStarts++;
          throw err;
        });
    const users = (async () => {
      // Once the fleet holds members to the active version, one owner always tries the old version first.
      await waitFor(async () => usersStop || (await env.coder.template(env.sim.template.id)).require_active_version === true, 60_000);
      for (const ws of env.sim.workspaces()) {
        if (refusedOldStarts > 0 || fleetDone || usersStop) break;
        await startOld(ws).catch(() => undefined);
      }
      while (!fleetDone && !usersStop) {
        await sleep(200 + rnd() * 400);
        const ws = env.sim.workspaces()[Math.floor(rnd() * N)];
        const action: StrayAction = (['update', 'restart', 'start-old'] as const)[Math.floor(rnd() * 3)];
        attempts++;
        try {
          let buildId: string;
          if (action === 'update') buildId = (await env.sim.updateAndRestart(ws.id)).startBuildId;
          else if (action === 'restart') {
            const owner = ownerClient(ws.owner);
            await env.coder.waitForBuild((await owner.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
            // As `coder restart` does when the template requires the active version: start again with it.
            buildId = (
              await owner.createWorkspaceBuild(ws.id, { transition: 'start' }).catch((err: Error) => {
                if (!/non-active version/.test(err.message)) throw err;
                return owner.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: env.sim.template.activeVersionId });
              })
            ).id;
          } else buildId = await startOld(ws);
          const b = await env.coder.waitForBuild(buildId);
          strays.push({ ws: `${ws.owner}/${ws.name}`, action, buildNumber: b.build_number, status: b.job.status });
        } catch {
          // A build was running (the fleet's or another user's): the UI would say so too.
        }
      }
    })();
    beforeGiveBack = async () => {
      usersStop = true;
      await users.catch(() => undefined);
    };
    const first = (await handle.result()) as FleetResult;
    fleetDone = true;
    await users;
    const approvedInFirst = await approvals;

    // After the storm of users, the scan (wsmigrate scan) finds who is damaged; none of them may have
    // been reported migrated by a run that ended after the damage.
    const firstTruth = await fleetTruth(env.sim, env.coder, { targetVersionId, originalVersionId, uidsBefore, checkDuplicates: false });
    const afterFirst = firstTruth.scan;
    // The simulator's own record as the independent truth: the scan calls damaged exactly the workspaces it shows damaged.
    expect(scanDamaged(firstTruth)).toEqual(firstTruth.simDamaged);
    const damagedAfterFirst = afterFirst.workspaces.filter((w) => w.health === 'damaged');
    const reportedMigratedWhileDamaged: string[] = [];
    for (const row of damagedAfterFirst) {
      const [owner, name] = row.workspace.split('/');
      const child = env.t.client.workflow.getHandle(workspaceWorkflowId(env.sim.template.name, owner, name));
      const r = (await child.result().catch(() => undefined)) as WorkspaceMigrationResult | undefined;
      if (r?.outcome !== 'migrated' || !r.startBuildId) continue;
      const start = await env.coder.workspaceBuild(r.startBuildId);
      if ((row.damaged?.since ?? 0) <= start.build_number) reportedMigratedWhileDamaged.push(row.workspace);
    }

    // A second run of the fleet (as the schedule would) takes every workspace not migrated, damaged ones included.
    const second = await startFleet(env.t.client, fleetInput(env, targetVersionId), { taskQueue: env.taskQueue, workflowId: `${handle.workflowId}-again` });
    let secondDone = false;
    const approvals2 = approveRecoveries(second.workflowId, () => secondDone);
    const secondResult = (await second.result()) as FleetResult;
    secondDone = true;
    const approvedInSecond = await approvals2;

    const truth = await fleetTruth(env.sim, env.coder, { targetVersionId, originalVersionId, uidsBefore, checkDuplicates: false });
    const damagingStrays = strays.filter((x) => x.status === 'failed');
    reportFigures('stray-users', {
      workspaces: N,
      strayAttempts: attempts,
      strayBuilds: strays.length,
      strayByAction: Object.fromEntries((['update', 'restart', 'start-old'] as const).map((a) => [a, strays.filter((x) => x.action === a).length])),
      strayBuildsFailed: damagingStrays.length,
      oldVersionStartsRefused: refusedOldStarts,
      recovered: (first.summary.recovered ?? 0) + (secondResult.summary.recovered ?? 0),
      recoveriesApproved: approvedInFirst + approvedInSecond,
      damagedAfterFirstRun: damagedAfterFirst.length,
      reportedMigratedWhileDamaged: reportedMigratedWhileDamaged.length,
      firstRun: first.summary,
      firstRunNotMigrated: first.failures.map((f) => `${f.subject} ${f.outcome}: ${f.reason}`),
      secondRun: secondResult.summary,
      finalScan: truth.scan.counts,
      finalNotMigrated: truth.scan.workspaces.filter((w) => w.health !== 'migrated').map((w) => `${w.workspace} ${w.health}: ${w.reason}`),
      pvcLosses: truth.pvcLosses,
      pvcsReplaced: truth.pvcsReplaced,
    });

    expect(attempts).toBeGreaterThanOrEqual(N / 5); // users were busy: how many got a build in depends on how fast the fleet went
    expect(damagingStrays.length).toBeGreaterThan(0); // users really damaged workspaces
    // No owner got a build on the old version while the fleet ran: Coder refused each one.
    expect(refusedOldStarts).toBeGreaterThan(0);
    expect(strays.filter((x) => x.action === 'start-old')).toEqual([]);
    expect(reportedMigratedWhileDamaged).toEqual([]);
    expect(truth.pvcLosses).toBe(0);
    expect(truth.pvcsReplaced).toBe(0);
    // Every damaged workspace found and recovered, or reported: at the end each workspace is migrated
    // (Coder's own view, read by the scan), or was reported needs-attention with its reason (the fleet
    // then holds it back for a human), and the scan names what is wrong with it.
    const reported = new Map([...first.failures, ...secondResult.failures].map((f) => [f.subject, f.reason]));
    const notMigrated = truth.scan.workspaces.filter((w) => w.health !== 'migrated');
    for (const w of notMigrated) {
      expect(reported.get(w.workspace)).toMatch(/\S/);
      expect(w.reason).toMatch(/\S/);
    }
    expect(truth.scan.counts.migrated + notMigrated.length).toBe(N);
    // By the simulator's own record too: whatever is damaged at the end is what the scan found, and was reported.
    expect(scanDamaged(truth)).toEqual(truth.simDamaged);
    for (const w of truth.simDamaged) expect(reported.get(w)).toMatch(/\S/);
    expect(truth.scan.counts.migrated).toBeGreaterThanOrEqual(N - reported.size);
    expect(secondResult.summary.failed + secondResult.summary.needsAttention).toBe(0);
  }, (FULL_SCALE ? 40 : 6) * 60_000);
});
