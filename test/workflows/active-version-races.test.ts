import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WsmigrateActivities } from '../../src/activities';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { CoderClient, type WorkspaceBuild } from '../../src/adapters/coder';
import { api, waitForBuild } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Coder's lifecycle executor on workspaces with automatic_updates "always": an autostart builds the
 * template's ACTIVE version (lifecycle_executor.go useActiveVersion → wsbuilder ActiveVersion()) with
 * the latest build's state (wsbuilder getState); an autostop, the previous build's version. The active
 * version is the migrated one, with its removed{} guards (as `migrate template` leaves it). Fired at each
 * step boundary of a migration and of its compensation, on running and stopped workspaces: no PVC may
 * be lost, no build may hold a `_v1` state on the old version, and every run ends honestly.
 */
// Only moments where the workspace is stopped (an autostart) or has a deadline (our migrated start: an
// autostop) fire a build: option B and the moment before option A's stop have neither, so they are left out.
type Flow = 'A' | 'A-stopped' | 'compensate-A' | 'compensate-stopped';
const BOUNDARIES: Record<Flow, string[]> = {
  A: ['backupState', 'rewriteAndVerify', 'buildWithStateAndCheck', 'trackAndCheckStart'],
  'A-stopped': ['backupState', 'rewriteAndVerify', 'buildWithStateAndCheck', 'trackAndCheckStart'],
  'compensate-A': ['restoreByBuild'],
  'compensate-stopped': ['restoreByBuild'],
};
const CASES = (Object.keys(BOUNDARIES) as Flow[]).flatMap((flow) => BOUNDARIES[flow].map((boundary) => ({ flow, boundary })));

