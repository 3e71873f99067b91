import { mkdirSync, rmSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import type { WsmigrateActivities } from '../../src/activities';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus-metrics';
import { fleetStatus, startFleet } from '../../src/client/fleet';
import { startOrganizationMigration } from '../../src/client/organization';
import { statusText } from '../../src/cli/fleet-render';
import { fleetProgressQuery, type ActiveVersionLock, type FleetResult } from '../../src/contracts/migrate-fleet';
import { fleetWorkflowId, type MigrateFleetInput } from '../../src/domain/fleet-input';
import { api, homePvcName, waitForBuild } from '../sim/helpers';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { capturedWorkerLog } from '../harness/worker-log';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(300_000);

/**
 * require_active_version is held only while a fleet run runs (and watches the active version every
 * minute). Held between a schedule's windows, nothing would watch: an admin promoting the old version
 * then makes Coder's lifecycle executor autostart every migrated workspace on the *active* (old)
 * version with its `_v1` state (coderd/autobuild/lifecycle_executor.go useActiveVersion), which
 * destroys the PVC; and every unmigrated workspace's autostart goes to the new version, whose guard
 * fails the build until the next window repairs it. So each run gives it back as it ends.
 */

const requireActive = async (env: MigrationEnv) => (await env.coder.template(env.sim.template.id)).require_active_version === true;
const pvcUid = (env: MigrationEnv, id: string) => env.sim.cluster.pvc('coder', homePvcName(id))?.uid;

/** The owner stops the workspace (if running) and gives it an autostart schedule. */
async function stopAndSchedule(env: MigrationEnv, id: string, owner: string): Promise<void> {
  const token = env.sim.tokenOf(owner);
  if ((await env.coder.workspace(id)).latest_build.transition === 'start') {
    const res = await api<{ id: string }>(env.sim, 'POST', `/workspaces/${id}/builds`, { token, json: { transition: 'stop' } });
    expect(res.status).toBe(201);
    expect((await waitForBuild(env.sim, res.body.id, 60_000)).build.job.status).toBe('succeeded');
  }
  expect((await api(env.sim, 'PUT', `/workspaces/${id}/autostart`, { token, json: { schedule: 'CRON_TZ=UTC 30 9 * * 1-5' } })).status).toBe(204);
}

/** Coder's lifecycle executor, now, for this workspace: the build it made, once it ended. */
async function autostart(env: MigrationEnv, id: string) {
  const before = (await env.coder.workspace(id)).latest_build.build_number;
  expect((await api(env.sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [id] } })).status).toBe(200);
  const latest = (await env.coder.workspace(id)).latest_build;
  if (latest.build_number === before) return undefined;
  return (await waitForBuild(env.sim, latest.id, 60_000)).build;
}

/** The claim kept (same uid, no loss recorded), and no build on a version other than the target holds a `_v1` state. */
async function expectDataKept(env: MigrationEnv, id: string, uid: string | undefined, targetVersionId: string): Promise<void> {
  expect(pvcUid(env, id)).toBe(uid);
  expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === id)).toEqual([]);
  const v1Elsewhere: number[] = [];
  for (const b of await env.coder.workspaceBuilds(id, { limit: 50 })) {
    if (b.template_version_id === targetVersionId) continue;
    if ((await env.coder.getWorkspaceBuildState(b.id)).toString('utf8').includes('_v1"')) v1Elsewhere.push(b.build_number);
  }
  expect(v1Elsewhere).toEqual([]);
}

