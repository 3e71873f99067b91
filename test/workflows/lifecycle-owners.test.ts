import type { WsmigrateActivities } from '../../src/activities';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { api, waitForBuild } from '../sim/helpers';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

const DAY = 86_400_000;

/**
 * What Coder's lifecycle executor does to workspaces a migration meets (coderd/autobuild/lifecycle_executor.go):
 * a suspended owner's running workspace is stopped at the next tick (isEligibleForAutostop), and a dormant
 * workspace past deleting_at is deleted, home PVC and all (isEligibleForDelete, reason autodelete). Coder's
 * own builds: a run must not lose a PVC to them, nor say something untrue about who built.
 */
describe('the lifecycle executor and a migration: suspended owners, dormant auto-delete', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const tickBefore = new Map<string, { activity: string; at: () => Date }>();
  const fired = new Map<string, Record<string, string>>();

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4, buildLatencyMs: 20, dormancy: { timeTilDormantAutodeleteMs: 7 * DAY } });
    const setup = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await setup.stop();
    const wrap = (acts: WsmigrateActivities): WsmigrateActivities => {
      const wrapped: Record<string, unknown> = {};
      for (const [name, fn] of Object.entries(acts) as [string, (...a: unknown[]) => Promise<unknown>][]) {
        wrapped[name] = async (...args: unknown[]) => {
          const id = (args[0] as { workspaceId?: string } | undefined)?.workspaceId;
          const plan = id ? tickBefore.get(id) : undefined;
          if (id && plan?.activity === name && !fired.has(id)) {
            const res = await api<{ transitions: Record<string, string> }>(env.sim, 'POST', '/sim/lifecycle/tick', { json: { at: plan.at().toISOString(), workspace_ids: [id] } });
            fired.set(id, res.body.transitions);
            await waitForBuild(env.sim, (await api<{ latest_build: { id: string } }>(env.sim, 'GET', `/workspaces/${id}?include_deleted=true`)).body.latest_build.id, 60_000);
          }
          return fn(...args);
        };
      }
      return wrapped as WsmigrateActivities;
    };
    await env.startWorker({ wrap });
  }, 120_000);
  afterAll(async () => env?.close());

  const input = (ws: { owner: string; name: string }, option: 'A' | 'B'): MigrateWorkspaceInput =>
    ({ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option, approval: { policy: 'none' } }) as MigrateWorkspaceInput;
  const pvcOf = (id: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id));
  const people = () => env.sim.workspaces().filter((w) => !w.name.startsWith('api-'));

  it.each(['A', 'B'] as const)("option %s: a suspended owner's running workspace migrates with its PVC kept and ends stopped (Coder stops it, before or after our build) on the migrated version", async (option) => {
    const ws = people()[option === 'A' ? 0 : 1]!;
    env.sim.setUserStatus(ws.owner, 'suspended');
    const uid = pvcOf(ws.id)?.uid;
    // Option B stays running up to its own build: Coder's stop lands just before it.
    if (option === 'B') tickBefore.set(ws.id, { activity: 'buildWithStateAndCheck', at: () => new Date() });
    const out = await (await startWorkspaceMigration(env.t.client, input(ws, option), { taskQueue: env.taskQueue })).result().then(
      (r) => ({ ok: true as const, outcome: (r as { outcome: string }).outcome }),
      (err: unknown) => ({ ok: false as const, message: String((err as { cause?: { message?: string } }).cause?.message ?? err) }),
    );
    if (process.env.WSMIGRATE_SHOW_OUTCOMES) process.stderr.write(`${option}: ${JSON.stringify(fired.get(ws.id))} → ${JSON.stringify(out)}\n`);
    expect(out).toEqual({ ok: true, outcome: 'migrated' });
    expect(pvcOf(ws.id)?.uid).toBe(uid);
    // A: our start ran, and Coder stops it at its next tick. B: Coder's stop came first; the run found it
    // stopped and migrated it so (one stop carrying the migrated state), so the tick has nothing to do.
    const tick = env.sim.lifecycleTick(new Date(), { workspaceIds: [ws.id] });
    expect(tick.transitions).toEqual(option === 'A' ? { [ws.id]: 'stop' } : {});
    await waitForBuild(env.sim, (await env.coder.workspace(ws.id)).latest_build.id, 60_000);
    const builds = (await env.coder.workspaceBuilds(ws.id, { limit: 10 })).map((b) => [b.transition, b.reason, b.template_version_id === targetVersionId ? 'target' : 'old', b.job.status]);
    expect(builds[0]).toEqual(['stop', option === 'A' ? 'autostop' : 'initiator', 'target', 'succeeded']);
    if (option === 'B') expect(builds[1]).toEqual(['stop', 'autostop', 'old', 'succeeded']);
    expect(pvcOf(ws.id)?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses().filter((l) => l.workspace === ws.id)).toEqual([]);
  }, 180_000);

  it("a dormant workspace Coder auto-deletes during the run: refused naming Coder's auto-delete, not its owner, as who deleted it", async () => {
    const ws = people()[2]!;
    const stop = await env.coder.createWorkspaceBuild(ws.id, { transition: 'stop' });
    await waitForBuild(env.sim, stop.id, 60_000);
    expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    tickBefore.set(ws.id, { activity: 'buildWithStateAndCheck', at: () => new Date(Date.now() + 8 * DAY) });
    const message = await failureOf((await startWorkspaceMigration(env.t.client, input(ws, 'A'), { taskQueue: env.taskQueue })).result());
    if (process.env.WSMIGRATE_SHOW_OUTCOMES) process.stderr.write(`autodelete: ${JSON.stringify(fired.get(ws.id))} → ${message}\n`);
    expect(fired.get(ws.id)).toEqual({ [ws.id]: 'delete' });
    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 10 });
    expect(builds[0]).toMatchObject({ transition: 'delete', reason: 'autodelete' });
    expect(message).toBe(
      `preflight refused for ${ws.owner}/${ws.name}: the workspace was deleted by Coder's auto-delete of dormant workspaces (build #${builds[0]!.build_number}, reason autodelete, succeeded: ` +
        "it was dormant longer than the template's time_til_dormant_autodelete); nothing to migrate, nothing was built",
    );
  }, 180_000);
});
