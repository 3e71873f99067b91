import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makeBackupState, type StateBackup } from '../../src/activities/backup-state';
import { makeBackupForRecovery, type RecoveryBackups } from '../../src/activities/backup-for-recovery';
import { stepsOf } from './fixtures/steps';
import { BlobStoreUnavailableError, createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { planPrune } from '../../src/domain/backup-retention';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, migrateStateByHand, putState, startBuild } from '../sim/helpers';

/**
 * backupState and backupForRecovery: the copies a migration and a recovery go back to. A backup
 * taken while a build runs, or after someone built meanwhile, would be the wrong state: each is
 * refused with nothing stored.
 */
describe('backupState and backupForRecovery: the exact bytes of the build read, or nothing', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 4, buildLatencyMs: 5, provisioners: 1 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-backups-'));
    blobs = createFileBlobStore({ dir });
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const coder = () => new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  const acts = () => stepsOf({ coder: coder(), blobs, notifier: { notify: async () => undefined } }, { backupState: makeBackupState, backupForRecovery: makeBackupForRecovery });
  const ws = (i: number) => sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const latest = async (i: number) => (await coder().workspace(ws(i).id)).latest_build;
  const stateOfBuild = async (buildId: string) => Buffer.from((await api(sim, 'GET', `/workspacebuilds/${buildId}/state`)).text);
  const recordOf = async (ref: string) => (await blobs.list()).find((b) => b.ref === ref)?.records;

  /** A build left pending: the only provisioner is offline until `release` is called. */
  async function pendingBuild(i: number) {
    sim.setDaemonOffline('sim-provisioner-1');
    const queued = await api<{ id: string; build_number: number }>(sim, 'POST', `/workspaces/${ws(i).id}/builds`, { json: { transition: 'stop' } });
    expect(queued.status).toBe(201);
    return { build: queued.body, release: () => sim.setDaemonOffline('sim-provisioner-1', false) };
  }

  describe('backupState', () => {
    it('stores the latest build\'s state byte for byte, labelled with the workspace, the build and the workflow run', async () => {
      const b = await latest(0);
      const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'migrate-x', runId: 'run-7' } });
      const backup = (await env.run(acts().backupState, { workspaceId: ws(0).id, subject: subject(0) })) as StateBackup;
      expect(backup).toMatchObject({ buildId: b.id, buildNumber: b.build_number });
      expect((await blobs.get(backup.blob.ref)).equals(await stateOfBuild(b.id))).toBe(true);
      expect(await recordOf(backup.blob.ref)).toEqual([
        expect.objectContaining({ kind: 'state-backup', label: `${subject(0)} build #${b.build_number}`, workspace: subject(0), workflowId: 'migrate-x', runId: 'run-7' }),
      ]);
    });

    it('refuses to back up while a build runs (its job would write over the state), as busy, storing nothing', async () => {
      const before = (await blobs.list()).length;
      const { build, release } = await pendingBuild(1);
      try {
        const err = await acts()
          .backupState({ workspaceId: ws(1).id, subject: subject(1) })
          .then(
            () => undefined,
            (e: unknown) => e as { type: string; nonRetryable: boolean; message: string },
          );
        expect(err).toMatchObject({ type: FailureType.busy, nonRetryable: false });
        expect(err?.message).toBe(`back up state: ${subject(1)}: build #${build.build_number} (stop) is pending; waiting for it`);
        expect((await blobs.list()).length).toBe(before);
      } finally {
        release();
      }
    });
  });

  it('backupState waits for a running build and for one being canceled, storing nothing', async () => {
    // Builds that take a while, so the test sees each phase; it waits on the status, not on time.
    const slow = await startSimulator({ workspaces: 1, buildLatencyMs: 1500 });
    try {
      const c = new CoderClient({ url: slow.url, token: slow.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
      const a = stepsOf({ coder: c, blobs, notifier: { notify: async () => undefined } }, { backupState: makeBackupState, backupForRecovery: makeBackupForRecovery });
      const w = slow.workspaces()[0];
      const queued = await api<{ id: string; build_number: number }>(slow, 'POST', `/workspaces/${w.id}/builds`, { json: { transition: 'stop' } });
      const statusIs = async (status: string) => {
        while ((await c.workspace(w.id)).latest_build.job.status !== status) await new Promise((r) => setTimeout(r, 5));
      };
      const before = (await blobs.list()).length;
      await statusIs('running');
      await expect(a.backupState({ workspaceId: w.id, subject: 'x/y' })).rejects.toMatchObject({ type: FailureType.busy, message: `back up state: x/y: build #${queued.body.build_number} (stop) is running; waiting for it` });
      expect((await api(slow, 'PATCH', `/workspacebuilds/${queued.body.id}/cancel`)).status).toBe(200);
      await statusIs('canceling');
      await expect(a.backupState({ workspaceId: w.id, subject: 'x/y' })).rejects.toMatchObject({ type: FailureType.busy, message: expect.stringContaining('(stop) is canceling; waiting for it') });
      expect((await blobs.list()).length).toBe(before);
    } finally {
      await slow.close();
    }
  });

  it('backupState\'s failures name the step and the workspace: Coder\'s answer, and a full blob store', async () => {
    await expect(acts().backupState({ workspaceId: '00000000-0000-4000-8000-00000000dead', subject: 'nobody/none' })).rejects.toMatchObject({
      type: 'CoderApi.not-found',
      message: expect.stringMatching(/^back up state failed for nobody\/none: /),
    });
    sim.setFaults({ error500Rate: 1, only: ['/state'] });
    try {
      await expect(acts().backupState({ workspaceId: ws(0).id, subject: subject(0) })).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^back up state failed for ${subject(0)}: `)) });
    } finally {
      sim.setFaults(undefined);
    }
    const full: BlobStore = { ...blobs, put: () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })) };
    const a = stepsOf({ coder: coder(), blobs: full, notifier: { notify: async () => undefined } }, { backupState: makeBackupState, backupForRecovery: makeBackupForRecovery });
    await expect(a.backupState({ workspaceId: ws(0).id, subject: subject(0) })).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringMatching(new RegExp(`^back up state failed for ${subject(0)}: the blob store's disk is full \\(ENOSPC\\); nothing was stored`)),
    });
  });

  describe('backupForRecovery', () => {
    it('stores the damaged state of the latest build and the good build\'s state, each with its build number', async () => {
      const good = await latest(2);
      // A later build with another state: the "damaged" one the recovery goes onto.
      const damaged = await startBuild(sim, ws(2).id, { transition: 'stop' });
      expect((await putState(sim, damaged.id, migrateStateByHand((await stateOfBuild(damaged.id)).toString('utf8')))).status).toBe(204);
      const r = await acts().backupForRecovery({ workspaceId: ws(2).id, subject: subject(2), latestBuildId: damaged.id, goodBuildId: good.id });
      expect(r.current).toMatchObject({ buildId: damaged.id, buildNumber: damaged.build_number });
      expect(r.good).toMatchObject({ buildId: good.id, buildNumber: good.build_number });
      expect((await blobs.get(r.current.blob.ref)).equals(await stateOfBuild(damaged.id))).toBe(true);
      expect((await blobs.get(r.good.blob.ref)).equals(await stateOfBuild(good.id))).toBe(true);
      expect(r.current.blob.sha256).not.toBe(r.good.blob.sha256);
      expect(await recordOf(r.current.blob.ref)).toEqual([expect.objectContaining({ kind: 'state-backup', label: `${subject(2)} build #${damaged.build_number} (damaged, before recovery)` })]);
      expect(await recordOf(r.good.blob.ref)).toEqual([expect.objectContaining({ kind: 'state-backup', label: `${subject(2)} build #${good.build_number} (last good state)` })]);
    });

    it('names the workspace and the recovery\'s run in each record, so prune keeps both blobs while the recovery runs and the good one after', async () => {
      const good = await latest(0);
      const damaged = await startBuild(sim, ws(0).id, { transition: 'stop' });
      expect((await putState(sim, damaged.id, migrateStateByHand((await stateOfBuild(damaged.id)).toString('utf8')))).status).toBe(204);
      const workflowId = `wsmigrate/${sim.template.name}/${subject(0)}`;
      const env = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'recovery-run-1' } });
      const r = (await env.run(acts().backupForRecovery, { workspaceId: ws(0).id, subject: subject(0), latestBuildId: damaged.id, goodBuildId: good.id })) as RecoveryBackups;
      for (const b of [r.current, r.good]) {
        expect(await recordOf(b.blob.ref)).toContainEqual(expect.objectContaining({ kind: 'state-backup', workspace: subject(0), workflowId, runId: 'recovery-run-1' }));
      }
      // Retention reads those records: every blob is past a 1-minute cut-off a day from now.
      const decide = async (running: { workflowId: string; workspace?: string }[]) => {
        const plan = planPrune(await blobs.list(), running, new Date(Date.now() + 86_400_000), 60_000);
        return (ref: string) => plan.find((d) => d.ref === ref);
      };
      const whileRunning = await decide([{ workflowId }]);
      expect(whileRunning(r.current.blob.ref)).toMatchObject({ action: 'keep', reason: `its migration ${workflowId} has not ended` });
      expect(whileRunning(r.good.blob.ref)).toMatchObject({ action: 'keep', reason: `its migration ${workflowId} has not ended` });
      const afterwards = await decide([]);
      expect(afterwards(r.good.blob.ref)).toMatchObject({ action: 'keep', reason: `the newest backup of ${subject(0)}` });
    });

    it('a blob store that is down is retried, then given up on the last attempt, naming the step and workspace; Coder is left as it was', async () => {
      const before = await latest(1);
      const down: BlobStore = { ...blobs, put: () => Promise.reject(new BlobStoreUnavailableError('s3://bucket/wsmigrate did not answer (ECONNREFUSED)', 's3://bucket/wsmigrate', 'sha256/00')) };
      const a = stepsOf({ coder: coder(), blobs: down, notifier: { notify: async () => undefined } }, { backupState: makeBackupState, backupForRecovery: makeBackupForRecovery });
      const input = { workspaceId: ws(1).id, subject: subject(1), latestBuildId: before.id, goodBuildId: before.id };
      const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
      const failureAt = (attempt: number) =>
        new MockActivityEnvironment({ attempt }, { logger: quiet }).run(a.backupForRecovery, input).then(
          () => undefined,
          (e: unknown) => e as { type: string; nonRetryable: boolean; message: string; details?: unknown[] },
        );
      const first = await failureAt(1);
      expect(first).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: false, message: `back up for recovery failed for ${subject(1)}: s3://bucket/wsmigrate did not answer (ECONNREFUSED)` });
      expect(first?.details).toEqual([{ store: 's3://bucket/wsmigrate', key: 'sha256/00' }]);
      const last = await failureAt(3);
      expect(last).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: true, message: expect.stringMatching(/did not answer \(ECONNREFUSED\) \(gave up after 3 attempts\)$/) });
      const full: BlobStore = { ...blobs, put: () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })) };
      await expect(stepsOf({ coder: coder(), blobs: full, notifier: { notify: async () => undefined } }, { backupState: makeBackupState, backupForRecovery: makeBackupForRecovery }).backupForRecovery(input)).rejects.toMatchObject({
        type: FailureType.blobUnavailable,
        message: expect.stringMatching(new RegExp(`^back up for recovery failed for ${subject(1)}: the blob store's disk is full \\(ENOSPC\\); nothing was stored`)),
      });
      expect((await latest(1)).id).toBe(before.id);
    });

    it('refuses when someone built after the health check, naming their build, and stores nothing', async () => {
      const seen = await latest(3);
      const theirs = await startBuild(sim, ws(3).id, { transition: 'stop' });
      const initiator = (await latest(3)).initiator_name;
      expect(initiator).toBeTruthy();
      const before = (await blobs.list()).length;
      await expect(acts().backupForRecovery({ workspaceId: ws(3).id, subject: subject(3), latestBuildId: seen.id, goodBuildId: seen.id })).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        nonRetryable: true,
        message: `back up for recovery: ${subject(3)}: build #${theirs.build_number} (stop, succeeded) was started by ${initiator} after the health check; nothing was written over it`,
      });
      expect((await blobs.list()).length).toBe(before);
    });
  });
});