describe('a Premium fleet run in windows gives require_active_version back as each window ends', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const locks: ActiveVersionLock[] = [];

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        requireActiveVersion: async (i) => {
          const lock = await acts.requireActiveVersion(i);
          locks.push(lock);
          return lock;
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const window = async (extra: Partial<MigrateFleetInput>) => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 2, approval: { policy: 'none' }, ...extra },
      { taskQueue: env.taskQueue },
    );
    return { handle, result: (await handle.result()) as FleetResult };
  };

  it('between windows: a rollback autostarts migrated workspaces on their own version, unmigrated ones start; the next window holds it again and finishes', async () => {
    const original = env.sim.template.originalVersionId;
    const uids = new Map(env.sim.workspaces().map((w) => [w.id, pvcUid(env, w.id)]));

    // The first window: a batch of 2, which ends without archiving.
    const first = await window({ filters: { limit: 2 } });
    expect(first.result.summary).toMatchObject({ migrated: 2, failed: 0 });
    expect(first.result.moreRemaining).toBe(true);
    expect(locks).toEqual([{ state: 'switched-on' }]);
    expect(first.result.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    expect(await requireActive(env)).toBe(false);
    expect(statusText(await fleetStatus(env.t.client, first.handle.workflowId))).toMatch(/require active version: given back \(off\) as this run ended; the next run \(window\) switches it on again/);

    const onVersion = async (w: { id: string }) => (await env.coder.workspace(w.id)).latest_build.template_version_id;
    const migrated: { id: string; owner: string }[] = [];
    const unmigrated: { id: string; owner: string }[] = [];
    for (const w of env.sim.workspaces()) ((await onVersion(w)) === targetVersionId ? migrated : unmigrated).push(w);
    expect([migrated.length, unmigrated.length]).toEqual([2, 2]);

    // Monday morning, target active: an unmigrated workspace's autostart builds its own (old) version and succeeds.
    const [later] = unmigrated;
    await stopAndSchedule(env, later.id, later.owner);
    const mondays = await autostart(env, later.id);
    expect(mondays).toMatchObject({ transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    await expectDataKept(env, later.id, uids.get(later.id), targetVersionId);

    // An admin rolls the template back between windows, and the lifecycle executor autostarts the migrated workspaces.
    for (const w of migrated) await stopAndSchedule(env, w.id, w.owner);
    await env.coder.promoteTemplateVersion(env.sim.template.id, original);
    for (const w of migrated) {
      const b = await autostart(env, w.id);
      expect(b).toMatchObject({ transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
      await expectDataKept(env, w.id, uids.get(w.id), targetVersionId);
    }

    // The admin promotes the migrated version again; the next window switches the setting on, migrates the rest and archives.
    await env.coder.promoteTemplateVersion(env.sim.template.id, targetVersionId);
    const second = await window({});
    expect(locks).toEqual([{ state: 'switched-on' }, { state: 'switched-on' }]);
    expect(second.result.summary).toMatchObject({ migrated: 2, alreadyMigrated: 2, failed: 0, needsAttention: 0 });
    expect(second.result.moreRemaining).toBe(false);
    expect(second.result.archive?.activeVersion).toBe('switched-off');
    expect(second.result.activeVersionLock).toEqual({ state: 'given-back' });
    expect(await requireActive(env)).toBe(false);
    for (const w of env.sim.workspaces()) await expectDataKept(env, w.id, uids.get(w.id), targetVersionId);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});

describe('a Premium fleet keeps the setting while it runs (paused too) and gives it back when cancelled', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const gauge = async () => (await metrics.registry.getSingleMetric('wsmigrate_template_active_version_held')?.get())?.values.find((v) => v.labels.template === env.sim.template.name)?.value;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, licence: 'premium' });
    await env.startWorker({ metrics });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('held at its gate and while paused; Temporal\'s cancel ends it with the setting off, and its status says so', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 2, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 90_000);
    expect(await requireActive(env)).toBe(true);
    // A run that waits (a gate, an operator's pause) still runs and still watches: it keeps holding.
    await handle.signal('pause', { by: 'sre', reason: 'lunch' });
    await waitFor(async () => (await handle.query(fleetProgressQuery)).control.some((c) => c.action === 'pause'));
    const held = await handle.query(fleetProgressQuery);
    expect(held.activeVersionLock).toEqual({ state: 'switched-on' });
    expect(await requireActive(env)).toBe(true);
    expect(await gauge()).toBe(1);

    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    expect(await requireActive(env)).toBe(false);
    const status = await fleetStatus(env.t.client, handle.workflowId);
    expect(status.result?.phase).toBe('cancelled');
    expect(status.result?.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    expect(statusText(status)).toMatch(/require active version: given back \(off\) as this run ended/);
    expect(await gauge()).toBe(0);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});

describe("a template that required its active version before wsmigrate", () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, licence: 'premium' });
    await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await env.coder.setTemplateRequireActiveVersion(env.sim.template.id, true);
  });
  afterAll(async () => env?.close());

  it("keeps the operator's setting on after a window ends", async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(result.activeVersionLock).toEqual({ state: 'already-on', byWsmigrate: false });
    expect(await requireActive(env)).toBe(true);
    expect(statusText(await fleetStatus(env.t.client, handle.workflowId))).toMatch(/require active version: on \(the template's own setting\)/);
  });
});

