import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import type { StateBackup } from '../../src/activities/backup-state';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild } from '../sim/helpers';

/** What the client sent to POST …/builds, decoded: the proof that the state travelled inside the build. */
interface SentBuild {
  transition: string;
  template_version_id?: string;
  state?: string;
}

describe('buildWithState and restoreByBuild: one build carries the state, only onto the build that was read', () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  const sent: SentBuild[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.method === 'POST' && /\/workspaces\/[^/]+\/builds$/.test(url) && typeof init.body === 'string') sent.push(JSON.parse(init.body) as SentBuild);
    return fetch(input, init);
  };

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
  const quickPoll = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 10)));
  const coder = (token = sim.token) => new CoderClient({ url: sim.url, token, fetchImpl: recordingFetch, retry: { baseDelayMs: 5, maxDelayMs: 20 }, sleep: quickPoll });
  const acts = (token?: string) => createActivities({ coder: coder(token), blobs, notifier: { notify: async () => undefined } });
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
    await expect(acts().buildWithState(input)).rejects.toMatchObject({ type: 'WsmigrateBuiltMeanwhile', message: expect.stringMatching(/changed since it was read/) });
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
