import { WorkflowFailedError } from '@temporalio/client';
import { startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { startFleet } from '../../src/client/fleet';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import { workspaceStatusQuery, type WorkspaceMigrationResult, type WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { api, fixtureSource, pushTemplateVersion, waitForBuild } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Coder's lifecycle executor starts a workspace on the template's ACTIVE version when the template
 * requires it or the workspace has automatic_updates "always" (coderd/autobuild/lifecycle_executor.go
 * useActiveVersion, then wsbuilder ActiveVersion()). Carrying the latest build's state (wsbuilder getState).
 * So a migration onto a version that is not the active one leaves a `_v1` state that the next
 * autostart builds on the old active version: the PVC is destroyed. These tests drive it on the dev server.
 */

interface StateJson {
  resources: { mode: string; type: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[];
}

/** Every build of the workspace: none may hold a `_v1` state on a version that is not the migrated one. */
async function v1StatesUnderOldVersions(env: MigrationEnv, workspaceId: string, v1Versions: ReadonlySet<string>): Promise<string[]> {
  const found: string[] = [];
  for (const b of await env.coder.workspaceBuilds(workspaceId)) {
    const state = (await env.coder.getWorkspaceBuildState(b.id)).toString('utf8');
    if (!state) continue;
    const types = (JSON.parse(state) as StateJson).resources.filter((r) => r.mode === 'managed').map((r) => r.type);
    if (types.some((t) => t.endsWith('_v1')) && !v1Versions.has(b.template_version_id)) found.push(`#${b.build_number} ${b.transition} on ${b.template_version_id}`);
  }
  return found;
}

const pvcOf = (env: MigrationEnv, id: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id));

async function stopAndSchedule(env: MigrationEnv, id: string, owner: string, autoUpdates: boolean): Promise<void> {
  const token = env.sim.tokenOf(owner);
  const latest = (await env.coder.workspace(id)).latest_build;
  if (latest.transition === 'start') {
    const res = await api<{ id: string }>(env.sim, 'POST', `/workspaces/${id}/builds`, { token, json: { transition: 'stop' } });
    expect(res.status).toBe(201);
    await waitForBuild(env.sim, res.body.id, 60_000);
  }
  expect((await api(env.sim, 'PUT', `/workspaces/${id}/autostart`, { token, json: { schedule: 'CRON_TZ=UTC 30 9 * * 1-5' } })).status).toBe(204);
  if (autoUpdates) expect((await api(env.sim, 'PUT', `/workspaces/${id}/autoupdates`, { token, json: { automatic_updates: 'always' } })).status).toBe(204);
}

/** Coder's lifecycle executor, now, for this workspace only; waits for the build it made. */
async function autostart(env: MigrationEnv, id: string): Promise<{ build_number: number; transition: string; template_version_id: string; job: { status: string } } | undefined> {
  const before = (await env.coder.workspace(id)).latest_build.build_number;
  expect((await api(env.sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [id] } })).status).toBe(200);
  const latest = (await env.coder.workspace(id)).latest_build;
  if (latest.build_number === before) return undefined;
  return (await waitForBuild(env.sim, latest.id, 60_000)).build;
}

