import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WsmigrateActivities } from '../../src/activities';
import type { Notification } from '../../src/activities/ports';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { CoderClient, type WorkspaceBuild } from '../../src/adapters/coder';
import { api, waitForBuild, type BuildJson } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The window (issue 21): while a migration runs, anyone may build the workspace on the previous
 * build's version: its owner (Start, Stop), the dashboard, Coder's own autostart and autostop. For
 * every step boundary of migrateWorkspace (options A and B), of the recovery and of the compensation,
 * such a build is fired at that very moment, and the simulator's record of destroyed volumes is the
 * judge: none may be lost, and every run ends migrated (truly), restored or needs-attention with a reason.
 */
/** 'tick': Coder's lifecycle executor runs for the workspace (autostart when stopped, autostop when running), on the previous build's version. */
type Action = 'start' | 'stop' | 'tick';
type Flow = 'A' | 'B' | 'recover' | 'compensate-A' | 'compensate-B';
/**
 * `gate:<id>`: while the gate waits; `<activity>`: just before that activity first runs for the workspace.
 * Option A's `backupState` runs inside `stopAndBackUp`: that boundary is the moment our stop build has ended.
 * `trackAndCheckStart` runs inside `buildWithStateAndCheck`: the moment our migrated-state build has ended.
 */
type Boundary = string;

interface Case {
  flow: Flow;
  boundary: Boundary;
  action: Action;
}

const BOUNDARIES: Record<Flow, Boundary[]> = {
  A: ['gate:stop', 'stopAndBackUp', 'backupState', 'rewriteAndVerify', 'gate:apply', 'buildWithStateAndCheck', 'trackAndCheckStart'],
  B: ['backupState', 'rewriteAndVerify', 'gate:apply', 'buildWithStateAndCheck', 'trackAndCheckStart'],
  recover: ['backupForRecovery', 'rewriteState', 'verifyMigration', 'gate:recover', 'buildWithState', 'checkProtectedKept'],
  // The post-build check fails (injected): the restore build is the compensation, after option A's stop or on a running workspace.
  'compensate-A': ['restoreByBuild'],
  'compensate-B': ['restoreByBuild'],
};
const ACTIONS: Action[] = ['start', 'stop', 'tick'];
const CASES: Case[] = (Object.keys(BOUNDARIES) as Flow[]).flatMap((flow) => BOUNDARIES[flow].flatMap((boundary) => ACTIONS.map((action) => ({ flow, boundary, action }))));

interface Outcome {
  kind: 'migrated' | 'restored' | 'needs-attention' | 'other';
  message: string;
  phase: string;
  fired?: { status: number; build?: BuildJson };
}

