import { startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A workspace its owner is building when the migration reads it (a Start, a Stop, an autostart):
 * the run waits for that build to end and reads it again, instead of failing (which a fleet counts
 * against its failure budget). Found by the Premium fleet test with owners pressing Start.
 */
describe('a workspace busy with its owner\'s build at the preflight', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  // The race the Premium fleet test met: the workspace idle when the preflight read it, busy by the
  // time its health was read (an owner's Start in between). Answered once, as Coder would have.
  let raceOnce = true;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, provisioners: 1 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          const r = await acts.preflightAndAssess(i);
          if (i.workspace !== env.sim.workspaces()[1].name || !raceOnce) return r;
          raceOnce = false;
          return { ...r, health: { ...r.health, health: 'busy' as const, reason: "a build (start) by its owner is running" } };
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('an owner\'s build pending at the preflight: the run waits for it to end, then migrates on top of it, the PVC uid kept', async () => {
    const ws = env.sim.workspaces()[0];
    const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    // The owner's stop waits in Coder's queue: no daemon takes it yet.
    for (const d of env.sim.provisionerDaemons()) env.sim.setDaemonOffline(d.name);
    const owners = await fetch(`${env.sim.url}/api/v2/workspaces/${ws.id}/builds`, {
      method: 'POST',
      headers: { 'Coder-Session-Token': env.sim.tokenOf(ws.owner), 'Content-Type': 'application/json' },
      body: JSON.stringify({ transition: 'stop' }),
    }).then((r) => r.json() as Promise<{ id: string; build_number: number }>);
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    // It has read the workspace busy and waits, not failed.
    await new Promise((r) => setTimeout(r, 3000));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    for (const d of env.sim.provisionerDaemons()) env.sim.setDaemonOffline(d.name, false);

    expect(await handle.result()).toMatchObject({ outcome: 'migrated' });
    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 3 });
    // On top of the owner's stop (never written over): it stays stopped, now on the new version.
    expect(builds.map((b) => [b.build_number, b.transition, b.job.status, b.template_version_id === targetVersionId])).toEqual([
      [owners.build_number + 1, 'stop', 'succeeded', true],
      [owners.build_number, 'stop', 'succeeded', false],
      [owners.build_number - 1, 'start', 'succeeded', false],
    ]);
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(pvcUid);
  });

  it('busy by the time its health is read: the run waits (a timer) and reads it again, then migrates, not failed', async () => {
    const ws = env.sim.workspaces()[1];
    const pvcUid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    expect(await handle.result()).toMatchObject({ outcome: 'migrated' });
    expect(raceOnce).toBe(false);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(pvcUid);
  });
});
