import type { MigrationMetrics, Notification } from '../../src/activities/ports';
import { makeTrackBuildChanges } from '../../src/activities/track-build-changes';
import { stepsOf } from './fixtures/steps';
import { CoderClient } from '../../src/adapters/coder';
import { V1, V1_PROTECTED_DEPLOYMENT, useSimWithVersions } from './fixtures/sim-with-versions';
import { api, homePvcName, latestBuildId, migrateStateByHand, putState, startBuild } from '../sim/helpers';

/**
 * trackBuildChanges: after a build wsmigrate started, what it destroyed or replaced, read from the
 * build's log, counted, and told to a human when it matters (a protected object lost above all).
 */

describe('trackBuildChanges: what a build destroyed, from its log, and who is told', () => {
  const env = useSimWithVersions({ workspaces: 6, sources: { v1: V1, protectedDeployment: V1_PROTECTED_DEPLOYMENT } });

  function recorder(opts: { notifyFails?: boolean } = {}) {
    const notifications: Notification[] = [];
    const seen: string[] = [];
    const damaged: string[] = [];
    const metrics: MigrationMetrics = {
      workspaceFinished: () => undefined,
      approvalDecided: () => undefined,
      resourceChangeSeen: (kind, template, type) => seen.push(`${kind} ${template} ${type}`),
      deleteBlocked: () => undefined,
      damagedWorkspaceFound: (reason) => damaged.push(reason),
      activeVersionLockRead: () => undefined,
    };
    const acts = stepsOf(
      {
      coder: new CoderClient({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } }),
      blobs: env.blobs,
      metrics,
      notifier: {
        notify: async (n) => {
          notifications.push(n);
          if (opts.notifyFails) throw new Error('slack is down');
          return undefined;
        },
      },
      },
      { trackBuildChanges: makeTrackBuildChanges },
    );
    return { acts, notifications, seen, damaged };
  }
  const ws = (i: number) => env.sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const track = (r: ReturnType<typeof recorder>, i: number, buildId: string) =>
    r.acts.trackBuildChanges({ workflowId: `migrate-${i}`, subject: subject(i), template: env.sim.template.name, buildId });

  async function migrateState(i: number, extra: unknown[] = []): Promise<void> {
    const buildId = await latestBuildId(env.sim, ws(i).id);
    const state = JSON.parse(migrateStateByHand((await api(env.sim, 'GET', `/workspacebuilds/${buildId}/state`)).text)) as { resources: unknown[] };
    state.resources.push(...extra);
    expect((await putState(env.sim, buildId, JSON.stringify(state))).status).toBe(204);
  }

  it('a start on the _v1 version over an unmigrated state: the PVC deleted for its twin, counted and told as a protected loss', async () => {
    const oldUid = env.sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid;
    const build = await startBuild(env.sim, ws(0).id, { transition: 'start', template_version_id: env.versions.v1 });
    expect(env.sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid).not.toBe(oldUid); // the simulator's own record: the volume was re-created
    const r = recorder();
    const tracked = await track(r, 0, build.id);
    expect(tracked).toMatchObject({ buildId: build.id, buildNumber: build.build_number, transition: 'start' });
    expect(tracked.protectedDestroyed).toEqual(['kubernetes_persistent_volume_claim.home']);
    expect(tracked.changes).toContainEqual({
      kind: 'type-rename-delete',
      address: 'kubernetes_persistent_volume_claim.home',
      resourceType: 'kubernetes_persistent_volume_claim',
      twinAddress: 'kubernetes_persistent_volume_claim_v1.home',
      protected: true,
    });
    expect(tracked.changeCount).toBe(tracked.changes.length);
    expect(r.seen).toContain(`type-rename-delete ${env.sim.template.name} kubernetes_persistent_volume_claim`);
    expect(r.seen).toHaveLength(tracked.changeCount);
    expect(r.damaged).toEqual(['protected-destroyed']);
    expect(r.notifications).toHaveLength(1);
    // A worker without metrics, inside a combined step whose reads hold no ended build: the same answer.
    const plain = stepsOf(
      { coder: new CoderClient({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } }), blobs: env.blobs, notifier: { notify: async () => undefined } },
      { trackBuildChanges: makeTrackBuildChanges },
    );
    await expect(plain.trackBuildChanges({ workflowId: 'migrate-0', subject: subject(0), template: env.sim.template.name, buildId: build.id }, {})).resolves.toEqual(tracked);
    expect(r.notifications[0]).toMatchObject({ kind: 'replacements-detected', workflowId: 'migrate-0', subject: `PROTECTED RESOURCE DESTROYED in start build #${build.build_number} of ${subject(0)}` });
    expect(r.notifications[0].text).toContain('type-rename-delete kubernetes_persistent_volume_claim.home -> kubernetes_persistent_volume_claim_v1.home (PROTECTED)');
    expect(r.notifications[0].text).not.toContain('more');
  });

  it('a stop that destroys only the unprotected deployment is counted but tells nobody', async () => {
    await migrateState(1);
    const build = await startBuild(env.sim, ws(1).id, { transition: 'stop', template_version_id: env.versions.v1 });
    const r = recorder();
    const tracked = await track(r, 1, build.id);
    expect(tracked.changes).toEqual([{ kind: 'destroy', address: 'kubernetes_deployment_v1.main[0]', resourceType: 'kubernetes_deployment_v1', protected: false }]);
    expect(tracked.protectedDestroyed).toEqual([]);
    expect(r.seen).toEqual([`destroy ${env.sim.template.name} kubernetes_deployment_v1`]);
    expect(r.damaged).toEqual([]);
    expect(r.notifications).toEqual([]);
  });

  it('the same stop on a version that marks the deployment protected is a protected loss by the build\'s own version\'s annotation', async () => {
    await migrateState(2);
    const build = await startBuild(env.sim, ws(2).id, { transition: 'stop', template_version_id: env.versions.protectedDeployment });
    const r = recorder();
    const tracked = await track(r, 2, build.id);
    expect(tracked.protectedDestroyed).toEqual(['kubernetes_deployment_v1.main[0]']);
    expect(r.damaged).toEqual(['protected-destroyed']);
    expect(r.notifications.map((n) => n.subject)).toEqual([`PROTECTED RESOURCE DESTROYED in stop build #${build.build_number} of ${subject(2)}`]);
    expect(r.notifications[0].text).toBe('destroy kubernetes_deployment_v1.main[0] (PROTECTED)');
  });

  it('lists ten changes in the message and fifty in the result, with the full count, and a lost notification does not hide them', async () => {
    const extra = Array.from({ length: 51 }, (_, n) => ({
      mode: 'managed',
      type: 'kubernetes_persistent_volume_claim_v1',
      name: `extra${String(n).padStart(2, '0')}`,
      provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
      instances: [{ schema_version: 0, attributes: { id: `coder/extra${n}`, metadata: [{ name: `extra${n}`, namespace: 'coder', uid: `x-${n}` }] } }],
    }));
    await migrateState(3, extra);
    const build = await startBuild(env.sim, ws(3).id, { transition: 'start', template_version_id: env.versions.v1 });
    const r = recorder({ notifyFails: true });
    const tracked = await track(r, 3, build.id);
    expect(tracked.changeCount).toBe(51);
    expect(tracked.changes).toHaveLength(50);
    expect(tracked.changes[49].address).toBe('kubernetes_persistent_volume_claim_v1.extra49');
    expect(tracked.protectedDestroyed).toHaveLength(51);
    expect(r.notifications).toHaveLength(1);
    expect(r.notifications[0].subject).toBe(`PROTECTED RESOURCE DESTROYED in start build #${build.build_number} of ${subject(3)}`);
    expect(r.notifications[0].text.split('; ').slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, n) => `destroy kubernetes_persistent_volume_claim_v1.extra0${n} (PROTECTED)`));
    expect(r.notifications[0].text).toMatch(/extra09 \(PROTECTED\); and 41 more$/);
  });

  it('an unprotected deployment re-created under its twin type is told as a replacement, not as a loss', async () => {
    // The PVC migrated by hand, the deployment not: the start deletes kubernetes_deployment.main for its _v1 twin.
    const buildId = await latestBuildId(env.sim, ws(5).id);
    const half = JSON.parse((await api(env.sim, 'GET', `/workspacebuilds/${buildId}/state`)).text) as { resources: { type: string }[] };
    for (const res of half.resources) if (res.type === 'kubernetes_persistent_volume_claim') res.type = 'kubernetes_persistent_volume_claim_v1';
    expect((await putState(env.sim, buildId, JSON.stringify(half))).status).toBe(204);
    const build = await startBuild(env.sim, ws(5).id, { transition: 'start', template_version_id: env.versions.v1 });
    const r = recorder();
    const tracked = await track(r, 5, build.id);
    expect(tracked.protectedDestroyed).toEqual([]);
    expect(tracked.changes).toEqual([
      { kind: 'type-rename-delete', address: 'kubernetes_deployment.main[0]', resourceType: 'kubernetes_deployment', twinAddress: 'kubernetes_deployment_v1.main[0]', protected: false },
    ]);
    expect(r.damaged).toEqual([]);
    expect(r.notifications.map((n) => [n.subject, n.text])).toEqual([
      [`Resource replacements in start build #${build.build_number} of ${subject(5)}`, 'type-rename-delete kubernetes_deployment.main[0] -> kubernetes_deployment_v1.main[0]'],
    ]);
  });

  it('names its step and the workspace when Coder has no such build', async () => {
    await expect(track(recorder(), 1, '00000000-0000-4000-8000-00000000dead')).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^read build changes failed for ${subject(1)}: `)) });
  });

  it('a build that changed nothing tells nobody', async () => {
    await migrateState(4);
    const build = await startBuild(env.sim, ws(4).id, { transition: 'start', template_version_id: env.versions.v1 });
    const r = recorder();
    expect(await track(r, 4, build.id)).toMatchObject({ changes: [], changeCount: 0, protectedDestroyed: [] });
    expect(r.notifications).toEqual([]);
    expect(r.seen).toEqual([]);
  });
});
