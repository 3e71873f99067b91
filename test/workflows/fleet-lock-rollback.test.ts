import { WorkflowFailedError } from '@temporalio/client';
import { CoderClient } from '../../src/adapters/coder';
import { controlFleet, startFleet } from '../../src/client/fleet';
import { fleetProgressQuery, type FleetProgress } from '../../src/contracts/migrate-fleet';
import { coderLockMarks } from '../../src/worker/lock-marks';
import { api, homePvcName, waitForBuild } from '../sim/helpers';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

/** A simulator of `licence`, a worker with the short timers (the minute's watch takes 0.6 s), the template migrated. */
async function migratedWithShortTimers(workspaces: number, licence: 'premium' | 'agpl'): Promise<{ env: MigrationEnv; targetVersionId: string }> {
  const env = await createMigrationEnv({ workspaces, licence });
  await env.startWorker({ workflowInterceptorModules: [require.resolve('./fixtures/short-timers')] });
  return { env, targetVersionId: (await env.migrateTemplate()).versionId };
}

/** The fleet each rollback test runs: every workspace at once, an archive gate to wait at. */
function rollbackFleet(env: MigrationEnv, targetVersionId: string): MigrateFleetInput {
  return { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 2, approval: { policy: 'destructive', approvers: ['sre'] } };
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await read().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  console.warn(`gave up waiting for ${what}`);
  return undefined;
}

/**
 * An admin promotes the pre-migration version again (a rollback) while a fleet holds the template's
 * require_active_version (Premium). With the setting on, Coder's autostart builds the *active*
 * version (coderd/autobuild/lifecycle_executor.go useActiveVersion): on a migrated workspace's `_v1`
 * state that plans the claim away. The fleet must give its setting back as soon as the active
 * version is not its target (then autostart builds the previous build's version, the migrated one),
 * pause, and say why. Timers are shortened (fixtures/short-timers): the minute's watch takes 0.6 s.
 */
describe('an old version promoted again while the fleet holds require_active_version', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => ({ env, targetVersionId } = await migratedWithShortTimers(2, 'premium')));
  afterAll(async () => env?.close());

  it('gives the setting back, pauses the fleet and says why; the autostart that follows keeps the PVC', async () => {
    const original = env.sim.template.originalVersionId;
    const [ws] = env.sim.workspaces();
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startFleet(
      env.t.client,
      rollbackFleet(env, targetVersionId),
      { taskQueue: env.taskQueue },
    );
    // Every workspace migrated; the fleet holds the lock and waits at its archive gate.
    const atGate = await until('the fleet-archive gate', async () => {
      const p = await handle.query(fleetProgressQuery);
      return p.pendingApproval?.gateId === 'fleet-archive' ? p : undefined;
    });
    expect(atGate).toBeDefined();
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(true);

    // The owner stops the migrated workspace (on its previous build's version, the migrated one) and schedules an autostart.
    const owner = new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(ws.owner), retry: { maxAttempts: 1 } });
    const stop = await owner.createWorkspaceBuild(ws.id, { transition: 'stop' });
    expect((await waitForBuild(env.sim, stop.id)).build.job.status).toBe('succeeded');
    expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/autostart`, { token: env.sim.tokenOf(ws.owner), json: { schedule: 'CRON_TZ=UTC 0 9 * * *' } })).status).toBe(204);

    // An admin rolls the template back.
    await env.coder.promoteTemplateVersion(env.sim.template.id, original);
    await until('require_active_version given back', async () => ((await env.coder.template(env.sim.template.id)).require_active_version ? undefined : true), 20_000);

    // Coder's lifecycle executor fires the autostart.
    const tick = await api(env.sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [ws.id] } });
    expect(tick.status).toBe(200);
    const started = await until('the autostart build', async () => {
      const w = await env.coder.workspace(ws.id);
      return w.latest_build.transition === 'start' ? w.latest_build.id : undefined;
    });
    const build = started ? (await waitForBuild(env.sim, started)).build : undefined;
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(build?.template_version_id).toBe(targetVersionId);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);

    const p: FleetProgress = await handle.query(fleetProgressQuery);
    expect(p.phase).toBe('awaiting-approval');
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    expect(p.note).toContain(`no longer the migrated version ${targetVersionId}`);
    expect(p.note).toContain('switched require_active_version off');
    expect(p.control.at(-1)).toMatchObject({ action: 'pause', by: 'wsmigrate' });
    expect(env.notes.some((n) => n.kind === 'fleet-paused' && n.text.includes('no longer the migrated version'))).toBe(true);
    await handle.cancel();
  });
});

/**
 * The same rollback on a Coder without Premium, where the fleet holds nothing (require_active_version
 * is ignored): every migrated workspace now shows an update to the old version, and a user's "Update"
 * builds it on the `_v1` state and destroys the PVC. wsmigrate cannot stop that build; the fleet must
 * stop adding to it, pause, and tell the operator to promote the migrated version again.
 */
describe('an old version promoted again while a fleet runs on a Coder without Premium', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => ({ env, targetVersionId } = await migratedWithShortTimers(2, 'agpl')));
  afterAll(async () => env?.close());

  it('pauses the fleet and says to promote the migrated version again, before more users press Update', async () => {
    const handle = await startFleet(
      env.t.client,
      rollbackFleet(env, targetVersionId),
      { taskQueue: env.taskQueue },
    );
    await until('the fleet-archive gate', async () => ((await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-archive' ? true : undefined));
    expect((await handle.query(fleetProgressQuery)).control).toEqual([]);

    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    const p = await until('the fleet to pause', async () => {
      const q = await handle.query(fleetProgressQuery);
      return q.control.some((c) => c.action === 'pause') ? q : undefined;
    }, 20_000);
    expect(p?.control.at(-1)).toMatchObject({ action: 'pause', by: 'wsmigrate' });
    expect(p?.note).toContain(`no longer the migrated version ${targetVersionId}`);
    expect(p?.note).toContain(`A user's "Update" of a migrated workspace`);
    expect(p?.note).toContain(`promote ${targetVersionId} again now`);
    expect(p?.note).not.toContain('switched require_active_version off');
    expect(env.notes.some((n) => n.kind === 'fleet-paused' && n.text.includes('no longer the migrated version'))).toBe(true);
    await handle.cancel();
  });
});

