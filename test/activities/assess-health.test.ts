import { makeAssessHealth } from '../../src/activities/assess-health';
import { stepsOf } from './fixtures/steps';
import { CoderClient } from '../../src/adapters/coder';
import { V1, V1_PROTECTED_DEPLOYMENT, useSimWithVersions } from './fixtures/sim-with-versions';
import { api, latestBuildId, migrateStateByHand, putState, startBuild } from '../sim/helpers';

/**
 * assessHealth: the class a recovery or a fleet scan acts on. What is protected comes from the
 * target version's annotations, and only a build on that version counts as migrated.
 */

/** The _v1 template without its PVC: a start on it destroys the home volume, and its log shows the delete. */
const V1_WITHOUT_PVC = V1.replace(/resource "kubernetes_persistent_volume_claim_v1" "home" \{[\s\S]*?\n\}\n/, '')
  .replace('kubernetes_persistent_volume_claim_v1.home.metadata.0.name', '"coder-${data.coder_workspace.me.id}-home"')
  .replace(/depends_on = \[\s*kubernetes_persistent_volume_claim_v1\.home\s*\]/, '');

describe('assessHealth: unmigrated, migrated or damaged, judged against the target version', () => {
  const env = useSimWithVersions({ workspaces: 6, sources: { v1: V1, protectedDeployment: V1_PROTECTED_DEPLOYMENT, noPvc: V1_WITHOUT_PVC } });

  const acts = () =>
    stepsOf({ coder: new CoderClient({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } }), blobs: env.blobs, notifier: { notify: async () => undefined } }, { assessHealth: makeAssessHealth });
  const ws = (i: number) => env.sim.workspaces()[i];
  const assess = (i: number, targetVersionId: string) => acts().assessHealth({ workspaceId: ws(i).id, subject: `${ws(i).owner}/${ws(i).name}`, targetVersionId });

  async function migrateAndStart(i: number, versionId: string) {
    const buildId = await latestBuildId(env.sim, ws(i).id);
    expect((await putState(env.sim, buildId, migrateStateByHand((await api(env.sim, 'GET', `/workspacebuilds/${buildId}/state`)).text))).status).toBe(204);
    const start = await startBuild(env.sim, ws(i).id, { transition: 'start', template_version_id: versionId });
    expect(start.job.status).toBe('succeeded');
    return start;
  }

  it('a seeded workspace is unmigrated, counting its deprecated instances', async () => {
    const h = await assess(0, env.versions.v1);
    expect(h).toMatchObject({ health: 'unmigrated', deprecatedLeft: 2, losses: [] });
  });

  it('a workspace started on the target version with every protected object is migrated; the same on another version is not', async () => {
    const start = await migrateAndStart(1, env.versions.v1);
    const h = await assess(1, env.versions.v1);
    expect(h).toMatchObject({ health: 'migrated', deprecatedLeft: 0, losses: [], latest: { id: start.id, number: start.build_number, templateVersionId: env.versions.v1 } });
    // Inside a combined step whose reads hold nothing yet, the check reads for itself: the same answer.
    await expect(acts().assessHealth({ workspaceId: ws(1).id, subject: `${ws(1).owner}/${ws(1).name}`, targetVersionId: env.versions.v1 }, {})).resolves.toEqual(h);
    expect((await assess(1, env.versions.protectedDeployment)).health).not.toBe('migrated');
  });

  it('an object the target version marks protected, forgotten by a later build, makes it damaged, naming it', async () => {
    await migrateAndStart(2, env.versions.protectedDeployment);
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_deployment_v1.main', workspaceId: ws(2).id, times: 1 } });
    try {
      await startBuild(env.sim, ws(2).id, { transition: 'start', template_version_id: env.versions.protectedDeployment });
    } finally {
      env.sim.setFaults(undefined);
    }
    const h = await assess(2, env.versions.protectedDeployment);
    expect(h.health).toBe('damaged');
    expect(JSON.stringify(h.losses)).toContain('kubernetes_deployment_v1.main');
    expect(h.reason).toContain('kubernetes_deployment_v1.main');
  });

  it('a forgotten PVC is damaged whatever the annotations, with the build to recover from', async () => {
    const good = await migrateAndStart(3, env.versions.v1);
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws(3).id, times: 1 } });
    try {
      await startBuild(env.sim, ws(3).id, { transition: 'start', template_version_id: env.versions.v1 });
    } finally {
      env.sim.setFaults(undefined);
    }
    const h = await assess(3, env.versions.v1);
    expect(h.health).toBe('damaged');
    expect(h.reason).toContain('kubernetes_persistent_volume_claim_v1.home');
    expect(h.recoverFrom).toEqual({ id: good.id, number: good.build_number });
  });

  it('a PVC a build destroyed (its log shows the delete) is reported destroyed by that build, never "forgotten, the object was not deleted"', async () => {
    const i = 5;
    await migrateAndStart(i, env.versions.v1);
    const destroying = await startBuild(env.sim, ws(i).id, { transition: 'start', template_version_id: env.versions.noPvc });
    expect(destroying.job.status).toBe('succeeded');
    const h = await assess(i, env.versions.v1);
    expect(h.health).toBe('damaged');
    expect(h.losses).toEqual([expect.objectContaining({ address: 'kubernetes_persistent_volume_claim_v1.home', kind: 'destroyed', build: expect.objectContaining({ number: destroying.build_number }) })]);
    expect(h.reason).not.toContain('was not deleted');
  });

  it('a workspace deleted after the preflight read it is refused as deleted, not taken for damaged', async () => {
    // The preflight read build #1; its owner's delete ran before the health check listed the builds
    // (a 500 storm's retries in between, seen on a fleet): that delete's destroy is no damage to recover.
    const w = ws(4);
    const coder = new CoderClient({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    const before = await coder.workspace(w.id);
    const del = await new CoderClient({ url: env.sim.url, token: env.sim.tokenOf(w.owner) }).createWorkspaceBuild(w.id, { transition: 'delete' });
    expect((await coder.waitForBuild(del.id)).job.status).toBe('succeeded');
    const subject = `${w.owner}/${w.name}`;
    const refused = { type: 'WsmigrateRefused', nonRetryable: true, message: `health check refused for ${subject}: the workspace was deleted (build #2, delete by ${w.owner}, succeeded); nothing to migrate, nothing was built` };
    await expect(acts().assessHealth({ workspaceId: w.id, subject, targetVersionId: env.versions.v1 }, { workspace: before })).rejects.toMatchObject(refused);
    // Read by itself, the workspace answers 410.
    await expect(acts().assessHealth({ workspaceId: w.id, subject, targetVersionId: env.versions.v1 })).rejects.toMatchObject(refused);
  });

  it('an unknown workspace fails as Coder\'s 404, naming the step and the workspace', async () => {
    await expect(acts().assessHealth({ workspaceId: '00000000-0000-4000-8000-00000000dead', subject: 'nobody/none', targetVersionId: env.versions.v1 })).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      nonRetryable: true,
      message: expect.stringMatching(/^health check failed for nobody\/none: /),
    });
  });
});
