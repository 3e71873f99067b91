import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { makeRestoreByBuild } from '../../src/activities/restore-by-build';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { stepsOf } from './fixtures/steps';
import type { StateBackup } from '../../src/activities/backup-state';
import type { RestoreByBuildInput } from '../../src/activities/restore-by-build';
import { BlobStoreUnavailableError, createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { formatBlobRef, formatLocation } from '../../src/domain/blob-ref';
import { recordingCoder } from './fixtures/recorded-builds';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { backupState: makeBackupState, buildWithState: makeBuildWithState, restoreByBuild: makeRestoreByBuild, stopWorkspace: makeStopWorkspace };


/**
 * restoreByBuild, the way back after a failed migration (coderd/workspacebuilds.go
 * `postWorkspaceBuilds`: the build carries the backed-up state and the prior version in one
 * request). Each case is one thing the workflow can leave behind when it fails: nothing written,
 * our stop, our migrated build still running or with a lost id, an earlier attempt's restore,
 * someone else's build, a backup that cannot be read, a provisioner that keeps failing, and a
 * Coder that keeps other bytes than the restore build wrote.
 */
describe('restoreByBuild: puts the backed-up state back by one build on the prior version, only over builds of this migration', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  let original: string;
  const { sent, client: recordingClient } = recordingCoder();

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 33, buildLatencyMs: 5, provisioners: 1 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-rbb-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
    original = sim.template.originalVersionId;
  });
  afterAll(async () => {
    sim.setDaemonOffline('sim-provisioner-1', false);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sent.length = 0;
  });

  // Polls a build every 10 ms at most (the client's own pace starts at 500 ms): each case waits on the simulator's builds, which take 5 ms.
  const client = () => recordingClient(sim);
  const acts = (coder: CoderClient = client()) => stepsOf({ coder, blobs, notifier: { notify: async () => undefined } }, STEPS);
  const latest = async (id: string) => (await client().workspace(id)).latest_build;
  const pvc = (id: string) => sim.cluster.pvc('coder', homePvcName(id))?.uid;
  const ws = (i: number) => sim.workspaces()[i];
  const subjectOf = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const offline = (yes = true) => sim.setDaemonOffline('sim-provisioner-1', yes);
  /**
   * Resolves once the simulator has answered a GET of this build (the activity is waiting on it), or
   * as soon as the activity has ended without waiting: then the test's next assertion fails at once.
   */
  async function polled(buildId: string, activity: Promise<unknown>): Promise<void> {
    let ended = false;
    activity.then(
      () => (ended = true),
      () => (ended = true),
    );
    while (!ended && !sim.requestLog().some((r) => r.method === 'GET' && r.path.endsWith(`/workspacebuilds/${buildId}`))) await new Promise((r) => setTimeout(r, 5));
  }

  /** `run`, while the simulator fails workspace i's next `times` builds of `transition`; the fault is cleared after, whatever happens. */
  async function whileBuildsFail<T>(i: number, transition: 'start' | 'stop', message: string, run: () => Promise<T>, times = 1): Promise<T> {
    sim.setFaults({ failBuilds: { workspaceId: ws(i).id, transition, times, message } });
    try {
      return await run();
    } finally {
      sim.setFaults(undefined);
    }
  }

  /** The backup of workspace i's latest build, and the migrated twin of its bytes, as the workflow holds them. */
  async function backedUp(i: number): Promise<{ backup: StateBackup; migrated: { ref: string; sha256: string }; input: RestoreByBuildInput }> {
    const backup = await acts().backupState({ workspaceId: ws(i).id, subject: subjectOf(i) });
    const migrated = await blobs.put(Buffer.from(migrateStateByHand((await blobs.get(backup.blob.ref)).toString('utf8'))), { kind: 'migrated-state', label: 'test' });
    const input: RestoreByBuildInput = {
      workspaceId: ws(i).id,
      subject: subjectOf(i),
      prior: { transition: 'start', templateVersionId: original },
      readBuild: { id: backup.buildId, buildNumber: backup.buildNumber },
      backup,
      ownBuildIds: [],
      ownStateBuild: { transition: 'start', templateVersionId: v1 },
      timeoutMs: 30_000,
    };
    return { backup, migrated, input };
  }

  /** The migration's own write, done: a start on v1 carrying the migrated state. */
  async function migrated(i: number) {
    const b = await backedUp(i);
    const built = await acts().buildWithState({
      purpose: 'migrate',
      workspaceId: ws(i).id,
      subject: subjectOf(i),
      transition: 'start',
      templateVersionId: v1,
      state: b.migrated,
      read: b.input.readBuild,
      timeoutMs: 30_000,
    });
    sent.length = 0;
    return { ...b, built };
  }

  /** Every build restoreByBuild sent is the prior transition on the prior version carrying exactly the backup's bytes. */
  async function expectRestoreBuilds(backup: StateBackup, count: number) {
    expect(sent).toHaveLength(count);
    const bytes = await blobs.get(backup.blob.ref);
    for (const s of sent) {
      expect(s).toMatchObject({ transition: 'start', template_version_id: original });
      expect(Buffer.from(s.state ?? '', 'base64').equals(bytes)).toBe(true);
    }
  }

  it('when nothing of this migration reached Coder, changes nothing and builds nothing', async () => {
    const { input } = await backedUp(0);
    const before = await latest(ws(0).id);
    await expect(acts().restoreByBuild(input)).resolves.toEqual({ changed: false });
    expect(sent).toEqual([]);
    expect((await latest(ws(0).id)).id).toBe(before.id);
    // The same without a backup (the run failed before it): the build preflight read is the baseline.
    const { backup: _ignored, ...noBackup } = input;
    await expect(acts().restoreByBuild(noBackup)).resolves.toEqual({ changed: false });
    expect(sent).toEqual([]);
  });

  it("a read build with our migrated build's shape (this token's user's own start on the target version) and nothing of this migration after it: nothing is built over it", async () => {
    const i = 31;
    const read = await startBuild(sim, ws(i).id, { transition: 'start', template_version_id: v1 });
    const { input } = await backedUp(i);
    expect(input.readBuild.id).toBe(read.id);
    sent.length = 0;
    // As preflight reads it: the prior is that start on v1, the very shape of the migration's own build.
    await expect(acts().restoreByBuild({ ...input, prior: { transition: 'start', templateVersionId: v1 } })).resolves.toEqual({ changed: false });
    expect(sent).toEqual([]);
    expect((await latest(ws(i).id)).id).toBe(read.id);
  });

  it("a read build that is not at the prior (its owner's start that failed; prior: a stop) with nothing of this migration after it: left as its owner left it, nothing built over it", async () => {
    const failed = await whileBuildsFail(21, 'start', 'node pool exhausted', () => startBuild(sim, ws(21).id, { transition: 'start' }));
    expect(failed.job.status).toBe('failed');
    const uid = pvc(ws(21).id);
    const backup = await acts().backupState({ workspaceId: ws(21).id, subject: subjectOf(21) });
    expect(backup.buildId).toBe(failed.id);
    sent.length = 0;
    // As preflight reads it: a start that did not succeed leaves the workspace with a stop as its prior transition.
    const input: RestoreByBuildInput = {
      workspaceId: ws(21).id,
      subject: subjectOf(21),
      prior: { transition: 'stop', templateVersionId: failed.template_version_id },
      readBuild: { id: failed.id, buildNumber: failed.build_number },
      backup,
      ownBuildIds: [],
      timeoutMs: 30_000,
    };
    await expect(acts().restoreByBuild(input)).resolves.toEqual({ changed: false });
    const { backup: _ignored, ...noBackup } = input;
    await expect(acts().restoreByBuild(noBackup)).resolves.toEqual({ changed: false });
    expect(sent).toEqual([]);
    expect(await latest(ws(21).id)).toMatchObject({ id: failed.id, transition: 'start', job: { status: 'failed' } });
    expect(pvc(ws(21).id)).toBe(uid);
  });

  it('a Coder that fails to give the workspace (500 after the retries) fails the step for a retry, never taken for a deleted one: nothing sent, our build stays for the next try', async () => {
    const { input, built } = await migrated(22);
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/workspaces/${ws(22).id}`] });
    try {
      await expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).rejects.toMatchObject({ type: 'CoderApi.server', nonRetryable: false });
    } finally {
      sim.setFaults(undefined);
    }
    expect(sent).toEqual([]);
    expect((await latest(ws(22).id)).id).toBe(built.buildId);
  });

  it('after our migrated build, builds once on the prior version with the backed-up bytes; its state is checked and the PVC is the one from before', async () => {
    const { input, backup, built } = await migrated(1);
    const uid = pvc(ws(1).id);
    const r = await acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] });
    const now = await latest(ws(1).id);
    expect(r).toEqual({ changed: true, buildId: now.id });
    expect(now).toMatchObject({ build_number: built.buildNumber + 1, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    await expectRestoreBuilds(backup, 1);
    expect(sim.stateOf(ws(1).id)).not.toContain('_v1');
    expect(pvc(ws(1).id)).toBe(uid);
    // The next attempt of the activity finds that restore build and checks it again: nothing more is built.
    await expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).resolves.toEqual({ changed: true, buildId: now.id });
    expect(sent).toHaveLength(1);
  });

  it('knows our migrated build by its shape when its id was lost (the attempt died after the POST), and restores over it', async () => {
    const { input, backup, built } = await migrated(2);
    const r = await acts().restoreByBuild({ ...input, ownBuildIds: [] });
    expect(r).toMatchObject({ changed: true });
    await expectRestoreBuilds(backup, 1);
    expect(await latest(ws(2).id)).toMatchObject({ build_number: built.buildNumber + 1, template_version_id: original });
  });

  it("Option A: after our own stop (the backed-up build), starts the workspace again on the prior version with the stopped state", async () => {
    const read = await latest(ws(3).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(3).id, subject: subjectOf(3), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input, backup } = await backedUp(3);
    expect(backup.buildId).toBe(stop.buildId);
    sent.length = 0;
    const r = await acts().restoreByBuild({ ...input, ownBuildIds: [stop.buildId] });
    expect(r).toMatchObject({ changed: true });
    await expectRestoreBuilds(backup, 1);
    expect(await latest(ws(3).id)).toMatchObject({ build_number: stop.buildNumber + 1, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
  });

  it('Option A after our migrated start (a cancel or a failed check after it): stops that start on its version first, then starts the backup on the prior version, and the workspace runs', async () => {
    const i = 19;
    const read = await latest(ws(i).id);
    const uid = pvc(ws(i).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input, backup, migrated: bytes } = await backedUp(i);
    const built = await acts().buildWithState({ purpose: 'migrate', workspaceId: ws(i).id, subject: subjectOf(i), transition: 'start', templateVersionId: v1, state: bytes, read: input.readBuild, timeoutMs: 30_000 });
    sent.length = 0;
    const again = { ...input, readBuild: { id: read.id, buildNumber: read.build_number }, ownBuildIds: [stop.buildId, built.buildId] };
    const r = await acts().restoreByBuild(again);
    const now = await latest(ws(i).id);
    // The backup is our stop's state, without the deployment our start made: a start on top of that start would create it again (AlreadyExists).
    expect(now).toMatchObject({ build_number: built.buildNumber + 2, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(r).toEqual({ changed: true, buildId: now.id });
    expect(sent[0]).toEqual({ transition: 'stop', template_version_id: v1 });
    expect(Buffer.from(sent[1].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(2);
    expect(sim.stateOf(ws(i).id)).not.toContain('_v1');
    expect(pvc(ws(i).id)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
    // The next attempt finds that restore and checks it again: nothing more is built.
    await expect(acts().restoreByBuild(again)).resolves.toEqual({ changed: true, buildId: now.id });
    expect(sent).toHaveLength(2);
  });

  it("Option A, retried after an attempt that built its stop and died: that stop (known by the id it heartbeated) is taken as ours, and the backup is started on top of it, nothing stopped twice", async () => {
    const i = 26;
    const read = await latest(ws(i).id);
    const uid = pvc(ws(i).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input, backup, migrated: bytes } = await backedUp(i);
    const built = await acts().buildWithState({ purpose: 'migrate', workspaceId: ws(i).id, subject: subjectOf(i), transition: 'start', templateVersionId: v1, state: bytes, read: input.readBuild, timeoutMs: 30_000 });
    // The earlier attempt's stop of our start, on its version; the attempt died before its restore start.
    const earlierStop = await client().waitForBuild((await client().createWorkspaceBuild(ws(i).id, { transition: 'stop', template_version_id: v1 })).id, { timeoutMs: 30_000 });
    expect(earlierStop.job.status).toBe('succeeded');
    sent.length = 0;
    const again = { ...input, readBuild: { id: read.id, buildNumber: read.build_number }, ownBuildIds: [stop.buildId, built.buildId] };
    const r = await new MockActivityEnvironment({ heartbeatDetails: { buildId: earlierStop.id } }).run(acts().restoreByBuild, again);
    const now = await latest(ws(i).id);
    expect(now).toMatchObject({ build_number: earlierStop.build_number + 1, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(r).toEqual({ changed: true, buildId: now.id });
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(pvc(ws(i).id)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
  });

  it('Option A, retried after an attempt whose restore start succeeded and was heartbeated: that start is the restore, checked, and nothing more is built', async () => {
    const i = 27;
    const read = await latest(ws(i).id);
    const uid = pvc(ws(i).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input, migrated: bytes } = await backedUp(i);
    const built = await acts().buildWithState({ purpose: 'migrate', workspaceId: ws(i).id, subject: subjectOf(i), transition: 'start', templateVersionId: v1, state: bytes, read: input.readBuild, timeoutMs: 30_000 });
    const again = { ...input, readBuild: { id: read.id, buildNumber: read.build_number }, ownBuildIds: [stop.buildId, built.buildId] };
    const first = await acts().restoreByBuild(again);
    sent.length = 0;
    // The attempt died after its restore start, having heartbeated that start's id.
    const r = await new MockActivityEnvironment({ heartbeatDetails: { buildId: (first as { buildId: string }).buildId } }).run(acts().restoreByBuild, again);
    expect(r).toEqual(first);
    expect(sent).toHaveLength(0);
    expect(await latest(ws(i).id)).toMatchObject({ id: (first as { buildId: string }).buildId, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(pvc(ws(i).id)).toBe(uid);
  });

  /**
   * The v1 source whose start fails after creating the deployment, as a rollout that times out does on
   * a real cluster (test/workflows/real-stack.test.ts): two config maps of one name, made after it,
   * the second AlreadyExists. The simulator stores the failed build's state as Terraform wrote it,
   * deployment included, as provisionerd's FailJob does (coderd/provisionerdserver/provisionerdserver.go).
   */
  const FAILS_AFTER_DEPLOYMENT = `
resource "kubernetes_config_map_v1" "first" {
  count      = data.coder_workspace.me.start_count
  depends_on = [kubernetes_deployment_v1.main]
  metadata {
    name      = "twice-\${data.coder_workspace.me.id}"
    namespace = var.namespace
  }
}

resource "kubernetes_config_map_v1" "second" {
  count      = data.coder_workspace.me.start_count
  depends_on = [kubernetes_config_map_v1.first]
  metadata {
    name      = "twice-\${data.coder_workspace.me.id}"
    namespace = var.namespace
  }
}
`;
  const deploymentOf = (id: string) => sim.cluster.objects().find((o) => o.kind === 'Deployment' && o.name === `coder-${id}`);

  /** Option A to the point of our migrated start on `version`, which fails (with the fault given, if any). */
  async function failedMigratedStart(i: number, version: string) {
    const read = await latest(ws(i).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(i).id, subject: subjectOf(i), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input, backup, migrated: bytes } = await backedUp(i);
    expect(deploymentOf(ws(i).id)).toBeUndefined();
    const ours = await client().createWorkspaceBuild(ws(i).id, { transition: 'start', template_version_id: version, state: await blobs.get(bytes.ref) });
    const failed = await client().waitForBuild(ours.id, { timeoutMs: 30_000 });
    expect(failed.job.status).toBe('failed');
    sent.length = 0;
    // A failed attempt reports no id: the step knows our start by its shape.
    const again: RestoreByBuildInput = { ...input, readBuild: { id: read.id, buildNumber: read.build_number }, ownBuildIds: [stop.buildId], ownStateBuild: { transition: 'start', templateVersionId: version } };
    return { again, backup, failed, bytes };
  }

  it('Option A after our migrated start that failed having created the deployment: stops that start on its version with the state Coder holds for it, then starts the backup; no AlreadyExists, the PVC kept', async () => {
    const i = 23;
    const uid = pvc(ws(i).id);
    const failing = (await pushTemplateVersion(sim, fixtureSource('template-v1') + FAILS_AFTER_DEPLOYMENT, { name: 'v1-fails-after-deployment' })).id;
    const { again, backup, failed } = await failedMigratedStart(i, failing);
    expect(failed.job.error).toMatch(/configmaps "twice-.*" already exists/);
    // What FailJob stores: the state the failed apply wrote, with the deployment it created; the backup (our stop's) has none.
    expect((await client().getWorkspaceBuildState(failed.id)).toString('utf8')).toContain('"kubernetes_deployment_v1"');
    expect((await blobs.get(backup.blob.ref)).toString('utf8')).not.toContain('kubernetes_deployment');
    const created = deploymentOf(ws(i).id);
    expect(created).toBeDefined();
    const r = await acts().restoreByBuild(again);
    const now = await latest(ws(i).id);
    expect(now).toMatchObject({ build_number: failed.build_number + 2, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(r).toEqual({ changed: true, buildId: now.id });
    // The stop carries no state: Coder's own for the failed build, which holds the deployment, so the stop removes it.
    expect(sent[0]).toEqual({ transition: 'stop', template_version_id: failing });
    expect(Buffer.from(sent[1].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(2);
    expect(deploymentOf(ws(i).id)?.uid).not.toBe(created?.uid);
    expect(sim.stateOf(ws(i).id)).not.toContain('_v1');
    expect(pvc(ws(i).id)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
  });

  it('Option A, the stop before the restore start fails once (a provisioner hiccup): stopped again on its version, then the backup is started; the deployment it left is not created twice, the PVC kept', async () => {
    const i = 29;
    const uid = pvc(ws(i).id);
    const failing = (await pushTemplateVersion(sim, fixtureSource('template-v1') + FAILS_AFTER_DEPLOYMENT, { name: 'v1-fails-after-deployment-2' })).id;
    const { again, backup, failed } = await failedMigratedStart(i, failing);
    const created = deploymentOf(ws(i).id);
    expect(created).toBeDefined();
    const r = await whileBuildsFail(i, 'stop', 'etcdserver: request timed out', () => acts().restoreByBuild(again));
    const now = await latest(ws(i).id);
    expect(now).toMatchObject({ build_number: failed.build_number + 3, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(r).toEqual({ changed: true, buildId: now.id });
    // The failed stop changed nothing (the deployment stayed): the second stop removes it, carrying Coder's own state again.
    expect(sent.slice(0, 2)).toEqual([
      { transition: 'stop', template_version_id: failing },
      { transition: 'stop', template_version_id: failing },
    ]);
    expect(Buffer.from(sent[2].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(3);
    expect(deploymentOf(ws(i).id)?.uid).not.toBe(created?.uid);
    expect(sim.stateOf(ws(i).id)).not.toContain('_v1');
    expect(pvc(ws(i).id)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
  });

  it('Option A, retried after an attempt whose stop before the restore failed (known by the id it heartbeated): stopped again, never started on top of it', async () => {
    const i = 30;
    const uid = pvc(ws(i).id);
    const failing = (await pushTemplateVersion(sim, fixtureSource('template-v1') + FAILS_AFTER_DEPLOYMENT, { name: 'v1-fails-after-deployment-3' })).id;
    const { again, backup } = await failedMigratedStart(i, failing);
    const created = deploymentOf(ws(i).id);
    const earlierStop = await whileBuildsFail(i, 'stop', 'etcdserver: request timed out', async () =>
      client().waitForBuild((await client().createWorkspaceBuild(ws(i).id, { transition: 'stop', template_version_id: failing })).id, { timeoutMs: 30_000 }),
    );
    expect(earlierStop.job.status).toBe('failed');
    expect(deploymentOf(ws(i).id)?.uid).toBe(created?.uid);
    sent.length = 0;
    const r = await new MockActivityEnvironment({ heartbeatDetails: { buildId: earlierStop.id } }).run(acts().restoreByBuild, again);
    const now = await latest(ws(i).id);
    expect(now).toMatchObject({ build_number: earlierStop.build_number + 2, transition: 'start', template_version_id: original, job: { status: 'succeeded' } });
    expect(r).toEqual({ changed: true, buildId: now.id });
    expect(sent[0]).toEqual({ transition: 'stop', template_version_id: failing });
    expect(Buffer.from(sent[1].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(2);
    expect(sim.stateOf(ws(i).id)).not.toContain('_v1');
    expect(pvc(ws(i).id)).toBe(uid);
  });

  it('Option A after our migrated start that failed having created nothing: its stop on its version changes nothing, then the backup is started', async () => {
    const i = 24;
    const uid = pvc(ws(i).id);
    const { again, backup, failed, bytes } = await whileBuildsFail(i, 'start', 'node not ready', () => failedMigratedStart(i, v1));
    expect(deploymentOf(ws(i).id)).toBeUndefined();
    const r = await acts().restoreByBuild(again);
    const builds = await client().workspaceBuilds(ws(i).id, { limit: 2 });
    expect(builds.map((b) => [b.build_number, b.transition, b.template_version_id, b.job.status])).toEqual([
      [failed.build_number + 2, 'start', original, 'succeeded'],
      [failed.build_number + 1, 'stop', v1, 'succeeded'],
    ]);
    expect(r).toEqual({ changed: true, buildId: builds[0].id });
    // The stop held what our start was given, the migrated state, and left it as it was.
    const managed = (b: Buffer) =>
      (JSON.parse(b.toString('utf8')) as { resources: { mode: string; type: string; name: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[] }).resources
        .filter((x) => x.mode === 'managed')
        .map((x) => [x.type, x.name, x.instances.map((n) => n.attributes.metadata?.[0]?.uid)]);
    expect(managed(await client().getWorkspaceBuildState(builds[1].id))).toEqual(managed(await blobs.get(bytes.ref)));
    expect(managed(await blobs.get(bytes.ref)).filter(([type]) => String(type).startsWith('kubernetes_'))).toEqual([['kubernetes_persistent_volume_claim_v1', 'home', [uid]]]);
    expect(sent[0]).toEqual({ transition: 'stop', template_version_id: v1 });
    expect(Buffer.from(sent[1].state ?? '', 'base64').equals(await blobs.get(backup.blob.ref))).toBe(true);
    expect(sent).toHaveLength(2);
    expect(pvc(ws(i).id)).toBe(uid);
    expect(sim.cluster.pvcLosses().filter((l) => l.workspace === ws(i).id)).toEqual([]);
  });

  it('Option A after our failed migrated start, with a backup that cannot be read: nothing is built, not even the stop that would go first', async () => {
    const i = 25;
    const { again, backup, failed } = await whileBuildsFail(i, 'start', 'node not ready', () => failedMigratedStart(i, v1));
    await blobs.remove(backup.blob.sha256);
    await expect(acts().restoreByBuild(again)).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringContaining(`Nothing was written to Coder. Coder keeps its own copy of the state from before the migration on build #${backup.buildNumber}`),
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(i).id)).id).toBe(failed.id);
  });

  it('a backup kept in another store: the message a user reads has one full stop between sentences, never "backup.. Nothing"', async () => {
    const i = 28;
    const { again, backup } = await whileBuildsFail(i, 'start', 'node not ready', () => failedMigratedStart(i, v1));
    // The file store's "lives in store …" message ends with a sentence of its own ("…so any of them can read every backup.").
    const elsewhere = { ...again, backup: { ...backup, blob: { ...backup.blob, ref: formatBlobRef(formatLocation({ kind: 'file', dir: '/srv/other-worker' }), backup.blob.sha256) } } };
    const failure = (await acts().restoreByBuild(elsewhere).then(
      () => undefined,
      (e: unknown) => e as { type: string; message: string },
    ))!;
    expect(failure.type).toBe(FailureType.blobUnavailable);
    expect(failure.message).toContain('so any of them can read every backup. Nothing was written to Coder. Coder keeps its own copy');
    expect(failure.message).not.toMatch(/\.\./);
    // On the last attempt, "gave up" goes inside the sentence it qualifies.
    const last = await new MockActivityEnvironment({ attempt: 3 }, { logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } }).run(() => acts().restoreByBuild(elsewhere).then(() => '', (e: unknown) => (e as Error).message));
    expect(last).toContain('read every backup (gave up after 3 attempts). Nothing was written to Coder.');
    expect(last).not.toMatch(/\.\.|\. \(gave up/);
    expect(sent).toEqual([]);
  });

  it("the owner's Update after the backup has our migrated build's shape (a start on v1) but is theirs: left as it is, named, nothing built over it", async () => {
    const i = 20;
    const { input } = await backedUp(i);
    const update = await api<{ id: string; build_number: number }>(sim, 'POST', `/workspaces/${ws(i).id}/builds`, { token: sim.tokenOf(ws(i).owner), json: { transition: 'start', template_version_id: v1 } });
    expect(update.status).toBe(201);
    const done = await client().waitForBuild(update.body.id, { timeoutMs: 30_000 });
    sent.length = 0;
    const r = await acts().restoreByBuild({ ...input, ownBuildIds: [] });
    expect(r).toMatchObject({ changed: false, leftAsIs: expect.stringContaining(`build #${update.body.build_number} (start) by ${ws(i).owner} came after the backup and no migrated state reached Coder: left as it is`) });
    expect(sent).toEqual([]);
    expect((await latest(ws(i).id)).id).toBe(done.id);
  });

  it('Option A without a backup (the run failed between the stop and the backup): starts it again on the prior version on the state it has', async () => {
    const read = await latest(ws(4).id);
    const uid = pvc(ws(4).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(4).id, subject: subjectOf(4), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    sent.length = 0;
    const r = await acts().restoreByBuild({
      workspaceId: ws(4).id,
      subject: subjectOf(4),
      prior: { transition: 'start', templateVersionId: original },
      readBuild: { id: read.id, buildNumber: read.build_number },
      ownBuildIds: [stop.buildId],
      timeoutMs: 30_000,
    });
    const now = await latest(ws(4).id);
    expect(r).toEqual({ changed: true, buildId: now.id });
    expect(sent).toEqual([{ transition: 'start', template_version_id: original }]);
    expect(now).toMatchObject({ build_number: stop.buildNumber + 1, transition: 'start', job: { status: 'succeeded' } });
    expect(pvc(ws(4).id)).toBe(uid);
  });

  it('without a backup, never builds the prior version on the migrated state our build left: refused before anything is sent, the PVC kept', async () => {
    const { input, built } = await migrated(14);
    const uid = pvc(ws(14).id);
    const { backup: _b, ...noBackup } = input;
    await expect(acts().restoreByBuild({ ...noBackup, ownBuildIds: [built.buildId] })).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: expect.stringMatching(
        new RegExp(`^restore build refused for ${input.subject}: template version ${original} is older than this workspace's migrated state \\(kubernetes_persistent_volume_claim_v1\\.home is migrated`),
      ),
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(14).id)).id).toBe(built.buildId);
    expect(pvc(ws(14).id)).toBe(uid);
  });

  it('waits for our migrated build while it runs, then restores on top of it', async () => {
    const { input, backup, migrated: m } = await backedUp(5);
    offline();
    try {
      const ours = await client().createWorkspaceBuild(ws(5).id, { transition: 'start', template_version_id: v1, state: await blobs.get(m.ref) });
      sent.length = 0;
      const restoring = acts().restoreByBuild({ ...input, ownBuildIds: [ours.id] });
      await polled(ours.id, restoring);
      expect(sent).toEqual([]);
      offline(false);
      await expect(restoring).resolves.toMatchObject({ changed: true });
      await expectRestoreBuilds(backup, 1);
      expect(await latest(ws(5).id)).toMatchObject({ build_number: ours.build_number + 1, template_version_id: original, job: { status: 'succeeded' } });
    } finally {
      offline(false);
    }
  });

  it('waits for an earlier attempt\'s restore build that still runs, and takes it as the restore: no second build', async () => {
    const { input, backup, built } = await migrated(6);
    offline();
    try {
      const earlier = await client().createWorkspaceBuild(ws(6).id, { transition: 'start', template_version_id: original, state: await blobs.get(backup.blob.ref) });
      sent.length = 0;
      const restoring = acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] });
      await polled(earlier.id, restoring);
      offline(false);
      await expect(restoring).resolves.toEqual({ changed: true, buildId: earlier.id });
      expect(sent).toEqual([]);
    } finally {
      offline(false);
    }
  });

  it("someone else's build still running is waited for as busy (retryable), naming it; nothing is sent", async () => {
    const { input, built } = await migrated(7);
    offline();
    try {
      const theirs = await api<{ id: string; build_number: number }>(sim, 'POST', `/workspaces/${ws(7).id}/builds`, { json: { transition: 'stop' } });
      expect(theirs.status).toBe(201);
      const initiator = (await latest(ws(7).id)).initiator_name;
      expect(initiator).toBeTruthy();
      // A short wait: the step must not wait at all, and a step that waited would fail on it, not hang.
      await expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId], timeoutMs: 1_000 })).rejects.toMatchObject({
        type: FailureType.busy,
        nonRetryable: false,
        message: `restore build: ${input.subject}: build #${theirs.body.build_number} by ${initiator} is pending; waiting for it`,
      });
      expect(sent).toEqual([]);
    } finally {
      offline(false);
    }
  });

  it('a build someone made on top of our build known by its shape is a conflict; without a backup the message offers no restore', async () => {
    const { input, built } = await migrated(8);
    const theirs = await startBuild(sim, ws(8).id, { transition: 'stop' });
    const by = (await latest(ws(8).id)).initiator_name;
    expect(by).toBeTruthy();
    const { backup: _b, ...noBackup } = input;
    await expect(acts().restoreByBuild({ ...noBackup, ownBuildIds: [] })).rejects.toMatchObject({
      type: FailureType.conflict,
      nonRetryable: true,
      message: `restore build: ${input.subject}: build #${theirs.build_number} (stop) by ${by} was made on top of this migration's build #${built.buildNumber}; not restoring over it.`,
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(8).id)).id).toBe(theirs.id);
  });

  it('someone else\'s build after the backup, with nothing of ours before it, is left as it is, named', async () => {
    const { input } = await backedUp(9);
    const theirs = await startBuild(sim, ws(9).id, { transition: 'stop' });
    const by = (await latest(ws(9).id)).initiator_name;
    expect(by).toBeTruthy();
    await expect(acts().restoreByBuild(input)).resolves.toEqual({
      changed: false,
      leftAsIs: `build #${theirs.build_number} (stop) by ${by} came after the backup and no migrated state reached Coder: left as it is`,
    });
    expect(sent).toEqual([]);
  });

  it("its owner's Update and Restart after the backup (a stop, then a start on v1), with nothing of ours between: their two builds are left as they are, neither taken for this migration's", async () => {
    const i = 32;
    const { input } = await backedUp(i);
    const token = sim.tokenOf(ws(i).owner);
    for (const json of [{ transition: 'stop' }, { transition: 'start', template_version_id: v1 }]) {
      const b = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws(i).id}/builds`, { token, json });
      expect(b.status).toBe(201);
      await client().waitForBuild(b.body.id, { timeoutMs: 30_000 });
    }
    const restart = await latest(ws(i).id);
    sent.length = 0;
    await expect(acts().restoreByBuild(input)).resolves.toEqual({
      changed: false,
      leftAsIs: `build #${restart.build_number} (start) by ${ws(i).owner} came after the backup and no migrated state reached Coder: left as it is`,
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(i).id)).id).toBe(restart.id);
  });

  it("someone else's build after the backup that failed is left as it is too, and the message says it failed and how to tell and mend damage", async () => {
    const { input } = await backedUp(18);
    // A stop (not the restore's shape: a failed build of the prior transition and version is taken for a failed restore and built over).
    const theirs = await whileBuildsFail(18, 'stop', 'quota exceeded', () => startBuild(sim, ws(18).id, { transition: 'stop' }));
    expect(theirs.job.status).toBe('failed');
    const by = (await latest(ws(18).id)).initiator_name;
    await expect(acts().restoreByBuild(input)).resolves.toEqual({
      changed: false,
      leftAsIs:
        `build #${theirs.build_number} (stop) by ${by} came after the backup and no migrated state reached Coder: left as it is; ` +
        `it ended failed: 'wsmigrate scan' tells whether it left the workspace damaged, 'wsmigrate recover ${subjectOf(18)}' brings it back from its newest good build`,
    });
    expect(sent).toEqual([]);
  });

  it('a workspace deleted after our migrated build (its owner, an admin): nothing to build back onto, said so, nothing sent, the backup named', async () => {
    const { input, backup, built } = await migrated(17);
    await startBuild(sim, ws(17).id, { transition: 'delete' });
    await expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).resolves.toEqual({
      changed: false,
      leftAsIs: `the workspace was deleted meanwhile: nothing to restore; the backup stays at ${backup.blob.ref}`,
    });
    expect(sent).toEqual([]);
  });

  it("Option A, failed before the state build: the owner's Update after our stop (the backed-up build) is left as it is, as our stop wrote no migrated state", async () => {
    const read = await latest(ws(15).id);
    const stop = await acts().stopWorkspace({ workspaceId: ws(15).id, subject: subjectOf(15), afterBuildNumber: read.build_number, timeoutMs: 30_000 });
    const { input } = await backedUp(15);
    const theirs = await startBuild(sim, ws(15).id, { transition: 'start', template_version_id: v1 });
    sent.length = 0;
    const { ownStateBuild: _never, ...noStateBuild } = input;
    await expect(acts().restoreByBuild({ ...noStateBuild, ownBuildIds: [stop.buildId] })).resolves.toMatchObject({
      changed: false,
      leftAsIs: expect.stringMatching(new RegExp(`^build #${theirs.build_number} \\(start\\) .*no migrated state reached Coder: left as it is$`)),
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(15).id)).id).toBe(theirs.id);
  });

  it('a provisioner that fails every restore build: three builds, then a final failure naming the last one; the PVC is untouched', async () => {
    const { input, backup, built } = await migrated(10);
    const uid = pvc(ws(10).id);
    // Four failures in store, one more than the restore tries: a restore that tried on would succeed on the fifth and fail this test at once, not hang.
    await whileBuildsFail(
      10,
      'start',
      'node pool exhausted',
      () =>
        expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).rejects.toMatchObject({
          type: FailureType.buildFailed,
          nonRetryable: true,
          message: expect.stringMatching(new RegExp(`^restore build #${built.buildNumber + 3} of ${input.subject} \\(start on version ${original}\\) ended failed: .*node pool exhausted`)),
        }),
      4,
    );
    await expectRestoreBuilds(backup, 3);
    expect(pvc(ws(10).id)).toBe(uid);
  });

  it('a backup that cannot be read: nothing is built, and the message says where Coder still holds the old state and how to restore by hand', async () => {
    const { input, backup, built } = await migrated(11);
    await blobs.remove(backup.blob.sha256);
    await expect(acts().restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringContaining(
        `. Nothing was written to Coder. Coder keeps its own copy of the state from before the migration on build #${backup.buildNumber} (coder state pull ${input.subject} --build ${backup.buildNumber}). ` +
          `Make the backup readable (or find it), then restore it by hand: wsmigrate state restore ${input.subject} --backup ${backup.blob.ref} --yes`,
      ),
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(11).id)).id).toBe(built.buildId);
  });

  it('a blob store that fails once is handed to Temporal to retry (retryable, nothing sent), not retried inside the step as a failed build is', async () => {
    const { input, built } = await migrated(16);
    let failures = 1;
    const flaky: BlobStore = {
      ...blobs,
      get: (ref) => (failures-- > 0 ? Promise.reject(new BlobStoreUnavailableError('s3://b/p did not answer (ECONNRESET)', 's3://b/p', 'sha256/00')) : blobs.get(ref)),
    };
    await expect(stepsOf({ coder: client(), blobs: flaky, notifier: { notify: async () => undefined } }, STEPS).restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      nonRetryable: false,
    });
    expect(sent).toEqual([]);
    expect((await latest(ws(16).id)).id).toBe(built.buildId);
  });

  for (const [i, held, problem] of [
    [12, ' \n', 'it holds no state at all'],
    [13, '{"version": 4, "resources": [', 'its state is unreadable ('],
  ] as const) {
    it(`a restore build whose state Coder gives back as ${held.trim() === '' ? 'nothing but blanks' : 'broken JSON'} is not called restored: a conflict saying so and how to put it back`, async () => {
      const { input, backup, built } = await migrated(i);
      const real = client();
      // Coder answering the read-back of the restore build's state with these bytes (the only state read of a restore with a backup).
      const lying = new Proxy(real, {
        get(target, prop) {
          if (prop === 'getWorkspaceBuildState') return async () => Buffer.from(held);
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      await expect(acts(lying).restoreByBuild({ ...input, ownBuildIds: [built.buildId] })).rejects.toMatchObject({
        type: FailureType.conflict,
        nonRetryable: true,
        message: expect.stringContaining(
          `restore build: ${input.subject}: restore build #${built.buildNumber + 1} succeeded, but the state Coder holds for it is not the backup's: ${problem}`,
        ),
      });
      const err = await acts(lying).restoreByBuild({ ...input, ownBuildIds: [built.buildId] }).catch((e: Error) => e);
      expect((err as Error).message).toMatch(new RegExp(`Do not start or update the workspace until its state is put back; once it is idle: wsmigrate state restore ${input.subject} --backup ${backup.blob.ref.replace(/[.]/g, '\\.')} --yes$`));
      await expectRestoreBuilds(backup, 1);
    });
  }
});