/**
 * The operator does what the pause says (promotes the migrated version again, resumes), and later
 * someone rolls the template back a second time. The fleet must still be watching: a watch that
 * ended with the first rollback leaves the rest of the run, and its final summary, saying nothing
 * of the second one (and still saying "the fleet is paused" after the version came back).
 */
describe('the template rolled back twice while a fleet runs', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => ({ env, targetVersionId } = await migratedWithShortTimers(2, 'agpl')));
  afterAll(async () => env?.close());

  it('says when the migrated version is active again, and pauses again at the second rollback', async () => {
    const handle = await startFleet(
      env.t.client,
      rollbackFleet(env, targetVersionId),
      { taskQueue: env.taskQueue },
    );
    const pausesByWsmigrate = async () => (await handle.query(fleetProgressQuery)).control.filter((c) => c.action === 'pause' && c.by === 'wsmigrate').length;
    await until('the fleet-archive gate', async () => ((await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-archive' ? true : undefined));

    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    expect(await until('the first pause', async () => ((await pausesByWsmigrate()) === 1 ? true : undefined), 20_000)).toBe(true);

    await env.coder.promoteTemplateVersion(env.sim.template.id, targetVersionId);
    const back = await until('the note that the migrated version is active again', async () => {
      const q = await handle.query(fleetProgressQuery);
      return q.note?.includes(`the migrated version ${targetVersionId} is the active version again`) ? q : undefined;
    }, 20_000);
    expect(back?.note).toContain(`the migrated version ${targetVersionId} is the active version again`);
    await controlFleet(env.t.client, handle.workflowId, 'resume', 'sre');

    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    expect(await until('the second pause', async () => ((await pausesByWsmigrate()) === 2 ? true : undefined), 20_000)).toBe(true);
    expect(env.notes.filter((n) => n.kind === 'fleet-paused' && n.text.includes('no longer the migrated version')).length).toBe(2);
    await handle.cancel();
  });
});

/**
 * On Premium, the operator does what the pause says after a rollback: promotes the migrated version
 * again and resumes. The watch gave require_active_version back at the rollback; the resume must take
 * it again (else migrated workspaces stay exposed to members' starts of an old version for the rest of
 * the run), recorded as the first take is (wsmigrate's mark naming the run, which the lock keeper
 * reads), and only while the target is the active version: with it on and the old version active,
 * members' starts and autostart would build the old version on migrated workspaces. A second rollback
 * after the retake is given back and paused again; the run's end gives it back as ever.
 */
describe('resuming a fleet after a rollback on Premium', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => ({ env, targetVersionId } = await migratedWithShortTimers(2, 'premium')));
  afterAll(async () => env?.close());

  it('takes require_active_version again at resume once the target is active, never while the old version is, and gives it back as the run ends', async () => {
    const requireActive = async () => (await env.coder.template(env.sim.template.id)).require_active_version === true;
    const marks = coderLockMarks({ coder: env.coder, blobs: env.blobs });
    const handle = await startFleet(
      env.t.client,
      rollbackFleet(env, targetVersionId),
      { taskQueue: env.taskQueue },
    );
    const pausesByWsmigrate = async () => (await handle.query(fleetProgressQuery)).control.filter((c) => c.action === 'pause' && c.by === 'wsmigrate').length;
    await until('the fleet-archive gate', async () => ((await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-archive' ? true : undefined));
    expect(await requireActive()).toBe(true);
    expect(await marks()).toEqual([{ template: `coder/${env.sim.template.name}`, workflowIds: [handle.workflowId] }]);

    // Rollback: given back, paused.
    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    expect(await until('the first pause', async () => ((await pausesByWsmigrate()) === 1 ? true : undefined), 20_000)).toBe(true);
    expect(await requireActive()).toBe(false);
    expect((await handle.query(fleetProgressQuery)).activeVersionLock).toEqual({ state: 'given-back', rolledBack: true });
    expect(await marks()).toEqual([]);

    // A resume while the old version is still active is refused: the setting stays off, the fleet paused.
    const early = await controlFleet(env.t.client, handle.workflowId, 'resume', 'sre').then(
      () => undefined,
      (err: unknown) => (err as Error).message,
    );
    expect(early).toContain('resume refused: the fleet stays paused');
    expect(early).toContain(`is not the template's active version (${env.sim.template.originalVersionId})`);
    expect(early).toContain('then resume the fleet');
    expect(await requireActive()).toBe(false);
    expect((await handle.query(fleetProgressQuery)).phase).toBe('awaiting-approval');
    expect((await handle.query(fleetProgressQuery)).control.filter((c) => c.action === 'resume')).toEqual([]);

    // The migrated version promoted again, then resume: the setting is on again as the resume returns.
    await env.coder.promoteTemplateVersion(env.sim.template.id, targetVersionId);
    await controlFleet(env.t.client, handle.workflowId, 'resume', 'sre');
    expect(await requireActive()).toBe(true);
    const resumed = await handle.query(fleetProgressQuery);
    expect(resumed.activeVersionLock).toEqual({ state: 'switched-on' });
    expect(resumed.note).toContain('require_active_version switched on again as sre resumed the fleet');
    expect(await marks()).toEqual([{ template: `coder/${env.sim.template.name}`, workflowIds: [handle.workflowId] }]);

    // A second rollback after the retake: given back and paused again.
    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    expect(await until('the second pause', async () => ((await pausesByWsmigrate()) === 2 ? true : undefined), 20_000)).toBe(true);
    expect(await requireActive()).toBe(false);
    await env.coder.promoteTemplateVersion(env.sim.template.id, targetVersionId);
    await controlFleet(env.t.client, handle.workflowId, 'resume', 'sre');
    expect(await requireActive()).toBe(true);

    // The run ends (cancelled at its archive gate): given back.
    await handle.cancel();
    await handle.result().catch(() => undefined);
    expect(await requireActive()).toBe(false);
    expect(await marks()).toEqual([]);
    expect((await handle.query(fleetProgressQuery)).activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
  });
});

/**
 * A fleet started with --version of a _v1 version that is not (or no longer) the active one, on
 * Premium: switching require_active_version on would make Coder's autostart and members' starts build
 * the active, old version on every workspace the fleet migrates, and without the setting each owner's
 * Update would. The fleet is refused before it migrates anything or touches the setting
 * (checkGivenVersion); the lock's own 'declined' answer stays behind it for an active version that
 * changes between that check and the lock.
 */
describe('a fleet whose target is not the active version does not switch require_active_version on', () => {
  let env: MigrationEnv;
  let targetVersionId: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, licence: 'premium' });
    await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
  });
  afterAll(async () => env?.close());

  it('is refused before any workspace or the setting is touched, saying to promote the version first', async () => {
    const buildsBefore = await Promise.all(env.sim.workspaces().map(async (w) => (await env.coder.workspace(w.id)).latest_build.id));
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 2, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    const cause = await handle.result().then(
      () => undefined,
      (err: unknown) => (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined,
    );
    expect(cause?.type).toBe('WsmigrateRefused');
    expect(cause?.message).toContain(`is not the template's active version (${env.sim.template.originalVersionId} is)`);
    // Without the lock the fleet is refused too (an owner's Update would destroy the PVC): that option is no way out.
    expect(cause?.message).not.toContain('--no-require-active-version');
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    const buildsAfter = await Promise.all(env.sim.workspaces().map(async (w) => (await env.coder.workspace(w.id)).latest_build.id));
    expect(buildsAfter).toEqual(buildsBefore);
  });

  it('with --no-require-active-version it is refused at start as well, not paused a minute later with workspaces migrated onto the old active version\'s Update', async () => {
    const buildsBefore = await Promise.all(env.sim.workspaces().map(async (w) => (await env.coder.workspace(w.id)).latest_build.id));
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 2, requireActiveVersion: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const cause = await handle.result().then(
      () => undefined,
      (err: unknown) => (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined,
    );
    expect(cause?.type).toBe('WsmigrateRefused');
    expect(cause?.message).toMatch(/^fleet of template \S+ refused before any change: template version \S+ \(\S+\) is not the template's active version/);
    expect(cause?.message).toContain(`(${env.sim.template.originalVersionId} is): every workspace the fleet migrates would show "outdated", and its owner's one click on Update would build the old active version on its _v1 state and destroy its PVC`);
    expect(cause?.message).toContain('Promote the version first');
    const buildsAfter = await Promise.all(env.sim.workspaces().map(async (w) => (await env.coder.workspace(w.id)).latest_build.id));
    expect(buildsAfter).toEqual(buildsBefore);
  });
});
