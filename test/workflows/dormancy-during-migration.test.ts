import { WorkflowFailedError } from '@temporalio/client';
import type { WsmigrateActivities } from '../../src/activities';
import { startFleet } from '../../src/client/fleet';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { api, waitForBuild } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Coder's lifecycle executor makes a workspace dormant once the template's time_til_dormant has
 * passed since it was last used (coderd/autobuild/lifecycle_executor.go isEligibleForDormantStop):
 * a started one gets a stop on its previous build's version (reason dormancy), a stopped one no build;
 * from then on nobody may start it. Here that lands just before the migration's own build.
 */
describe('dormancy during a migration', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const fireBefore = new Map<string, string>(); // workspace id → activity name
  const fired = new Map<string, { transitions: Record<string, string> }>();

  const dormancyTick = async (workspaceId: string) => {
    const t = (await api<Record<string, unknown>>(env.sim, 'GET', `/templates/${env.sim.template.id}`)).body;
    expect((await api(env.sim, 'PATCH', `/templates/${env.sim.template.id}`, { json: { ...t, time_til_dormant_ms: 86_400_000 } })).status).toBeLessThan(400);
    const at = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const res = await api<{ transitions: Record<string, string> }>(env.sim, 'POST', '/sim/lifecycle/tick', { json: { at, workspace_ids: [workspaceId] } });
    expect(res.status).toBe(200);
    fired.set(workspaceId, res.body);
    const latest = (await env.coder.workspace(workspaceId)).latest_build;
    await waitForBuild(env.sim, latest.id, 60_000);
  };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, buildLatencyMs: 20 });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
    const wrap = (acts: WsmigrateActivities): WsmigrateActivities => {
      const wrapped: Record<string, unknown> = {};
      for (const [name, fn] of Object.entries(acts) as [string, (...a: unknown[]) => Promise<unknown>][]) {
        wrapped[name] = async (...args: unknown[]) => {
          const id = (args[0] as { workspaceId?: string } | undefined)?.workspaceId;
          if (id && fireBefore.get(id) === name && !fired.has(id)) await dormancyTick(id);
          return fn(...args);
        };
      }
      return wrapped as WsmigrateActivities;
    };
    await env.startWorker({ wrap });
  }, 120_000);
  afterAll(async () => env?.close());

  const migrate = async (owner: string, workspace: string, option: 'A' | 'B') => {
    const input: MigrateWorkspaceInput = { owner, workspace, template: env.sim.template.name, targetVersionId, option, approval: { policy: 'none' } };
    const h = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    try {
      return { ok: true as const, result: (await h.result()) as { outcome: string } };
    } catch (err) {
      const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string } | undefined;
      return { ok: false as const, type: cause?.type, message: cause?.message ?? '' };
    }
  };
  const pvcOf = (id: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id));

  it.each([
    ['A', 0, 'after our stop: made dormant with no build of its own'],
    ['B', 1, 'on the running workspace: a dormancy stop on the old version'],
  ] as const)('option %s (%s): no PVC lost, no _v1 state on the old version, an honest ending', async (option, index, _when) => {
    const ws = env.sim.workspaces()[index];
    fireBefore.set(ws.id, 'buildWithStateAndCheck');
    const uid = pvcOf(ws.id)?.uid;
    const out = await migrate(ws.owner, ws.name, option);
    expect(fired.has(ws.id)).toBe(true);
    if (process.env.WSMIGRATE_SHOW_OUTCOMES) process.stderr.write(`${option}: ${JSON.stringify(fired.get(ws.id))} → ${JSON.stringify(out)}\n`);
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
    expect(pvcOf(ws.id)?.uid).toBe(uid);
    for (const b of await env.coder.workspaceBuilds(ws.id)) {
      const state = (await env.coder.getWorkspaceBuildState(b.id)).toString('utf8');
      if (state.includes('_v1"')) expect([b.build_number, b.template_version_id]).toEqual([b.build_number, targetVersionId]);
    }
    if (out.ok) {
      expect(out.result.outcome).toBe('migrated');
      const latest = (await env.coder.workspace(ws.id)).latest_build;
      expect([latest.template_version_id, latest.transition, latest.job.status]).toEqual([targetVersionId, 'stop', 'succeeded']);
    } else {
      expect(out.message.length).toBeGreaterThan(20);
      expect(out.message).toMatch(/dormant/);
    }
    if (option === 'A') {
      // After our stop, no build of its own: the cause first, where it stands, who must act and what continues it.
      expect(out).toMatchObject({ ok: false, type: 'WsmigrateNeedsAttention' });
      const message = out.ok ? '' : out.message;
      expect(message).toMatch(new RegExp(`^${ws.owner}/${ws.name}: Coder marked it dormant at \\S+, during the migration, after its stop: Coder lets nobody start a dormant workspace`));
      expect(message).toMatch(/It is stopped \(build #\d+\) on its prior version \S+, holding the state backed up before anything was written \(sha256 [0-9a-f]{12}…, \S+\); the stop destroyed no protected object, so its home PVC is kept/);
      expect(message).toContain(`its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws.id}/dormant {"dormant": false})`);
      expect(message).toContain(`then run 'wsmigrate migrate workspace ${ws.owner}/${ws.name} --template ${env.sim.template.name} --version ${targetVersionId}' again`);
      expect(message).not.toMatch(/lacks|Ask a Coder owner|grant/);
      const latest = (await env.coder.workspace(ws.id)).latest_build;
      expect([latest.transition, latest.job.status]).toEqual(['stop', 'succeeded']);
      expect(env.notes.find((n) => n.kind === 'migration-failed' && n.subject === `Needs attention: ${ws.owner}/${ws.name}`)?.text).toBe(message);
      // A later fleet holds it saying why (discover-fleet.ts reads the cause from the memo).
      const memo = (await env.t.client.workflow.getHandle(`wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`).describe()).memo;
      expect(memo).toMatchObject({ outcome: 'needs-attention', cause: 'dormant' });
    }
  }, 180_000);

  // After option A's run: the workspace Coder made dormant after our stop is stopped, needs-attention, its memo says why.
  it('a later fleet holds that workspace saying who must act and what to run, not "restore it by hand"; nothing built', async () => {
    const [held, other] = env.sim.workspaces();
    const builds = (await env.coder.workspaceBuilds(held.id)).length;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { exclude: [`${other.owner}/${other.name}`] }, archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 0, failed: 0, skipped: 1 });
    expect(result.failures).toEqual([
      {
        workflowId: `wsmigrate/${env.sim.template.name}/${held.owner}/${held.name}`,
        subject: `${held.owner}/${held.name}`,
        outcome: 'needs-attention',
        reason: `skipped: its last migration ended needs-attention because Coder made it dormant after the migration's stop (it is stopped, its state and PVC kept): its owner or an admin makes it active, then run 'wsmigrate migrate workspace ${held.owner}/${held.name}' by hand; the fleet holds it until then`,
      },
    ]);
    expect(await env.coder.workspaceBuilds(held.id)).toHaveLength(builds);
  }, 120_000);
});
