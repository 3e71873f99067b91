import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { makeRestoreByBuild } from '../../src/activities/restore-by-build';
import { stepsOf } from './fixtures/steps';
import type { StateBackup } from '../../src/activities/backup-state';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { recordingCoder } from './fixtures/recorded-builds';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { backupState: makeBackupState, buildWithState: makeBuildWithState, restoreByBuild: makeRestoreByBuild };


describe('buildWithState and restoreByBuild: one build carries the state, only onto the build that was read', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  const { sent, client: recordingClient } = recordingCoder();

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 9, buildLatencyMs: 30 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-bws-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Polls a build every 10 ms at most (the client's own pace starts at 500 ms): the simulator's builds take 30 ms.
  const coder = (token = sim.token) => recordingClient(sim, token);
  const acts = (token?: string) => stepsOf({ coder: coder(token), blobs, notifier: { notify: async () => undefined } }, STEPS);
  const latest = async (id: string) => (await coder().workspace(id)).latest_build;
  const pvc = (id: string) => sim.cluster.pvc('coder', homePvcName(id))?.uid;

  /** A backup of the latest build and its hand-migrated twin in the blob store, as the workflow has them before its write. */
  async function prepared(i: number) {
    const ws = sim.workspaces()[i];
    const backup: StateBackup = await acts().backupState({ workspaceId: ws.id, subject: ws.owner });
    const bytes = await blobs.get(backup.blob.ref);
    const migrated = await blobs.put(Buffer.from(migrateStateByHand(bytes.toString('utf8'))), { kind: 'migrated-state', label: 'test' });
    const input = {
      purpose: 'migrate' as const,
      workspaceId: ws.id,
      subject: `${ws.owner}/${ws.name}`,
      transition: 'start' as const,
      templateVersionId: v1,
      state: { ref: migrated.ref, sha256: migrated.sha256 },
      read: { id: backup.buildId, buildNumber: backup.buildNumber, stateSha256: backup.blob.sha256 },
      timeoutMs: 30_000,
    };
    return { ws, backup, migrated, input, migratedBytes: await blobs.get(migrated.ref) };
  }

  it('sends transition, the new version and exactly the migrated bytes in one POST, with no PUT of state', async () => {
    const { ws, input, migratedBytes } = await prepared(0);
    const uid = pvc(ws.id);
    sent.length = 0;
    const before = sim.requestLog().length;
    const built = await acts().buildWithState(input);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ transition: 'start', template_version_id: v1 });
    expect(Buffer.from(sent[0].state ?? '', 'base64').equals(migratedBytes)).toBe(true);
    expect(sim.requestLog().slice(before).filter((r) => r.method === 'PUT')).toEqual([]);
    expect(await latest(ws.id)).toMatchObject({ id: built.buildId, build_number: input.read.buildNumber + 1, transition: 'start', template_version_id: v1, job: { status: 'succeeded' } });
    expect(sim.stateOf(ws.id)).toContain('kubernetes_persistent_volume_claim_v1');
    expect(pvc(ws.id)).toBe(uid);
  });

  it('a retry after the build was created finds it instead of making a second one (by heartbeat, and by its shape when no heartbeat got out)', async () => {
    const { ws, input } = await prepared(1);
    const first = await acts().buildWithState(input);
    sent.length = 0;
    const byShape = await acts().buildWithState(input);
    const byHeartbeat = await new MockActivityEnvironment({ heartbeatDetails: { buildId: first.buildId } }).run(acts().buildWithState, input);
    expect(sent).toEqual([]);
    expect(byShape).toEqual(first);
    expect(byHeartbeat).toEqual(first);
    expect((await latest(ws.id)).build_number).toBe(input.read.buildNumber + 1);
  });

  it('heartbeats the build id as soon as the build exists, then while it runs', async () => {
    const { input } = await prepared(2);
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const built = (await env.run(acts().buildWithState, input)) as { buildId: string };
    expect(beats[0]).toEqual({ buildId: built.buildId });
    expect(beats.length).toBeGreaterThan(1);
    // Each poll's beat names the build too: the last beat is what a retry reads its build from.
    expect(beats.slice(1)).toContainEqual({ buildId: built.buildId, status: 'succeeded' });
  });

  it('never writes over a build someone made after the one read: builtMeanwhile, nothing sent', async () => {
    const { ws, input } = await prepared(3);
    // The owner presses Start (already running: a plain start on the previous version).
    const owner = ws.owner;
    const theirs = await startBuild(sim, ws.id, { transition: 'start' });
    expect(owner).toBeTruthy();
    sent.length = 0;
    await expect(acts().buildWithState(input)).rejects.toMatchObject({
      type: 'WsmigrateBuiltMeanwhile',
      message: expect.stringMatching(new RegExp(`build #${theirs.build_number} \\(start, succeeded\\) .*after build #${input.read.buildNumber}, the one this step read; nothing was written over it`)),
    });
    expect(sent).toEqual([]);
    expect((await latest(ws.id)).id).toBe(theirs.id);
    expect(sim.stateOf(ws.id)).not.toContain('_v1');
  });

  it('a build whose state changed since it was read (someone pushed another) is not built on either', async () => {
    const { ws, input, backup } = await prepared(4);
    const changed = JSON.parse((await blobs.get(backup.blob.ref)).toString('utf8')) as { serial: number };
    changed.serial += 7;
    await coder().putWorkspaceBuildState(backup.buildId, Buffer.from(JSON.stringify(changed)));
    sent.length = 0;
    await expect(acts().buildWithState(input)).rejects.toMatchObject({
      type: 'WsmigrateBuiltMeanwhile',
      message: expect.stringMatching(/the state of build #\d+ changed since it was read \(sha256 [0-9a-f]{12}…\); nothing was written over it$/),
      // Final: another try would find the same other state; the workflow restores instead.
      nonRetryable: true,
    });
    expect(sent).toEqual([]);
    expect((await latest(ws.id)).id).toBe(backup.buildId);
  });

  it('a token without update on the template is refused by Coder and told which roles can do it', async () => {
    const { ws, migratedBytes } = await prepared(5);
    // The workspace's own owner, a plain member: may start it, may not hand Coder a state.
    await expect(coder(sim.tokenOf(ws.owner)).createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: v1, state: migratedBytes })).rejects.toThrow(
      /Only template managers may provide custom state.*`update` on the template.*Owner or Organization Admin/,
    );
  });

  describe('restoreByBuild', () => {
    it('undoes our build by one build on the prior version carrying the backed-up bytes, and tries again when the provisioner fails it', async () => {
      const { ws, backup, input } = await prepared(6);
      const uid = pvc(ws.id);
      const own = (await acts().buildWithState(input)).buildId;
      sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 2, message: 'node pool exhausted' } });
      sent.length = 0;
      try {
        const restored = await acts().restoreByBuild({
          workspaceId: ws.id,
          subject: input.subject,
          prior: { transition: 'start', templateVersionId: sim.template.originalVersionId },
          readBuild: { id: backup.buildId, buildNumber: backup.buildNumber },
          backup,
          ownBuildIds: [own],
          ownStateBuild: { transition: 'start', templateVersionId: v1 },
          timeoutMs: 30_000,
        });
        expect(restored.changed).toBe(true);
      } finally {
        sim.setFaults(undefined);
      }
      expect(sent).toHaveLength(3);
      const backupBytes = await blobs.get(backup.blob.ref);
      for (const s of sent) {
        expect(s).toMatchObject({ transition: 'start', template_version_id: sim.template.originalVersionId });
        expect(Buffer.from(s.state ?? '', 'base64').equals(backupBytes)).toBe(true);
      }
      expect(await latest(ws.id)).toMatchObject({ transition: 'start', template_version_id: sim.template.originalVersionId, job: { status: 'succeeded' } });
      expect(sim.stateOf(ws.id)).not.toContain('_v1');
      expect(pvc(ws.id)).toBe(uid);
    });

    it("leaves someone else's build alone: as it is when nothing migrated reached Coder, a conflict when theirs is on top of ours", async () => {
      const { ws, backup, input } = await prepared(1);
      const base = {
        workspaceId: ws.id,
        subject: input.subject,
        prior: { transition: 'start' as const, templateVersionId: sim.template.originalVersionId },
        readBuild: { id: backup.buildId, buildNumber: backup.buildNumber },
        backup,
        timeoutMs: 30_000,
      };
      const theirs = await startBuild(sim, ws.id, { transition: 'stop' });
      sent.length = 0;
      const left = await acts().restoreByBuild({ ...base, ownBuildIds: [] });
      expect(left).toMatchObject({ changed: false, leftAsIs: expect.stringMatching(new RegExp(`build #${theirs.build_number} \\(stop\\) .*no migrated state reached Coder`)) });

      // Now ours lands, and someone builds on top of it.
      const fresh = await prepared(1);
      const ours = await acts().buildWithState(fresh.input);
      await startBuild(sim, ws.id, { transition: 'stop' });
      await expect(
        acts().restoreByBuild({ ...base, backup: fresh.backup, readBuild: { id: fresh.backup.buildId, buildNumber: fresh.backup.buildNumber }, ownBuildIds: [ours.buildId] }),
      ).rejects.toMatchObject({ type: 'WsmigrateStateConflict', message: expect.stringMatching(new RegExp(`on top of this migration's build #${ours.buildNumber}; not restoring over it.*wsmigrate state restore`)) });
      expect(sent).toHaveLength(1); // only ours
    });

    for (const [i, how, problem] of [
      [7, 'previous', 'kubernetes_persistent_volume_claim.home is missing'],
      [8, 'empty', 'kubernetes_persistent_volume_claim.home is missing'],
    ] as const) {
      it(`a restore build after which Coder keeps other bytes than the backup (${how}) is not called restored: a conflict naming what is missing and how to put it back`, async () => {
        const { ws, backup, input } = await prepared(i);
        const uid = pvc(ws.id);
        const own = (await acts().buildWithState(input)).buildId;
        const restore = {
          workspaceId: ws.id,
          subject: input.subject,
          prior: { transition: 'start' as const, templateVersionId: sim.template.originalVersionId },
          readBuild: { id: backup.buildId, buildNumber: backup.buildNumber },
          backup,
          ownBuildIds: [own],
          ownStateBuild: { transition: 'start' as const, templateVersionId: v1 },
          timeoutMs: 30_000,
        };
        sim.setFaults({ wrongStoredState: { how, workspaceId: ws.id, transition: 'start', times: 1 } });
        try {
          await expect(acts().restoreByBuild(restore)).rejects.toMatchObject({
            type: 'WsmigrateStateConflict',
            nonRetryable: true,
            message: expect.stringContaining(
              `restore build: ${input.subject}: restore build #${backup.buildNumber + 2} succeeded, but the state Coder holds for it is not the backup's: ${problem}. ` +
                `Do not start or update the workspace until its state is put back; once it is idle: wsmigrate state restore ${input.subject} --backup ${backup.blob.ref} --yes`,
            ),
          });
        } finally {
          sim.setFaults(undefined);
        }
        // A retry (the activity's next attempt) finds its own restore build and checks it again, building nothing more.
        sent.length = 0;
        await expect(acts().restoreByBuild(restore)).rejects.toMatchObject({ type: 'WsmigrateStateConflict', message: expect.stringContaining(problem) });
        expect(sent).toHaveLength(0);
        // Nothing physical changed: the volume is the one from before.
        expect(pvc(ws.id)).toBe(uid);
      });
    }
  });
});

