import { startFleet } from '../../src/client/fleet';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Premium's prebuilt workspaces are listed with the template, owned by Coder's `prebuilds` system
 * user. Once the migrated version is promoted, Coder's reconciler deletes every running prebuild of
 * the old version (a delete build of its own, at any moment: enterprise/coderd/prebuilds/reconcile.go)
 * and builds new ones on the active version; one a migration built onto the new version keeps its old
 * preset and is deleted all the same. Here the reconciler runs at the worst moment: right after a
 * migration has read a prebuild. The fleet must leave prebuilds to Coder and migrate people's workspaces.
 */
describe("a fleet over a template with Premium's prebuilt workspaces", () => {
  let env: MigrationEnv;
  const reconciledAfterRead: string[] = [];
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3, prebuilds: 2, buildLatencyMs: 20 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          const r = await acts.preflightAndAssess(i);
          if (i.owner === 'prebuilds') {
            reconciledAfterRead.push(i.workspace);
            env.sim.reconcilePrebuilds();
          }
          return r;
        },
      }),
    });
  }, 120_000);
  afterAll(async () => env?.close());

  const claims = () => new Map(env.sim.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => [o.name, o.uid]));

  it("migrates the people's workspaces with their claims kept, counts the prebuilt ones as left to Coder, builds none of them; Coder's reconciler then replaces them on the new version", async () => {
    const people = env.sim.workspaces().filter((w) => w.owner !== 'prebuilds');
    const prebuilt = env.sim.workspaces().filter((w) => w.owner === 'prebuilds');
    expect(people).toHaveLength(3);
    expect(prebuilt).toHaveLength(2);
    const before = claims();
    const peoplesClaims = [...before].filter(([name]) => people.some((w) => name.includes(w.id)));
    expect(peoplesClaims).toHaveLength(3);

    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, canary: 0, concurrency: 5, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 3, failed: 0, needsAttention: 0, restored: 0, prebuilt: 2 });
    expect(result.failures).toEqual([]);
    expect(reconciledAfterRead).toEqual([]);
    const done = env.notes.find((n) => n.kind === 'fleet-done');
    expect(done?.text).toContain('2 prebuilt left to Coder (its reconciler replaces them on the active version)');

    // Every person's claim kept its uid; nothing of wsmigrate's touched a prebuild.
    const after = claims();
    for (const [name, uid] of peoplesClaims) expect(after.get(name)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    for (const p of prebuilt) {
      const builds = await env.coder.workspaceBuilds(p.id);
      expect(builds.map((b) => [b.build_number, b.transition, b.initiator_name])).toEqual([[1, 'start', 'prebuilds']]);
    }

    // Coder's reconciler: the old ones go, new ones come on the migrated version, already on _v1.
    const target = result.targetVersionId ?? env.sim.template.activeVersionId;
    expect(env.sim.template.activeVersionId).toBe(target);
    const run = env.sim.reconcilePrebuilds();
    expect(run.deleted.sort()).toEqual(prebuilt.map((p) => p.id).sort());
    expect(run.created).toHaveLength(2);
    for (const id of run.created) {
      const built = await env.coder.waitForBuild((await env.coder.workspace(id)).latest_build.id);
      expect(built).toMatchObject({ transition: 'start', template_version_id: target, job: { status: 'succeeded' } });
      expect(env.sim.stateOf(id)).toContain('"kubernetes_persistent_volume_claim_v1"');
    }
  }, 240_000);
});