async function migrate(
  env: MigrationEnv,
  owner: string,
  workspace: string,
  targetVersionId: string,
  extra: Partial<MigrateWorkspaceInput> = {},
): Promise<{ ok: boolean; type?: string; message?: string; result?: WorkspaceMigrationResult; status?: WorkspaceMigrationStatus }> {
  const input: MigrateWorkspaceInput = { owner, workspace, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' }, ...extra };
  const h = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
  try {
    const result = (await h.result()) as WorkspaceMigrationResult;
    return { ok: true, result, status: await h.query(workspaceStatusQuery) };
  } catch (err) {
    const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined;
    return { ok: false, type: cause?.type, message: cause?.message };
  }
}

describe('a target version that is not the active one, and Coder building on the active one', () => {
  let env: MigrationEnv;
  let oldVersionId: string;
  let targetVersionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4, buildLatencyMs: 20 });
    await env.startWorker();
    oldVersionId = env.sim.template.activeVersionId;
    // `migrate template --no-promote`: the `_v1` version pushed, the old one left active.
    const h = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, stopBeforePromote: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    targetVersionId = ((await h.result()) as TemplateMigrationResult).versionId;
    expect(env.sim.template.activeVersionId).toBe(oldVersionId);
  }, 120_000);
  afterEach(async () => env.coder.setTemplateRequireActiveVersion(env.sim.template.id, false));
  afterAll(async () => env?.close());

  it.each([
    ['automatic_updates "always"', true, false],
    ['the template requires its active version (Premium)', false, true],
  ])('%s: the migration is refused before anything stops, and the autostart after it keeps the PVC', async (_name, autoUpdates, requireActive) => {
    const ws = env.sim.workspaces()[autoUpdates ? 0 : 1];
    await stopAndSchedule(env, ws.id, ws.owner, autoUpdates);
    await env.coder.setTemplateRequireActiveVersion(env.sim.template.id, requireActive);
    const uid = pvcOf(env, ws.id)?.uid;
    expect(uid).toBeDefined();
    const buildsBefore = (await env.coder.workspace(ws.id)).latest_build.build_number;

    const out = await migrate(env, ws.owner, ws.name, targetVersionId);
    // Coder's next autostart, on the template's active (old) version.
    const started = await autostart(env, ws.id);
    expect(started?.template_version_id).toBe(oldVersionId);

    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
    expect(pvcOf(env, ws.id)?.uid).toBe(uid);
    expect(await v1StatesUnderOldVersions(env, ws.id, new Set([targetVersionId]))).toEqual([]);
    expect(out.ok).toBe(false);
    expect(out.type).toBe('WsmigrateRefused');
    expect(out.message).toMatch(/active version/);
    expect(out.message).toMatch(/promote/i);
    // The autostart's own reason, not the Update's: --allow-inactive-version does not lift it.
    expect(out.message).toMatch(autoUpdates ? /automatic updates "always"/ : /the template requires its active version/);
    expect(out.message).not.toMatch(/--allow-inactive-version/);
    const asked = await migrate(env, ws.owner, ws.name, targetVersionId, { allowInactiveVersion: true });
    expect({ ok: asked.ok, type: asked.type, message: asked.message }).toEqual({ ok: false, type: 'WsmigrateRefused', message: out.message });
    // Refused before the stop: only Coder's autostart came after.
    expect(started && (await env.coder.workspace(ws.id)).latest_build.build_number).toBe(buildsBefore + 1);
  }, 180_000);

  it('a workspace that neither updates automatically nor is held to the active version is refused by default (its Update would destroy the PVC), and migrated onto the pushed version when asked for by name', async () => {
    const ws = env.sim.workspaces()[2];
    await stopAndSchedule(env, ws.id, ws.owner, false);
    const uid = pvcOf(env, ws.id)?.uid;
    const buildsBefore = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const refused = await migrate(env, ws.owner, ws.name, targetVersionId);
    expect(refused).toMatchObject({ ok: false, type: 'WsmigrateRefused' });
    expect(refused.message).toContain(`is not the active version of template ${env.sim.template.name} (${oldVersionId} is)`);
    expect(refused.message).toContain('one click of its owner on Update builds the active, old version on the migrated _v1 state: Terraform destroys the home PVC');
    expect(refused.message).toContain('Nothing was stopped');
    expect(refused.message).toContain('--allow-inactive-version');
    expect((await env.coder.workspace(ws.id)).latest_build.build_number).toBe(buildsBefore);

    const out = await migrate(env, ws.owner, ws.name, targetVersionId, { allowInactiveVersion: true });
    expect(out).toMatchObject({ ok: true, result: { outcome: 'migrated' } });
    const warning = out.result!.warnings[0];
    expect(warning).toContain(`leaves it outdated: that is not the active version of template ${env.sim.template.name} (${oldVersionId} is)`);
    expect(warning).toContain("its owner's Update builds the active, old version on the _v1 state and destroys the home PVC");
    expect(out.status?.warnings).toEqual([warning]);
    expect((await env.coder.workspace(ws.id)).outdated).toBe(true);
    // Its autostart uses the previous build's version: the migrated one.
    const started = await autostart(env, ws.id);
    expect(started?.template_version_id).toBe(targetVersionId);
    expect(started?.job.status).toBe('succeeded');
    expect(pvcOf(env, ws.id)?.uid).toBe(uid);
    expect(await v1StatesUnderOldVersions(env, ws.id, new Set([targetVersionId]))).toEqual([]);
  }, 180_000);

  it("migrated onto the pushed version by name: the result says its owner's Update destroys the PVC, and the dashboard's Update does", async () => {
    const ws = env.sim.workspaces()[3];
    const uid = pvcOf(env, ws.id)?.uid;
    expect(uid).toBeDefined();
    const out = await migrate(env, ws.owner, ws.name, targetVersionId, { allowInactiveVersion: true });
    expect(out).toMatchObject({ ok: true, result: { outcome: 'migrated' } });
    expect(out.result!.warnings[0]).toContain("its owner's Update builds the active, old version on the _v1 state and destroys the home PVC");
    expect(pvcOf(env, ws.id)?.uid).toBe(uid);
    expect((await env.coder.workspace(ws.id)).outdated).toBe(true);
    // The owner's Update in the dashboard (site/src/api/api.ts updateWorkspace): a start on the template's active version, carrying the _v1 state.
    const { startBuildId } = await env.sim.updateAndRestart(ws.id);
    const start = (await waitForBuild(env.sim, startBuildId, 60_000)).build;
    expect(start.template_version_id).toBe(oldVersionId);
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id).length).toBeGreaterThan(0);
    expect(pvcOf(env, ws.id)?.uid).not.toBe(uid);
  }, 180_000);

  it("a fleet given the pushed, not promoted version is refused before it makes the template require its (old) active version", async () => {
    // The workspace migrated onto the pushed version by hand above (README step 2): stopped again, with its schedule.
    const ws = env.sim.workspaces()[2];
    await stopAndSchedule(env, ws.id, ws.owner, false);
    expect((await env.coder.workspace(ws.id)).latest_build.template_version_id).toBe(targetVersionId);
    const uid = pvcOf(env, ws.id)?.uid;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { exclude: [`${ws.owner}/${ws.name}`] }, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const ended = handle.result().then(
      () => ({ ok: true as const }),
      (err: unknown) => ({ ok: false as const, cause: (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined }),
    );
    // Until the fleet ends, or the template reads back require_active_version (its lock).
    let locked = false;
    for (let i = 0; i < 300 && !locked; i++) {
      const done = await Promise.race([ended, new Promise((r) => setTimeout(() => r(undefined), 100))]);
      if (done) break;
      locked = (await env.coder.template(env.sim.template.id)).require_active_version === true;
    }
    // Coder's next autostart of the migrated workspace.
    const started = await autostart(env, ws.id);
    if (!(await Promise.race([ended.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]))) await handle.terminate('test over');
    expect(started?.transition ?? 'start').toBe('start');
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
    expect(pvcOf(env, ws.id)?.uid).toBe(uid);
    expect(await v1StatesUnderOldVersions(env, ws.id, new Set([targetVersionId]))).toEqual([]);
    expect(locked).toBe(false);
    const out = await ended;
    expect(out.ok).toBe(false);
    expect(out.ok ? undefined : out.cause?.type).toBe('WsmigrateRefused');
    expect(out.ok ? '' : out.cause?.message).toMatch(/not the template's active version.*promote/s);
  }, 180_000);
});

