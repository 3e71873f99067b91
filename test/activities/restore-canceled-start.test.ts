import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeRestoreByBuild, type RestoreByBuildInput } from '../../src/activities/restore-by-build';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { sha256Hex } from '../../src/adapters/hash';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion } from '../sim/helpers';
import { recordingCoder } from './fixtures/recorded-builds';
import { stepsOf } from './fixtures/steps';

const STEPS = { backupState: makeBackupState, restoreByBuild: makeRestoreByBuild, stopWorkspace: makeStopWorkspace };

/**
 * Option A's compensation after our start on the _v1 version was canceled in Coder (someone pressed
 * Cancel). What the canceled build holds decides whether that start is stopped on its version before
 * the backup is started on the old one (coderd/workspacebuilds.go patchCancelWorkspaceBuild): canceled
 * while pending it never ran and holds the state we sent; canceled while running, an apply that
 * finished (CompleteJob) holds everything it created, the deployment too, and a restore start on top
 * of it would create that deployment again (AlreadyExists).
 */
describe('restoreByBuild after our migrated start was canceled in Coder', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  let original: string;
  const { sent, client: recordingClient } = recordingCoder();

  beforeAll(async () => {
    // Builds slow enough to be canceled while they run, as a person in the dashboard would.
    sim = await startSimulator({ workspaces: 6, buildLatencyMs: 300, provisioners: 1 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-rcs-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
    original = sim.template.originalVersionId;
  });
  afterAll(async () => {
    sim.setDaemonOffline('sim-provisioner-1', false);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = () => recordingClient(sim);
  const acts = () => stepsOf({ coder: client(), blobs, notifier: { notify: async () => undefined } }, STEPS);
  const ws = (i: number) => sim.workspaces()[i];
  const subjectOf = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const pvc = (i: number) => sim.cluster.pvc('coder', homePvcName(ws(i).id))?.uid;
  const deploymentOf = (i: number) => sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === `coder-${ws(i).id}`);
  const cancel = async (buildId: string) => expect((await api(sim, 'PATCH', `/workspacebuilds/${buildId}/cancel`)).status).toBe(200);

  /** Option A up to our start: our stop, its backup, and the start on v1 carrying the migrated bytes, created but not waited for. */
  async function ourStart(i: number, beforeStart: () => void = () => undefined) {
    const read = (await client().workspace(ws(i).id)).latest_build;
    const stop = await acts().stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const backup = await acts().backupState({ workspaceId: ws(i).id, subject: subjectOf(i) });
    const migrated = Buffer.from(migrateStateByHand((await blobs.get(backup.blob.ref)).toString('utf8')));
    beforeStart();
    const start = await client().createWorkspaceBuild(ws(i).id, { transition: 'start', template_version_id: v1, state: migrated });
    // The attempt that made it died before reporting its id: the compensation knows it by its shape.
    const input: RestoreByBuildInput = {
      workspaceId: ws(i).id,
      subject: subjectOf(i),
      prior: { transition: 'start', templateVersionId: original },
      readBuild: { id: read.id, buildNumber: read.build_number },
      backup,
      ownBuildIds: [stop.buildId],
      ownStateBuild: { transition: 'start', templateVersionId: v1 },
      timeoutMs: 30_000,
    };
    return { backup, migrated, start, input };
  }

  /** No build of the workspace on the old version holds a _v1 type: the state the next build of that version would destroy. */
  async function expectNoV1UnderOriginal(i: number) {
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 20 });
    for (const b of builds.filter((x) => x.template_version_id === original)) {
      expect([b.build_number, (await client().getWorkspaceBuildState(b.id)).toString('utf8').includes('_v1"')]).toEqual([b.build_number, false]);
    }
  }

  /** The claim kept (same uid, no loss recorded) and no _v1 state under the old version. */
  async function expectDataKept(i: number, uid: string | undefined) {
    expect(pvc(i)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
    await expectNoV1UnderOriginal(i);
  }

  it('canceled while pending: it never ran and holds exactly the state we sent, so nothing is stopped; the backup is started on the old version, the PVC kept', async () => {
    const i = 0;
    const uid = pvc(i);
    // No daemon takes it: it stays pending until canceled.
    const { backup, migrated, start, input } = await ourStart(i, () => sim.setDaemonOffline('sim-provisioner-1'));
    await cancel(start.id);
    const canceled = await client().workspaceBuild(start.id);
    expect(canceled.job.status).toBe('canceled');
    expect(canceled.job.started_at ?? undefined).toBeUndefined();
    // wsbuilder stored the bytes we sent on the build; no provisioner ever wrote over them.
    expect(sha256Hex(await client().getWorkspaceBuildState(start.id))).toBe(sha256Hex(migrated));
    sim.setDaemonOffline('sim-provisioner-1', false);
    sent.length = 0;

    const r = await acts().restoreByBuild(input);
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 2 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [start.build_number + 1, 'start', original, 'succeeded'],
      [start.build_number, 'start', v1, 'canceled'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(deploymentOf(i)).toBeDefined();
    await expectDataKept(i, uid);
  });

  it('canceled while running after it created the deployment: that start is stopped on its version with the state Coder holds for it, then the backup is started; no AlreadyExists, the PVC kept', async () => {
    const i = 1;
    const uid = pvc(i);
    const { backup, start, input } = await ourStart(i);
    const deadline = Date.now() + 10_000;
    while ((await client().workspaceBuild(start.id)).job.status !== 'running') {
      if (Date.now() > deadline) throw new Error('our start never ran');
      await new Promise((r) => setTimeout(r, 10));
    }
    await cancel(start.id);
    const canceled = await client().waitForBuild(start.id, { timeoutMs: 30_000 });
    // Its apply finished before the cancel reached it (CompleteJob): canceled, with the state of what it created.
    expect(canceled.job.status).toBe('canceled');
    expect(canceled.job.started_at).toBeDefined();
    expect((await client().getWorkspaceBuildState(start.id)).toString('utf8')).toContain('"kubernetes_deployment_v1"');
    const created = deploymentOf(i);
    expect(created).toBeDefined();
    sent.length = 0;

    const r = await acts().restoreByBuild(input);
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 3 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [start.build_number + 2, 'start', original, 'succeeded'],
      [start.build_number + 1, 'stop', v1, 'succeeded'],
      [start.build_number, 'start', v1, 'canceled'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    // The stop carries no state: Coder's own for the canceled start, which holds the deployment, so the stop removes it.
    expect(sent[0]).toEqual({ transition: 'stop', template_version_id: v1 });
    expect(Buffer.from(sent[1].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(2);
    expect(deploymentOf(i)?.uid).not.toBe(created?.uid);
    await expectDataKept(i, uid);
  });

  it("the wait the step gave up on (wsmigrate never cancels a Coder job; its timeout says 'cancel it in the dashboard'): the compensation waits for our running start, someone cancels it meanwhile, and it is stopped on its version before the restore", async () => {
    const i = 2;
    const uid = pvc(i);
    const { start, input } = await ourStart(i);
    const restoring = acts().restoreByBuild(input);
    // The compensation waits on our start (ours by its shape) while it runs; an SRE cancels it then.
    const deadline = Date.now() + 10_000;
    while (!sim.requestLog().some((r) => r.method === 'GET' && r.path.endsWith(`/workspacebuilds/${start.id}`)) || (await client().workspaceBuild(start.id)).job.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the compensation never waited on our running start');
      await new Promise((r) => setTimeout(r, 10));
    }
    await cancel(start.id);
    const r = await restoring;
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 3 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [start.build_number + 2, 'start', original, 'succeeded'],
      [start.build_number + 1, 'stop', v1, 'succeeded'],
      [start.build_number, 'start', v1, 'canceled'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    await expectDataKept(i, uid);
  });

  it('our restore start canceled while running after it created the deployment: the next try stops it on its (old) version before starting the backup again, not AlreadyExists three times', async () => {
    const i = 3;
    const uid = pvc(i);
    const { start, input } = await ourStart(i);
    expect((await client().waitForBuild(start.id, { timeoutMs: 30_000 })).job.status).toBe('succeeded');
    const restoring = acts().restoreByBuild(input);
    // After the stop of our start on v1, the restore start on the old version runs: someone cancels it.
    const deadline = Date.now() + 20_000;
    let restore: { id: string; build_number: number } | undefined;
    while (!restore) {
      if (Date.now() > deadline) throw new Error('the restore start never ran');
      const latest = (await client().workspace(ws(i).id)).latest_build;
      if (latest.build_number === start.build_number + 2 && latest.transition === 'start' && latest.job.status === 'running') restore = latest;
      else await new Promise((r) => setTimeout(r, 10));
    }
    await cancel(restore.id);
    const r = await restoring;
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 5 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [start.build_number + 4, 'start', original, 'succeeded'],
      [start.build_number + 3, 'stop', original, 'succeeded'],
      [start.build_number + 2, 'start', original, 'canceled'],
      [start.build_number + 1, 'stop', v1, 'succeeded'],
      [start.build_number, 'start', v1, 'succeeded'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    await expectDataKept(i, uid);
  });

  it('our restore start that failed having created nothing (its state still the backup, byte for byte) is tried again on top of it, with no stop in between', async () => {
    const i = 4;
    const uid = pvc(i);
    const { start, input } = await ourStart(i);
    expect((await client().waitForBuild(start.id, { timeoutMs: 30_000 })).job.status).toBe('succeeded');
    // The next start of this workspace is the restore (the stop of our start goes first): it fails before applying.
    sim.setFaults({ failBuilds: { workspaceId: ws(i).id, transition: 'start', times: 1, message: 'node not ready' } });
    let r: Awaited<ReturnType<ReturnType<typeof acts>['restoreByBuild']>>;
    try {
      r = await acts().restoreByBuild(input);
    } finally {
      sim.setFaults(undefined);
    }
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 4 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [start.build_number + 3, 'start', original, 'succeeded'],
      [start.build_number + 2, 'start', original, 'failed'],
      [start.build_number + 1, 'stop', v1, 'succeeded'],
      [start.build_number, 'start', v1, 'succeeded'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    expect(pvc(i)).toBe(uid);
    await expectNoV1UnderOriginal(i);
  });

  it("Option A's stop canceled in the dashboard before a daemon took it is not taken for stopped: final, naming it canceled and its id, for the compensation to count it as its own", async () => {
    const i = 5;
    const read = (await client().workspace(ws(i).id)).latest_build;
    sim.setDaemonOffline('sim-provisioner-1', true);
    let failure: unknown;
    try {
      const stopping = acts()
        .stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 })
        .catch((e: unknown) => e);
      let stop = (await client().workspace(ws(i).id)).latest_build;
      while (stop.build_number === read.build_number) {
        await new Promise((r) => setTimeout(r, 5));
        stop = (await client().workspace(ws(i).id)).latest_build;
      }
      await cancel(stop.id);
      failure = await stopping;
      expect(failure).toMatchObject({ type: FailureType.buildFailed, nonRetryable: true, details: [{ buildId: stop.id, buildNumber: read.build_number + 1 }] });
      expect((failure as Error).message).toMatch(new RegExp(`^stop build #${read.build_number + 1} of ${subjectOf(i)} ended canceled`));
    } finally {
      sim.setDaemonOffline('sim-provisioner-1', false);
    }
  });
});