describe('no window: a Start, a Stop or a lifecycle tick on the previous version at every step boundary loses no volume', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  /** Workspace id → its case, and what happened. */
  const byWorkspace = new Map<string, Case & { subject: string; owner: string; pvcUid?: string; fired?: Outcome['fired']; firing?: Promise<void> }>();
  const outcomes = new Map<string, Outcome>();

  /** The user's build: the owner's own token, no template_version_id (Coder uses the previous build's version). */
  async function fire(workspaceId: string): Promise<void> {
    const c = byWorkspace.get(workspaceId);
    if (!c || c.fired || c.firing) return c?.firing;
    c.firing = (async () => {
      if (c.action === 'tick') {
        const before = (await env.coder.workspace(workspaceId)).latest_build.build_number;
        const res = await api(env.sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [workspaceId] } });
        const latest = (await env.coder.workspace(workspaceId)).latest_build;
        c.fired = { status: res.status, ...(latest.build_number > before ? { build: (await waitForBuild(env.sim, latest.id, 60_000)).build } : {}) };
        return;
      }
      const res = await api<BuildJson>(env.sim, 'POST', `/workspaces/${workspaceId}/builds`, { token: env.sim.tokenOf(c.owner), json: { transition: c.action } });
      c.fired = { status: res.status, ...(res.status === 201 ? { build: (await waitForBuild(env.sim, res.body.id, 60_000)).build } : {}) };
    })();
    return c.firing;
  }

  const workspaceOf = (input: unknown): string | undefined => {
    const i = input as { workspaceId?: string; subject?: string; owner?: string; workspace?: string };
    if (i?.workspaceId) return i.workspaceId;
    const subject = i?.subject ?? `${i?.owner}/${i?.workspace}`;
    return [...byWorkspace.entries()].find(([, c]) => c.subject === subject)?.[0];
  };

  /** Fires the case's action just before the first run of its boundary activity. */
  const atActivityBoundaries = (acts: WsmigrateActivities): WsmigrateActivities => {
    const wrapped: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(acts) as [string, (...a: unknown[]) => Promise<unknown>][]) {
      wrapped[name] = async (...args: unknown[]) => {
        const id = workspaceOf(args[0]);
        const c = id ? byWorkspace.get(id) : undefined;
        if (id && c && c.boundary === name) await fire(id);
        const result = await fn(...args);
        if (id && c?.flow.startsWith('compensate') && name === 'buildWithStateAndCheck') {
          // As the check fails after the build: naming the build it made.
          const { built } = result as { built: { buildId: string; buildNumber: number } };
          throw ApplicationFailure.create({ message: 'injected: the post-build check found a deprecated type left', type: 'WsmigrateStateConflict', nonRetryable: true, details: [built] });
        }
        return result;
      };
    }
    return wrapped as WsmigrateActivities;
  };

  /**
   * Fires the boundaries inside one activity the moment our build there has ended: option A's
   * `backupState` (inside stopAndBackUp, after the stop) and `trackAndCheckStart` (inside
   * buildWithStateAndCheck, after the build on the target version), before the next read.
   */
  class FiringAfterOurBuild extends CoderClient {
    override async waitForBuild(buildId: string, opts?: Parameters<CoderClient['waitForBuild']>[1]): Promise<WorkspaceBuild> {
      const done = await super.waitForBuild(buildId, opts);
      const c = byWorkspace.get(done.workspace_id);
      const afterStop = c?.flow === 'A' && c.boundary === 'backupState' && done.transition === 'stop';
      const afterStateBuild = (c?.flow === 'A' || c?.flow === 'B') && c.boundary === 'trackAndCheckStart' && done.template_version_id === targetVersionId;
      if (afterStop || afterStateBuild) await fire(done.workspace_id);
      return done;
    }
  }

  /** Answers every gate as it opens (from the notification), firing the case's action first at its own gate. */
  const answerGates = {
    notify: async (n: Notification) => {
      if (n.kind !== 'approval-requested' || !n.gateId || !n.planHash) return;
      const gateId = n.gateId;
      const planHash = n.planHash;
      void (async () => {
        const id = [...byWorkspace.entries()].find(([, c]) => n.workflowId.endsWith(`/${c.subject}`))?.[0];
        if (id && byWorkspace.get(id)?.boundary === `gate:${gateId}`) await fire(id);
        for (let attempt = 0; attempt < 50; attempt++) {
          try {
            await decide(env.t.client, n.workflowId, 'approve', { approver: 'sre', gateId, planHash });
            return;
          } catch (err) {
            if (/not the pending gate|not waiting|already finished/.test((err as Error).message)) return;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      })();
    },
  };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: CASES.length, buildLatencyMs: 40 });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
    const workspaces = env.sim.workspaces();
    CASES.forEach((c, i) => {
      const ws = workspaces[i];
      const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
      byWorkspace.set(ws.id, { ...c, subject: `${ws.owner}/${ws.name}`, owner: ws.owner, pvcUid });
    });
    // The lifecycle cases get an autostart schedule and an autostop TTL, as their owners would set them.
    for (const [id, c] of byWorkspace) {
      if (c.action !== 'tick') continue;
      const token = env.sim.tokenOf(c.owner);
      expect((await api(env.sim, 'PUT', `/workspaces/${id}/autostart`, { token, json: { schedule: 'CRON_TZ=UTC 30 9 * * 1-5' } })).status).toBe(204);
      expect((await api(env.sim, 'PUT', `/workspaces/${id}/ttl`, { token, json: { ttl_ms: 3_600_000 } })).status).toBe(204);
    }
    // Damage the recovery cases as the user did: Update on an unmigrated workspace (the guarded build fails and forgets the PVC).
    for (const [id, c] of byWorkspace) if (c.flow === 'recover') await env.coder.waitForBuild((await env.sim.updateAndRestart(id)).startBuildId);
    const coder = new FiringAfterOurBuild({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    await env.startWorker({ wrap: atActivityBoundaries, notifier: answerGates, coder });

    const runs = [...byWorkspace.entries()].map(async ([id, c]) => {
      const [owner, workspace] = c.subject.split('/');
      const input: MigrateWorkspaceInput = {
        owner,
        workspace,
        template: env.sim.template.name,
        targetVersionId,
        option: c.flow.endsWith('A') ? 'A' : 'B',
        approval: { policy: 'all', approvers: ['sre'] },
      };
      const handle: WorkflowHandle =
        c.flow === 'recover' ? await startWorkspaceRecovery(env.t.client, input, { taskQueue: env.taskQueue }) : await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
      let kind: Outcome['kind'] = 'other';
      let message = '';
      try {
        await handle.result();
        kind = 'migrated';
      } catch (err) {
        const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined;
        message = cause?.message ?? String(err);
        kind = cause?.type === 'WsmigrateRolledBack' ? 'restored' : cause?.type === 'WsmigrateNeedsAttention' ? 'needs-attention' : 'other';
      }
      const status = (await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus;
      outcomes.set(id, { kind, message, phase: status.phase, fired: c.fired });
    });
    await Promise.all(runs);
  }, 600_000);
  afterAll(async () => env?.close());

  it('fires every action it was asked to, at its boundary', () => {
    if (process.env.WSMIGRATE_SHOW_OUTCOMES) {
      for (const [id, o] of outcomes) {
        const c = byWorkspace.get(id)!;
        process.stderr.write(`${c.flow} @ ${c.boundary} × ${c.action}: their build ${o.fired?.status} #${o.fired?.build?.build_number ?? '-'} ${o.fired?.build?.job.status ?? ''} → ${o.kind} ${o.message.slice(0, 160)}\n`);
      }
    }
    const notFired = [...byWorkspace.values()].filter((c) => !c.fired).map((c) => `${c.flow} ${c.boundary} ${c.action}`);
    expect(notFired).toEqual([]);
  });

  it.each(CASES.map((c) => [`${c.flow} @ ${c.boundary} × ${c.action}`, c] as const))('%s: no PVC destroyed, and an honest ending', (_name, c) => {
    const [id, ws] = [...byWorkspace.entries()].find(([, w]) => w.flow === c.flow && w.boundary === c.boundary && w.action === c.action)!;
    const outcome = outcomes.get(id)!;
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === id)).toEqual([]);
    const pvc = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id));
    expect(pvc?.uid).toBe(ws.pvcUid);
    expect(['migrated', 'restored', 'needs-attention']).toContain(outcome.kind);
    expect(outcome.phase).toBe(outcome.kind);
    if (outcome.kind !== 'migrated') expect(outcome.message.length).toBeGreaterThan(20);
  });

  it('never a false "migrated": each one is on the target version, its state _v1 with the PVC uid it had', async () => {
    for (const [id, outcome] of outcomes) {
      if (outcome.kind !== 'migrated') continue;
      const latest = (await env.coder.workspace(id)).latest_build;
      expect(latest.template_version_id).toBe(targetVersionId);
      const state = JSON.parse(env.sim.stateOf(id)) as { resources: { mode: string; type: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[] };
      const managed = state.resources.filter((r) => r.mode === 'managed');
      expect(managed.filter((r) => r.type === 'kubernetes_persistent_volume_claim' || r.type === 'kubernetes_deployment')).toEqual([]);
      const pvc = managed.find((r) => r.type === 'kubernetes_persistent_volume_claim_v1');
      expect(pvc?.instances[0].attributes.metadata?.[0]?.uid).toBe(byWorkspace.get(id)?.pvcUid);
    }
  });
});
