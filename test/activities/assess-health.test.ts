import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../src/activities';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild } from '../sim/helpers';

/**
 * assessHealth: the class a recovery or a fleet scan acts on. What is protected comes from the
 * target version's annotations, and only a build on that version counts as migrated.
 */

const V1 = fixtureSource('template-v1');
const V1_PROTECTED_DEPLOYMENT = V1.replace('resource "kubernetes_deployment_v1" "main"', '# wsmigrate:protect\nresource "kubernetes_deployment_v1" "main"');

describe('assessHealth: unmigrated, migrated or damaged, judged against the target version', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  let protectedDeployment: string;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 4, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-health-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, V1)).id;
    protectedDeployment = (await pushTemplateVersion(sim, V1_PROTECTED_DEPLOYMENT)).id;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acts = () => createActivities({ coder: new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } }), blobs, notifier: { notify: async () => undefined } });
  const ws = (i: number) => sim.workspaces()[i];
  const assess = (i: number, targetVersionId: string) => acts().assessHealth({ workspaceId: ws(i).id, subject: `${ws(i).owner}/${ws(i).name}`, targetVersionId });

  async function migrateAndStart(i: number, versionId: string) {
    const buildId = await latestBuildId(sim, ws(i).id);
    expect((await putState(sim, buildId, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text))).status).toBe(204);
    const start = await startBuild(sim, ws(i).id, { transition: 'start', template_version_id: versionId });
    expect(start.job.status).toBe('succeeded');
    return start;
  }

  it('a seeded workspace is unmigrated, counting its deprecated instances', async () => {
    const h = await assess(0, v1);
    expect(h).toMatchObject({ health: 'unmigrated', deprecatedLeft: 2, losses: [] });
  });

  it('a workspace started on the target version with every protected object is migrated; the same on another version is not', async () => {
    const start = await migrateAndStart(1, v1);
    const h = await assess(1, v1);
    expect(h).toMatchObject({ health: 'migrated', deprecatedLeft: 0, losses: [], latest: { id: start.id, number: start.build_number, templateVersionId: v1 } });
    expect((await assess(1, protectedDeployment)).health).not.toBe('migrated');
  });

  it('an object the target version marks protected, forgotten by a later build, makes it damaged, naming it', async () => {
    await migrateAndStart(2, protectedDeployment);
    sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_deployment_v1.main', workspaceId: ws(2).id, times: 1 } });
    try {
      await startBuild(sim, ws(2).id, { transition: 'start', template_version_id: protectedDeployment });
    } finally {
      sim.setFaults(undefined);
    }
    const h = await assess(2, protectedDeployment);
    expect(h.health).toBe('damaged');
    expect(JSON.stringify(h.losses)).toContain('kubernetes_deployment_v1.main');
    expect(h.reason).toContain('kubernetes_deployment_v1.main');
  });

  it('a forgotten PVC is damaged whatever the annotations, with the build to recover from', async () => {
    const good = await migrateAndStart(3, v1);
    sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws(3).id, times: 1 } });
    try {
      await startBuild(sim, ws(3).id, { transition: 'start', template_version_id: v1 });
    } finally {
      sim.setFaults(undefined);
    }
    const h = await assess(3, v1);
    expect(h.health).toBe('damaged');
    expect(h.reason).toContain('kubernetes_persistent_volume_claim_v1.home');
    expect(h.recoverFrom).toEqual({ id: good.id, number: good.build_number });
  });

  it('an unknown workspace fails as Coder\'s 404, naming the step and the workspace', async () => {
    await expect(acts().assessHealth({ workspaceId: '00000000-0000-4000-8000-00000000dead', subject: 'nobody/none', targetVersionId: v1 })).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      nonRetryable: true,
      message: expect.stringMatching(/^health check failed for nobody\/none: /),
    });
  });
});