/**
 * The checks before the one write, each on a build the simulator holds pending (its only
 * provisioner offline): a read build still running, a retry that finds its own running build by
 * its state, someone else's running build of the same shape, a blob that does not hold its hash,
 * a backup that cannot be read, and a build the provisioner fails. Nothing is sent on a refusal.
 */
describe('buildWithState: what it checks before it sends, and what it says', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  const posts: string[] = [];
  const countingFetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.method === 'POST' && /\/workspaces\/[^/]+\/builds$/.test(url)) posts.push(url);
    return fetch(input, init);
  };
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 8, buildLatencyMs: 5, provisioners: 1 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-bws-checks-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
  });
  afterAll(async () => {
    sim.setDaemonOffline('sim-provisioner-1', false);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    posts.length = 0;
  });
  const quickPoll = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 10)));
  const coder = () => new CoderClient({ url: sim.url, token: sim.token, fetchImpl: countingFetch, retry: { baseDelayMs: 5, maxDelayMs: 20 }, sleep: quickPoll });
  const acts = (b: BlobStore = blobs) => stepsOf({ coder: coder(), blobs: b, notifier: { notify: async () => undefined } }, STEPS);
  const offline = (yes = true) => sim.setDaemonOffline('sim-provisioner-1', yes);
  const ws = (i: number) => sim.workspaces()[i];

  async function input(i: number, purpose: 'migrate' | 'recover' = 'migrate') {
    const w = ws(i);
    const backup = await acts().backupState({ workspaceId: w.id, subject: `${w.owner}/${w.name}` });
    const migrated = await blobs.put(Buffer.from(migrateStateByHand((await blobs.get(backup.blob.ref)).toString('utf8'))), { kind: 'migrated-state', label: 'test' });
    posts.length = 0;
    return {
      backup,
      req: {
        purpose,
        workspaceId: w.id,
        subject: `${w.owner}/${w.name}`,
        transition: 'start' as const,
        templateVersionId: v1,
        state: { ref: migrated.ref, sha256: migrated.sha256 },
        read: { id: backup.buildId, buildNumber: backup.buildNumber },
        backupRef: backup.blob.ref,
        timeoutMs: 30_000,
      },
    };
  }

  it('a read build still running is waited for (busy, retryable), nothing sent', async () => {
    offline();
    try {
      const queued = await coder().createWorkspaceBuild(ws(0).id, { transition: 'stop' });
      posts.length = 0;
      const latest = (await coder().workspace(ws(0).id)).latest_build;
      await expect(
        acts().buildWithState({ purpose: 'migrate', workspaceId: ws(0).id, subject: 'a/b', transition: 'start', templateVersionId: v1, read: { id: queued.id, buildNumber: latest.build_number }, timeoutMs: 1_000 }),
      ).rejects.toMatchObject({ type: FailureType.busy, nonRetryable: false, message: `migrated-state build: a/b: build #${latest.build_number} is still pending; waiting for it` });
      expect(posts).toEqual([]);
    } finally {
      offline(false);
    }
    await coder().waitForBuild((await coder().workspace(ws(0).id)).latest_build.id);
  });

  it('a retry while its own build runs finds it by the state Coder holds for it and waits for it; someone else\'s running build of the same shape is not ours', async () => {
    const { req } = await input(1);
    offline();
    let first: Promise<unknown> | undefined;
    try {
      first = acts().buildWithState(req);
      let ended = false;
      const settle = () => (ended = true);
      first.then(settle, settle);
      // Until its build is posted, or it ended without one (then the assertions below fail at once).
      while (!ended && posts.length === 0) await new Promise((r) => setTimeout(r, 5));
      const ours = (await coder().workspace(ws(1).id)).latest_build;
      let retryWaits = false;
      const retryFetch: typeof fetch = async (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (url.endsWith(`/workspacebuilds/${ours.id}`)) retryWaits = true;
        return countingFetch(input, init);
      };
      const retryCoder = new CoderClient({ url: sim.url, token: sim.token, fetchImpl: retryFetch, retry: { baseDelayMs: 5, maxDelayMs: 20 }, sleep: quickPoll });
      const retry = stepsOf({ coder: retryCoder, blobs, notifier: { notify: async () => undefined } }, STEPS).buildWithState(req);
      // Released once the retry waits on that build: it took it for its own while the job was still pending (or it ended).
      retry.then(settle, settle);
      while (!ended && !retryWaits) await new Promise((r) => setTimeout(r, 5));
      offline(false);
      const [a, b] = await Promise.all([first, retry]);
      expect(b).toEqual(a);
      expect(posts).toHaveLength(1);
    } finally {
      offline(false);
      await first?.catch(() => undefined);
    }

    const other = await input(2, 'recover');
    offline();
    try {
      // Someone hands Coder another state in a build of our shape (a start on v1) right after the read.
      const theirs = await coder().createWorkspaceBuild(ws(2).id, { transition: 'start', template_version_id: v1, state: await blobs.get(other.backup.blob.ref) });
      posts.length = 0;
      await expect(acts().buildWithState({ ...other.req, timeoutMs: 1_000 })).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringMatching(new RegExp(`^recovery build: ${other.req.subject}: build #${theirs.build_number} \\(start, pending\\) was started by .* after build #${other.req.read.buildNumber}, the one this step read; nothing was written over it$`)),
      });
      expect(posts).toEqual([]);
    } finally {
      offline(false);
    }
  });

  it('a migrated blob that does not hold its hash or cannot be read, or a backup that cannot be read, stops it before anything is sent', async () => {
    const { req, backup } = await input(3);
    await expect(acts().buildWithState({ ...req, state: { ref: req.state.ref, sha256: 'f'.repeat(64) } })).rejects.toMatchObject({
      type: FailureType.conflict,
      message: `migrated-state build: ${req.subject}: the blob ${req.state.ref} does not hold sha256 ffffffffffff…; nothing was written to Coder`,
    });
    const noBackup: BlobStore = { ...blobs, get: (ref) => (ref === backup.blob.ref ? blobs.get(`sha256:${'0'.repeat(64)}`) : blobs.get(ref)) };
    await expect(acts(noBackup).buildWithState(req)).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringMatching(new RegExp(`^migrated-state build failed for ${req.subject}: .*\\. Nothing was written to Coder: build #${req.read.buildNumber} is unchanged; run the migration again to take a fresh backup$`)),
    });
    // The migrated state itself unreadable: the same words, without the backup's advice.
    const noMigrated: BlobStore = { ...blobs, get: (ref) => (ref === req.state.ref ? blobs.get(`sha256:${'0'.repeat(64)}`) : blobs.get(ref)) };
    await expect(acts(noMigrated).buildWithState(req)).rejects.toMatchObject({
      type: FailureType.blobUnavailable,
      message: expect.stringMatching(new RegExp(`^migrated-state build failed for ${req.subject}: .*\\. Nothing was written to Coder: build #${req.read.buildNumber} is unchanged$`)),
    });
    expect(posts).toEqual([]);
    expect((await coder().workspace(ws(3).id)).latest_build.id).toBe(req.read.id);
  });

  it('a POST Coder fails with a 500 (after the retries) fails the step for Temporal to retry: not taken for a build someone made meanwhile', async () => {
    const { req } = await input(3);
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/workspaces/${ws(3).id}/builds`] });
    try {
      await expect(acts().buildWithState({ ...req, timeoutMs: 1_000 })).rejects.toMatchObject({
        type: 'CoderApi.server',
        nonRetryable: false,
        message: expect.stringMatching(new RegExp(`^migrated-state build failed for ${req.subject}: `)),
      });
    } finally {
      sim.setFaults(undefined);
    }
    expect((await coder().workspace(ws(3).id)).latest_build.id).toBe(req.read.id);
  });

  it("someone's build that becomes active between the read and the POST stands: Coder's 409 ends the step naming theirs, ours is not queued behind it", async () => {
    const { req } = await input(5);
    offline();
    let theirs: { id: string; build_number: number } | undefined;
    // Someone presses Start in the moment between the step's last read and its POST (Coder answers 409).
    const racingFetch: typeof fetch = async (url, init) => {
      if (!theirs && init?.method === 'POST' && String(url).endsWith(`/workspaces/${ws(5).id}/builds`)) {
        theirs = await coder().createWorkspaceBuild(ws(5).id, { transition: 'stop' });
        posts.length = 0;
      }
      return countingFetch(url, init);
    };
    try {
      const racing = new CoderClient({ url: sim.url, token: sim.token, fetchImpl: racingFetch, retry: { baseDelayMs: 5, maxDelayMs: 20 }, sleep: quickPoll });
      const err = (await stepsOf({ coder: racing, blobs, notifier: { notify: async () => undefined } }, STEPS)
        .buildWithState({ ...req, timeoutMs: 1_000 })
        .catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string };
      expect(theirs).toBeDefined();
      expect(err).toMatchObject({ type: FailureType.builtMeanwhile, nonRetryable: true });
      expect(err.message).toMatch(new RegExp(`^migrated-state build: ${req.subject}: build #${theirs!.build_number} \\(stop, pending\\) was started by .* after build #${req.read.buildNumber}, the one this step read; nothing was written over it$`));
      expect(posts).toHaveLength(1);
      expect((await coder().workspace(ws(5).id)).latest_build).toMatchObject({ id: theirs!.id, transition: 'stop' });
    } finally {
      offline(false);
    }
    await coder().waitForBuild((await coder().workspace(ws(5).id)).latest_build.id);
  });

  it('a migrated-state build someone canceled in the dashboard is not taken for built: final, naming it canceled, for the compensation to undo', async () => {
    const { req } = await input(6);
    offline();
    let failure: unknown;
    try {
      const building = acts().buildWithState(req).catch((e: unknown) => e);
      // Queued (no daemon takes it), then canceled, as a person in the dashboard would.
      let ours = (await coder().workspace(ws(6).id)).latest_build;
      while (ours.build_number !== req.read.buildNumber + 1) {
        await new Promise((r) => setTimeout(r, 5));
        ours = (await coder().workspace(ws(6).id)).latest_build;
      }
      expect((await api(sim, 'PATCH', `/workspacebuilds/${ours.id}/cancel`)).status).toBe(200);
      failure = await building;
    } finally {
      offline(false);
    }
    expect(failure).toMatchObject({ type: FailureType.buildFailed, nonRetryable: true, details: [{ buildNumber: req.read.buildNumber + 1 }] });
    expect((failure as Error).message).toMatch(new RegExp(`^migrated-state build #${req.read.buildNumber + 1} of ${req.subject} \\(start on version ${v1}\\) ended canceled`));
  });

  it('a workspace Coder made dormant after it was read: the start is refused as dormant (Coder lets nobody start it), not as a token without permission; nothing queued', async () => {
    const { req } = await input(7);
    const dormant = await api<{ dormant_at: string }>(sim, 'PUT', `/workspaces/${ws(7).id}/dormant`, { json: { dormant: true } });
    expect(dormant.status).toBe(200);
    await expect(acts().buildWithState(req)).rejects.toMatchObject({
      type: FailureType.dormant,
      nonRetryable: true,
      message: expect.stringContaining(`migrated-state build refused for ${req.subject}: Coder marked the workspace dormant at ${dormant.body.dormant_at}`),
    });
    expect((await coder().workspace(ws(7).id)).latest_build.id).toBe(req.read.id);
  });

  it('a migrated-state build the provisioner fails is final, naming the build, the transition and the version', async () => {
    const { req } = await input(4);
    sim.setFaults({ failBuilds: { workspaceId: ws(4).id, transition: 'start', times: 1, message: 'quota exceeded' } });
    try {
      const err = (await acts().buildWithState(req).catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string; details: unknown[] };
      const failed = (await coder().workspace(ws(4).id)).latest_build;
      expect(err).toMatchObject({ type: FailureType.buildFailed, nonRetryable: true, details: [{ buildId: failed.id, buildNumber: req.read.buildNumber + 1 }] });
      expect(err.message).toMatch(new RegExp(`^migrated-state build #${req.read.buildNumber + 1} of ${req.subject} \\(start on version ${v1}\\) ended failed: .*quota exceeded`));
    } finally {
      sim.setFaults(undefined);
    }
  });
  it('a target that is no longer the active version (promoted away since the preflight) is refused before the write, saying what Update would do; built once it is active again', async () => {
    const { req } = await input(0);
    const v1Name = (await coder().templateVersion(v1)).name;
    const active = (await coder().workspace(ws(0).id)).template_active_version_id;
    expect(active).not.toBe(v1); // the seeded, old version: as after a rollback while the run waited at its gate
    const err = (await acts().buildWithState({ ...req, activeVersionRequired: true }).catch((e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string };
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err.message).toContain(`migrated-state build refused for ${req.subject}: template ${sim.template.name}'s active version changed since the preflight: ${active} is active now, not ${v1Name} (${v1})`);
    expect(err.message).toContain('Terraform destroys the home PVC and creates an empty one; so nothing was built with the migrated state');
    expect(err.message).toContain(`coder templates versions promote --template ${sim.template.name} --template-version ${v1Name}`);
    expect(posts).toEqual([]);
    expect((await coder().workspace(ws(0).id)).latest_build.id).toBe(req.read.id);

    await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: v1 } });
    const built = await acts().buildWithState({ ...req, activeVersionRequired: true });
    expect((await coder().workspace(ws(0).id)).latest_build).toMatchObject({ id: built.buildId, template_version_id: v1, job: { status: 'succeeded' } });
  });
});
