import type { WsmigrateActivities } from '../../src/activities';
import { startFleet } from '../../src/client/fleet';
import { summaryTable } from '../../src/cli/fleet-render';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { api, homePvcName, waitForBuild } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

type Moment = 'planVersionArchive' | 'archiveTemplateVersions';

/**
 * The archive keeps an old version that a workspace still uses: one on it when the archive is
 * planned, or one that appears between that plan and the archive (its recheck). The archive step then
 * does not give require_active_version back; the run still does as it ends (held only while a run
 * runs and watches the active version: fleet-lock-window.test.ts), and says so.
 */
describe.each<Moment>(['planVersionArchive', 'archiveTemplateVersions'])('an old version in use when the fleet reaches %s', (moment) => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let lateWorkspaceId: string | undefined;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, licence: 'premium' });
    // An admin creates a workspace on the pre-migration version right before this step (admins are not held to the active version).
    const createOnOldVersion = async () => {
      if (lateWorkspaceId) return;
      const owner = env.sim.workspaces()[0].owner;
      const res = await api<{ id: string; latest_build: { id: string } }>(env.sim, 'POST', `/users/${owner}/workspaces`, {
        json: { name: 'late-old', template_version_id: env.sim.template.originalVersionId },
      });
      expect(res.status).toBe(201);
      lateWorkspaceId = res.body.id;
      expect((await waitForBuild(env.sim, res.body.latest_build.id)).build.job.status).toBe('succeeded');
    };
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        [moment]: async (i: never) => {
          await createOnOldVersion();
          return (acts[moment] as (i: never) => Promise<unknown>)(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  it('keeps the old version; the run gives the setting back as it ends, not as the archive', async () => {
    const seeded = env.sim.workspaces();
    const uids = new Map(seeded.map((w) => [w.id, env.sim.cluster.pvc('coder', homePvcName(w.id))?.uid]));
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, approval: { policy: 'none', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(lateWorkspaceId).toBeDefined();
    expect(result.phase).toBe('done');
    expect(result.summary).toMatchObject({ migrated: 3, restored: 0, needsAttention: 0, failed: 0 });
    expect(result.activeVersionLock).toEqual({ state: 'given-back', atRunEnd: true });
    const original = env.sim.template.originalVersionId;
    expect(result.archive).toMatchObject({ archived: [], keptInUse: [expect.objectContaining({ id: original, workspaces: 1 })] });
    expect(result.archive?.activeVersion).toBeUndefined();
    expect((await env.coder.templateVersion(original)).archived).toBe(false);
    expect((await env.coder.template(env.sim.template.id)).require_active_version).toBe(false);
    expect(summaryTable(result)).toMatch(/require active version: given back \(off\) as this run ended$/m);

    const ws = seeded[1];
    expect((await env.coder.workspace(ws.id)).latest_build.template_version_id).toBe(targetVersionId);
    for (const w of seeded) expect(env.sim.cluster.pvc('coder', homePvcName(w.id))?.uid).toBe(uids.get(w.id));
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