describe('a Premium fleet that fails after it switched the setting on', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        // Every migration done; then the archive's plan fails for good (say, a token that lost a permission).
        planVersionArchive: async () => {
          throw ApplicationFailure.create({ message: 'planVersionArchive broke for this test', nonRetryable: true });
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('gives it back before it fails', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 2, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(await requireActive(env)).toBe(false);
    expect((await handle.query(fleetProgressQuery)).activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
  });
});

describe("an organization's run: each template's fleet gives its own setting back as it ends", () => {
  let env: MigrationEnv;
  let gpu: string;
  const heldBy = new Map<string, boolean>();

  beforeAll(async () => {
    gpu = uniqueTaskQueue('gpu');
    env = await createMigrationEnv({ workspaces: 2, licence: 'premium', moreTemplates: [{ name: gpu, workspaces: 2 }] });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        // As each fleet switches its template's setting on: is the other template's (an earlier fleet's) still on?
        requireActiveVersion: async (i) => {
          const other = i.template === gpu ? env.sim.template.name : gpu;
          heldBy.set(i.template, (await env.coder.templateByName('coder', other)).require_active_version === true);
          return acts.requireActiveVersion(i);
        },
      }),
    });
  });
  afterAll(async () => env?.close());

  it('one fleet after the other, neither template is left requiring its active version', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    const h = await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name, gpu], canary: 0, concurrency: 2, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    await h.result();
    expect([...heldBy.keys()].sort()).toEqual([env.sim.template.name, gpu].sort());
    expect([...heldBy.values()]).toEqual([false, false]);
    for (const t of [env.sim.template.name, gpu]) {
      expect((await env.coder.templateByName('coder', t)).require_active_version).toBe(false);
      expect((await fleetStatus(env.t.client, fleetWorkflowId('coder', t))).result?.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    }
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});

describe('a Premium fleet that continues as new', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const calls: string[] = [];

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 40, buildLatencyMs: 5, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        requireActiveVersion: async (i) => {
          calls.push('require');
          return acts.requireActiveVersion(i);
        },
        releaseActiveVersion: async (i) => {
          calls.push('release');
          return acts.releaseActiveVersion(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  }, 120_000);
  afterAll(async () => env?.close());

  it('holds the setting across its runs and gives it back once, as the last run ends', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 10, historyLimit: 200, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 40, failed: 0 });
    let runs = 0;
    for await (const _ of env.t.client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) runs += 1;
    expect(runs).toBeGreaterThan(1);
    expect(calls).toEqual(['require', 'release']);
    expect(result.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    expect(await requireActive(env)).toBe(false);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 240_000);
});