describe('autostart on the active (migrated, guarded) version at every step boundary', () => {
  let env: MigrationEnv;
  let originalVersionId: string;
  let targetVersionId: string;
  const byWorkspace = new Map<string, { flow: Flow; boundary: string; subject: string; owner: string; name: string; pvcUid?: string; fired?: { transition?: string; version?: string; status?: string }; firing?: Promise<void> }>();
  const outcomes = new Map<string, { kind: string; message: string }>();

  async function fire(id: string): Promise<void> {
    const c = byWorkspace.get(id);
    if (!c || c.fired || c.firing) return c?.firing;
    c.firing = (async () => {
      const before = (await env.coder.workspace(id)).latest_build.build_number;
      await api(env.sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [id] } });
      const latest = (await env.coder.workspace(id)).latest_build;
      if (latest.build_number === before) {
        c.fired = {};
        return;
      }
      const { build } = await waitForBuild(env.sim, latest.id, 60_000);
      c.fired = { transition: build.transition, version: build.template_version_id, status: build.job.status };
    })();
    return c.firing;
  }

  const wrap = (acts: WsmigrateActivities): WsmigrateActivities => {
    const wrapped: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(acts) as [string, (...a: unknown[]) => Promise<unknown>][]) {
      wrapped[name] = async (...args: unknown[]) => {
        const arg = args[0] as { workspaceId?: string; subject?: string } | undefined;
        const id = arg?.workspaceId ?? [...byWorkspace.entries()].find(([, w]) => w.subject === arg?.subject)?.[0];
        const c = id ? byWorkspace.get(id) : undefined;
        if (id && c?.boundary === name) await fire(id);
        const result = await fn(...args);
        if (id && c?.flow.startsWith('compensate') && name === 'buildWithStateAndCheck') {
          const { built } = result as { built: { buildId: string; buildNumber: number } };
          throw ApplicationFailure.create({ message: 'injected: the post-build check found a deprecated type left', type: 'WsmigrateStateConflict', nonRetryable: true, details: [built] });
        }
        return result;
      };
    }
    return wrapped as WsmigrateActivities;
  };

  /** Option A's backupState runs inside stopAndBackUp: fire the moment our stop has ended; trackAndCheckStart: after our migrated build. */
  class FiringAfterOurBuild extends CoderClient {
    override async waitForBuild(buildId: string, opts?: Parameters<CoderClient['waitForBuild']>[1]): Promise<WorkspaceBuild> {
      const done = await super.waitForBuild(buildId, opts);
      const c = byWorkspace.get(done.workspace_id);
      const afterStop = c?.flow === 'A' && c.boundary === 'backupState' && done.transition === 'stop';
      const afterStateBuild = c?.boundary === 'trackAndCheckStart' && done.template_version_id === targetVersionId;
      if (afterStop || afterStateBuild) await fire(done.workspace_id);
      return done;
    }
  }

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: CASES.length, buildLatencyMs: 30 });
    const setup = await env.startWorker();
    originalVersionId = env.sim.template.activeVersionId;
    targetVersionId = (await env.migrateTemplate()).versionId;
    expect(env.sim.template.activeVersionId).toBe(targetVersionId);
    await setup.stop();
    const workspaces = env.sim.workspaces();
    for (const [i, c] of CASES.entries()) {
      const ws = workspaces[i];
      const token = env.sim.tokenOf(ws.owner);
      if (c.flow.endsWith('stopped')) {
        const res = await api<{ id: string }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'stop' } });
        await waitForBuild(env.sim, res.body.id, 60_000);
      }
      expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/autostart`, { token, json: { schedule: 'CRON_TZ=UTC 30 9 * * 1-5' } })).status).toBe(204);
      expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/ttl`, { token, json: { ttl_ms: 3_600_000 } })).status).toBe(204);
      expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/autoupdates`, { token, json: { automatic_updates: 'always' } })).status).toBe(204);
      const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
      byWorkspace.set(ws.id, { ...c, subject: `${ws.owner}/${ws.name}`, owner: ws.owner, name: ws.name, pvcUid });
    }
    const coder = new FiringAfterOurBuild({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    await env.startWorker({ wrap, coder });
    await Promise.all(
      [...byWorkspace.entries()].map(async ([id, c]) => {
        const input: MigrateWorkspaceInput = { owner: c.owner, workspace: c.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } };
        const h = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
        try {
          const r = (await h.result()) as { outcome: string };
          outcomes.set(id, { kind: r.outcome, message: '' });
        } catch (err) {
          const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined;
          outcomes.set(id, { kind: cause?.type ?? 'other', message: cause?.message ?? String(err) });
        }
      }),
    );
  }, 600_000);
  afterAll(async () => env?.close());

  it('fired every case', () => {
    if (process.env.WSMIGRATE_SHOW_OUTCOMES) {
      for (const [id, c] of byWorkspace) process.stderr.write(`${c.flow} @ ${c.boundary}: ${JSON.stringify(c.fired)} → ${outcomes.get(id)?.kind} ${outcomes.get(id)?.message.slice(0, 200)}\n`);
    }
    expect([...byWorkspace.values()].filter((c) => !c.fired).map((c) => `${c.flow} ${c.boundary}`)).toEqual([]);
    // Each one made a build: an autostart on the active version (stopped) or an autostop (our start's deadline).
    expect([...byWorkspace.values()].filter((c) => !c.fired?.transition).map((c) => `${c.flow} ${c.boundary}`)).toEqual([]);
    for (const c of byWorkspace.values()) expect(c.fired?.version).toBe(targetVersionId);
  });

  it.each(CASES.map((c) => [`${c.flow} @ ${c.boundary}`, c] as const))('%s: PVC kept, no _v1 state on the old version, an honest ending', async (_n, c) => {
    const [id, ws] = [...byWorkspace.entries()].find(([, w]) => w.flow === c.flow && w.boundary === c.boundary)!;
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === id)).toEqual([]);
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id))?.uid).toBe(ws.pvcUid);
    const wrong: string[] = [];
    for (const b of await env.coder.workspaceBuilds(id)) {
      const state = (await env.coder.getWorkspaceBuildState(b.id)).toString('utf8');
      if (state.includes('_v1"') && b.template_version_id === originalVersionId) wrong.push(`#${b.build_number} ${b.transition}`);
    }
    expect(wrong).toEqual([]);
    const o = outcomes.get(id)!;
    expect(['migrated', 'WsmigrateRolledBack', 'WsmigrateNeedsAttention']).toContain(o.kind);
    if (o.kind === 'migrated') {
      const latest = (await env.coder.workspace(id)).latest_build;
      expect(latest.template_version_id).toBe(targetVersionId);
      expect(env.sim.stateOf(id)).not.toMatch(/"kubernetes_persistent_volume_claim"/);
    } else {
      expect(o.message.length).toBeGreaterThan(20);
    }
  });
});