describe('an active _v1 version pushed by hand without guard blocks, and the fleet\'s require-active-version lock', () => {
  let env: MigrationEnv;
  let unguarded: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, buildLatencyMs: 20 });
    await env.startWorker();
    // `coder templates push` of a _v1 template by hand: no removed{} guard for the old PVC address; promoted.
    unguarded = (await pushTemplateVersion(env.sim, fixtureSource('template-v1'), { promote: true })).id;
    expect(env.sim.template.activeVersionId).toBe(unguarded);
  }, 120_000);
  afterAll(async () => env?.close());

  it('the fleet is refused before it switches the lock on, so a workspace not yet migrated is still autostarted on its own (old) version', async () => {
    // A workspace of a later batch (excluded here): stopped, not migrated, with an autostart schedule.
    const ws = env.sim.workspaces()[0];
    await stopAndSchedule(env, ws.id, ws.owner, false);
    const oldVersion = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    expect(oldVersion).not.toBe(unguarded);
    const uid = pvcOf(env, ws.id)?.uid;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId: unguarded, canary: 0, concurrency: 1, filters: { exclude: [`${ws.owner}/${ws.name}`] }, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const ended = handle.result().then(
      () => ({ ok: true as const }),
      (err: unknown) => ({ ok: false as const, cause: (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined }),
    );
    let locked = false;
    for (let i = 0; i < 300 && !locked; i++) {
      const done = await Promise.race([ended, new Promise((r) => setTimeout(() => r(undefined), 100))]);
      if (done) break;
      locked = (await env.coder.template(env.sim.template.id)).require_active_version === true;
    }
    const started = await autostart(env, ws.id);
    if (!(await Promise.race([ended.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]))) await handle.terminate('test over');
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
    expect(pvcOf(env, ws.id)?.uid).toBe(uid);
    expect(started?.template_version_id).toBe(oldVersion);
    expect(locked).toBe(false);
    const out = await ended;
    expect(out.ok ? undefined : out.cause?.type).toBe('WsmigrateRefused');
    expect(out.ok ? '' : out.cause?.message).toMatch(/no removed \{\} guard .*kubernetes_persistent_volume_claim\.home/);
  }, 180_000);
});