describe('a fleet whose give-back fails, then the next run', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let releaseFails = true;
  // Coder's error as a proxy in front of it may word it: long, so the note keeps its first 200 characters.
  const coderDown = `Coder answered 503 for this test: ${'upstream connect error or disconnect/reset before headers; '.repeat(6)}end`;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        // Say, Coder down as the first run ends.
        releaseActiveVersion: async (i) => {
          if (releaseFails) throw ApplicationFailure.create({ message: coderDown, nonRetryable: true });
          return acts.releaseActiveVersion(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('ends saying the setting is still on, unwatched, and how to switch it off; the next run gives it back as it ends', async () => {
    const window = async () => {
      const handle = await startFleet(
        env.t.client,
        { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, archiveOldVersions: false, approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      );
      return { handle, result: (await handle.result()) as FleetResult };
    };
    const first = await window();
    expect(first.result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(await requireActive(env)).toBe(true);
    expect(first.result.activeVersionLock).toEqual({ state: 'switched-on' });
    expect(first.result.note).toContain(
      `wsmigrate could not give require_active_version back on template coder/${env.sim.template.name} as this run ended (${coderDown.slice(0, 200)}): it stays on with no run watching the active version. Switch it off with \`coder templates edit ${env.sim.template.name} --require-active-version=false\``,
    );
    expect(first.result.note).not.toContain(coderDown.slice(200));
    // The worker's log says so too, naming the template and Coder's whole error, for whoever watches the worker rather than the run.
    expect(capturedWorkerLog().filter((l) => l.startsWith('[WARN] require_active_version was not given back at the end of the run') && l.includes(`coder/${env.sim.template.name}`) && l.includes(coderDown))).toHaveLength(1);
    const said = statusText(await fleetStatus(env.t.client, first.handle.workflowId));
    expect(said).toMatch(/require active version: still on after this run ended, and no run watches the active version: do not promote an old version/);

    // The next window finds wsmigrate's own setting still on, and gives it back as it ends.
    releaseFails = false;
    const second = await window();
    expect(second.result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(second.result.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    expect(await requireActive(env)).toBe(false);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});

describe('fleets that never held the setting end without touching it', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, licence: 'agpl' });
    await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const run = async (extra: Partial<MigrateFleetInput>) => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, archiveOldVersions: false, approval: { policy: 'none' }, ...extra },
      { taskQueue: env.taskQueue },
    );
    return { handle, result: (await handle.result()) as FleetResult };
  };

  it('on an AGPL Coder (nothing held): the ended run says not held, never given back', async () => {
    const { handle, result } = await run({});
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(result.activeVersionLock).toMatchObject({ state: 'not-held' });
    expect(statusText(await fleetStatus(env.t.client, handle.workflowId))).not.toMatch(/given back/);
  });

  it('started with bad input (temporal workflow start, the Web UI): fails at once naming the field, nothing asked', async () => {
    const handle = await env.t.client.workflow.start('migrateFleet', {
      taskQueue: env.taskQueue,
      workflowId: `wsmigrate-fleet/coder/bad-input-${Date.now()}`,
      args: [{ organization: 'coder', template: env.sim.template.name, targetVersionId, concurrency: 'many' }],
    });
    const failed = await Promise.race([handle.result().then(() => undefined, (err: unknown) => err as { cause?: { message?: string } }), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 45_000))]);
    expect(failed).not.toBe('hung');
    expect((failed as { cause?: { message?: string } } | undefined)?.cause?.message).toMatch(/concurrency must be a whole number/);
    expect(await requireActive(env)).toBe(false);
  }, 60_000);

  it('told not to require the active version: the run ends, nothing asked or given back', async () => {
    const { result } = await run({ requireActiveVersion: false });
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(result.activeVersionLock).toBeUndefined();
    expect(await requireActive(env)).toBe(false);
  });
});

describe("a fleet whose blob store lost wsmigrate's mark while the run held the setting", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let olderActivity = false;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        // Say, the worker now writes to a new, empty bucket: nothing says the setting is wsmigrate's.
        releaseActiveVersion: async (i) => {
          rmSync(env.blobDir, { recursive: true, force: true });
          mkdirSync(env.blobDir, { recursive: true });
          // A worker not upgraded yet (a rolling upgrade): its activity knows nothing of the run's word.
          if (olderActivity) return acts.releaseActiveVersion({ organization: i.organization, template: i.template });
          return acts.releaseActiveVersion(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('still gives it back as the run ends: the run itself switched it on, whatever the store says', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
    expect(await requireActive(env)).toBe(false);
    expect(result.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    const said = statusText(await fleetStatus(env.t.client, handle.workflowId));
    expect(said).toMatch(/require active version: given back \(off\) as this run ended/);
    expect(said).not.toMatch(/the template's own setting/);
  });

  it("on a worker whose activity still reads only the mark: the setting left on is never reported given back", async () => {
    olderActivity = true;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
    // Coder still requires the active version: the run says it is on, never that it was given back.
    expect(await requireActive(env)).toBe(true);
    expect(result.activeVersionLock).toEqual({ state: 'already-on', byWsmigrate: false });
    const said = statusText(await fleetStatus(env.t.client, handle.workflowId));
    expect(said).toMatch(/require active version: on \(the template's own setting\)/);
    expect(said).not.toMatch(/given back/);
  });
});
