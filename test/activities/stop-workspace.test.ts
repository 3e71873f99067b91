import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeStartPinned } from '../../src/activities/start-pinned';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { makeTrackBuildChanges } from '../../src/activities/track-build-changes';
import { stepsOf } from './fixtures/steps';
import { withCombined } from './fixtures/combined';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { sha256Hex } from '../../src/adapters/hash';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { pushTemplateVersion } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { stopWorkspace: makeStopWorkspace, startPinned: makeStartPinned, backupState: makeBackupState, trackBuildChanges: makeTrackBuildChanges };

/**
 * Option A's stop takes a newer build for its own only when it made it: the first half of an owner's
 * "Update and Restart" (a stop on the previous version) or Coder's autostop has the same shape, and
 * taking it for ours would back up what the owner's next build leaves behind.
 */
describe("option A's stop and someone else's stop", () => {
  let sim: CoderSimulator;
  let dir: string;
  beforeAll(async () => {
    // Three daemons, as Coder's built-in ones: a test takes them offline to hold a job in the queue.
    sim = await startSimulator({ workspaces: 8, buildLatencyMs: 5, provisioners: 3 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-stop-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => new CoderClient({ url: sim.url, token: sim.token });
  const acts = () => withCombined(stepsOf({ coder: admin(), blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } }, STEPS));

  it("an owner's stop after the preflight is theirs: the step refuses it (someone built meanwhile) and builds nothing", async () => {
    const ws = sim.workspaces()[0];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    const owner = new CoderClient({ url: sim.url, token: sim.tokenOf(ws.owner) });
    const theirs = await owner.waitForBuild((await owner.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    await expect(acts().stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000 })).rejects.toMatchObject({
      type: 'WsmigrateBuiltMeanwhile',
      message: expect.stringMatching(new RegExp(`build #${theirs.build_number} \\(stop, succeeded\\) was started by ${ws.owner} after build #${read}`)),
    });
    expect((await admin().workspace(ws.id)).latest_build.id).toBe(theirs.id);
  });

  it('a stop this token started right after the read (an attempt that died before its heartbeat) is taken as ours, not run twice', async () => {
    const ws = sim.workspaces()[1];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    const ours = await admin().createWorkspaceBuild(ws.id, { transition: 'stop' });
    const done = await acts().stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000 });
    expect(done).toEqual({ buildId: ours.id, buildNumber: read + 1 });
    expect((await admin().workspace(ws.id)).latest_build.build_number).toBe(read + 1);
  });

  it('a stop the provisioner fails is final, naming the build (so the compensation counts it as ours) and what the provisioner said', async () => {
    const ws = sim.workspaces()[4];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'stop', times: 1, message: 'node pool exhausted' } });
    try {
      const err = (await acts()
        .stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000 })
        .catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string; details: unknown[] };
      const failed = (await admin().workspace(ws.id)).latest_build;
      expect(failed).toMatchObject({ build_number: read + 1, transition: 'stop', job: { status: 'failed' } });
      expect(err).toMatchObject({ type: FailureType.buildFailed, nonRetryable: true, details: [{ buildId: failed.id, buildNumber: read + 1 }] });
      expect(err.message).toMatch(new RegExp(`^stop build #${read + 1} of ${ws.owner}/${ws.name} ended failed: .*node pool exhausted`));
    } finally {
      sim.setFaults(undefined);
    }
  });

  it('a stop whose wait gives up while its job sits in the queue names that build (so the compensation counts it as ours), the failure as it was', async () => {
    const ws = sim.workspaces()[7];
    const read = (await admin().workspace(ws.id)).latest_build.build_number;
    const daemons = ['sim-provisioner-1', 'sim-provisioner-2', 'sim-provisioner-3'];
    for (const d of daemons) sim.setDaemonOffline(d, true);
    try {
      const err = (await acts()
        .stopWorkspace({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 200 })
        .catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string; details: unknown[] };
      const queued = (await admin().workspace(ws.id)).latest_build;
      expect(queued).toMatchObject({ build_number: read + 1, transition: 'stop', job: { status: 'pending' } });
      // Retryable as before (the wait may be tried again); now with the build it made.
      expect(err).toMatchObject({ nonRetryable: false, details: [{ buildId: queued.id, buildNumber: read + 1 }] });
      expect(err.message).toMatch(new RegExp(`^Timed out after .* \\(${ws.owner}/${ws.name} #${read + 1}, stop\\) to finish: its job is still "pending"`));
    } finally {
      for (const d of daemons) sim.setDaemonOffline(d, false);
    }
    await admin().waitForBuild((await admin().workspace(ws.id)).latest_build.id);
  });

  describe('startPinned: a start on the version it names, never the previous build\'s', () => {
    let pinned: string;
    beforeAll(async () => {
      // The same source as a new version: pinning shows, and nothing is migrated by it.
      pinned = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF)).id;
    });

    it('builds a start on the pinned version, after the build it read', async () => {
      const ws = sim.workspaces()[5];
      const before = (await admin().workspace(ws.id)).latest_build;
      expect(before.template_version_id).not.toBe(pinned);
      const r = await acts().startPinned({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, templateVersionId: pinned, afterBuildNumber: before.build_number, timeoutMs: 30_000 });
      expect(r).toEqual({ buildId: expect.any(String), buildNumber: before.build_number + 1 });
      expect((await admin().workspace(ws.id)).latest_build).toMatchObject({ id: r.buildId, transition: 'start', template_version_id: pinned, job: { status: 'succeeded' } });
    });

    it('its own start on the pinned version right after the read (an attempt that died before its heartbeat) is taken as ours, not run twice', async () => {
      const ws = sim.workspaces()[7];
      const read = (await admin().workspace(ws.id)).latest_build.build_number;
      const ours = await admin().createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: pinned });
      const r = await acts().startPinned({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, templateVersionId: pinned, afterBuildNumber: read, timeoutMs: 30_000 });
      expect(r).toEqual({ buildId: ours.id, buildNumber: read + 1 });
      expect((await admin().workspace(ws.id)).latest_build.build_number).toBe(read + 1);
    });

    it('a start by this same token right after the read but on another version is not its own: refused, nothing built', async () => {
      const ws = sim.workspaces()[6];
      const read = (await admin().workspace(ws.id)).latest_build.build_number;
      const other = await admin().waitForBuild((await admin().createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: sim.template.originalVersionId })).id);
      await expect(acts().startPinned({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, templateVersionId: pinned, afterBuildNumber: read, timeoutMs: 30_000 })).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringContaining(`start build: ${ws.owner}/${ws.name}: build #${other.build_number} (start, succeeded) was started by`),
      });
      // A stop by this token is not taken for its start either.
      const stop = await admin().waitForBuild((await admin().createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
      await expect(acts().startPinned({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, templateVersionId: pinned, afterBuildNumber: stop.build_number - 1, timeoutMs: 30_000 })).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
      });
      expect((await admin().workspace(ws.id)).latest_build.id).toBe(stop.id);
    });
  });

  describe('stopAndBackUp: the stop and the backup as one activity', () => {
    const input = (ws: { id: string; owner: string; name: string }, read: number) => ({ workspaceId: ws.id, subject: `${ws.owner}/${ws.name}`, afterBuildNumber: read, timeoutMs: 30_000, workflowId: 'wf', template: 't' });

    it('backs up the state of its own stop build, and run again makes no second stop and the same backup', async () => {
      const ws = sim.workspaces()[2];
      const read = (await admin().workspace(ws.id)).latest_build.build_number;
      const first = await acts().stopAndBackUp(input(ws, read));
      expect(first.stop.buildNumber).toBe(read + 1);
      expect((await admin().workspace(ws.id)).latest_build).toMatchObject({ id: first.stop.buildId, transition: 'stop' });
      expect(first.backup).toMatchObject({ buildId: first.stop.buildId, buildNumber: read + 1 });
      const stopped = await admin().getWorkspaceBuildState(first.stop.buildId);
      expect(first.backup.blob.sha256).toBe(sha256Hex(stopped));
      const again = await acts().stopAndBackUp(input(ws, read));
      expect(again).toEqual(first);
      expect((await admin().workspace(ws.id)).latest_build.build_number).toBe(read + 1);
    });

    it('a backup that fails after the stop names that stop build, with the failure as it was (so the compensation starts it again)', async () => {
      const ws = sim.workspaces()[3];
      const read = (await admin().workspace(ws.id)).latest_build.build_number;
      const real = createFileBlobStore({ dir });
      const failingPut: BlobStore = { ...real, put: async () => Promise.reject(new Error('blob store: disk full')) };
      const a = withCombined(stepsOf({ coder: admin(), blobs: failingPut, notifier: { notify: async () => undefined } }, STEPS));
      const err = (await a.stopAndBackUp(input(ws, read)).catch((e: unknown) => e)) as { message: string; nonRetryable: boolean; details: unknown[] };
      const latest = (await admin().workspace(ws.id)).latest_build;
      expect(latest).toMatchObject({ build_number: read + 1, transition: 'stop' });
      expect(err.message).toMatch(/disk full/);
      expect(err.nonRetryable).toBe(false);
      expect(err.details).toEqual([{ buildId: latest.id, buildNumber: read + 1 }]);
    });
  });
});
