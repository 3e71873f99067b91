import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { makeStartPinned } from '../../src/activities/start-pinned';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { stepsOf } from './fixtures/steps';
import { recordingCoder } from './fixtures/recorded-builds';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { backupState: makeBackupState, buildWithState: makeBuildWithState, stopWorkspace: makeStopWorkspace, startPinned: makeStartPinned };

/**
 * A retried step takes a build newer than the one it read for its own only when its earlier attempt
 * heartbeated that build, or when the build has its own shape right after the read (an attempt that
 * died before its first heartbeat). Anything else is someone's: taken for ours, a migration would call
 * their build its migrated-state build, or back up a running workspace after "its" stop.
 */
describe("a retried step's own build, and everyone else's", () => {
  let sim: CoderSimulator;
  let dir: string;
  let blobs: BlobStore;
  let v1: string;
  const { sent, client } = recordingCoder();

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 4, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-earlier-'));
    blobs = createFileBlobStore({ dir });
    v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sent.length = 0;
  });

  const acts = () => stepsOf({ coder: client(sim), blobs, notifier: { notify: async () => undefined } }, STEPS);
  const ws = (i: number) => sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const latest = async (i: number) => (await client(sim).workspace(ws(i).id)).latest_build;
  /** A build by the workspace's owner (a member), as the dashboard's Start or Stop makes it. */
  const byOwner = (i: number, body: Record<string, unknown>) => client(sim, sim.tokenOf(ws(i).owner)).createWorkspaceBuild(ws(i).id, body as never).then((b) => client(sim).waitForBuild(b.id));
  /** An earlier attempt that died after its heartbeat: the next attempt's context carries `{ buildId }`. */
  const retriedAfterHeartbeat = <A extends unknown[], R>(buildId: string, step: (...args: A) => Promise<R>, ...args: A) => new MockActivityEnvironment({ heartbeatDetails: { buildId } }).run(step, ...args);

  describe('buildWithState', () => {
    async function prepared(i: number) {
      const backup = await acts().backupState({ workspaceId: ws(i).id, subject: subject(i) });
      const migrated = await blobs.put(Buffer.from(migrateStateByHand((await blobs.get(backup.blob.ref)).toString('utf8'))), { kind: 'migrated-state', label: 'test' });
      return {
        migratedBytes: await blobs.get(migrated.ref),
        input: {
          purpose: 'migrate' as const,
          workspaceId: ws(i).id,
          subject: subject(i),
          transition: 'start' as const,
          templateVersionId: v1,
          state: { ref: migrated.ref, sha256: migrated.sha256 },
          read: { id: backup.buildId, buildNumber: backup.buildNumber, stateSha256: backup.blob.sha256 },
          timeoutMs: 30_000,
        },
      };
    }

    it("its own build behind someone's (they built between its read and its POST) is found by the heartbeat alone; without it, the step refuses to call it its own", async () => {
      const { input, migratedBytes } = await prepared(0);
      const pvc = sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid;
      const theirs = await byOwner(0, { transition: 'stop' });
      expect(theirs.build_number).toBe(input.read.buildNumber + 1);
      // The earlier attempt's POST landed after their stop: build #read+2, carrying the migrated state.
      const ours = await startBuild(sim, ws(0).id, { transition: 'start', template_version_id: v1, state: migratedBytes.toString('base64') });
      expect(ours).toMatchObject({ build_number: input.read.buildNumber + 2, job: { status: 'succeeded' } });
      sent.length = 0;

      await expect(acts().buildWithState(input)).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringMatching(new RegExp(`^migrated-state build: ${subject(0)}: build #${ours.build_number} \\(start, succeeded\\) was started by .* after build #${input.read.buildNumber}, the one this step read`)),
      });
      expect(await retriedAfterHeartbeat(ours.id, acts().buildWithState, input)).toEqual({ buildId: ours.id, buildNumber: ours.build_number });
      expect(sent).toEqual([]);
      expect((await latest(0)).id).toBe(ours.id);
      expect(sim.cluster.pvc('coder', homePvcName(ws(0).id))?.uid).toBe(pvc);
    });

    it("the owner's Update and Restart onto the new version (a start on it, after their stop) has our shape but not our place: never taken for the migrated-state build", async () => {
      const { input } = await prepared(1);
      await byOwner(1, { transition: 'stop' });
      const theirs = await byOwner(1, { transition: 'start', template_version_id: v1 });
      expect(theirs).toMatchObject({ build_number: input.read.buildNumber + 2, transition: 'start', template_version_id: v1, job: { status: 'succeeded' } });
      sent.length = 0;
      await expect(acts().buildWithState(input)).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        nonRetryable: true,
        message: expect.stringContaining(`build #${theirs.build_number} (start, succeeded) was started by ${ws(1).owner} after build #${input.read.buildNumber}`),
      });
      expect(sent).toEqual([]);
    });

    it("the owner's Start (Update) on the promoted version right after the read has our place, transition and version: started by them, never taken for the migrated-state build", async () => {
      // Option A read the stopped workspace; the owner starts it before our POST, on the active version, which is ours once promoted.
      await byOwner(2, { transition: 'stop' });
      const { input } = await prepared(2);
      const theirs = await byOwner(2, { transition: 'start', template_version_id: v1 });
      expect(theirs).toMatchObject({ build_number: input.read.buildNumber + 1, transition: 'start', template_version_id: v1, initiator_id: expect.any(String), job: { status: 'succeeded' } });
      sent.length = 0;
      await expect(acts().buildWithState(input)).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        nonRetryable: true,
        message: expect.stringContaining(`build #${theirs.build_number} (start, succeeded) was started by ${ws(2).owner} after build #${input.read.buildNumber}`),
      });
      expect(sent).toEqual([]);
    });

    it("a build right after the read by this token's own user (an SRE's dashboard click on the same account) with another transition or version is not ours: started by us is not enough", async () => {
      for (const body of [
        { transition: 'stop', template_version_id: v1 },
        { transition: 'start', template_version_id: sim.template.originalVersionId },
      ]) {
        const { input } = await prepared(3);
        const theirs = await client(sim).createWorkspaceBuild(ws(3).id, body as never).then((b) => client(sim).waitForBuild(b.id));
        expect(theirs).toMatchObject({ build_number: input.read.buildNumber + 1, ...body, job: { status: 'succeeded' } });
        sent.length = 0;
        await expect(acts().buildWithState(input)).rejects.toMatchObject({
          type: FailureType.builtMeanwhile,
          nonRetryable: true,
          message: expect.stringContaining(`build #${theirs.build_number} (${body.transition}, succeeded) was started by `),
        });
        expect(sent).toEqual([]);
      }
    });

    it('a stop someone pinned to the new version right after the read has our version but not our transition: not the migrated-state build', async () => {
      const { input } = await prepared(1);
      const theirs = await byOwner(1, { transition: 'stop', template_version_id: v1 });
      expect(theirs).toMatchObject({ build_number: input.read.buildNumber + 1, transition: 'stop', template_version_id: v1 });
      sent.length = 0;
      await expect(acts().buildWithState(input)).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringContaining(`build #${theirs.build_number} (stop, succeeded) was started by ${ws(1).owner} after build #${input.read.buildNumber}`),
      });
      expect(sent).toEqual([]);
    });
  });

  describe('stopWorkspace and startPinned', () => {
    it("its own stop behind the owner's start is found by the heartbeat alone; without it, the step refuses to call it its own", async () => {
      const read = (await latest(2)).build_number;
      const theirs = await byOwner(2, { transition: 'start' });
      expect(theirs.build_number).toBe(read + 1);
      const ours = await startBuild(sim, ws(2).id, { transition: 'stop' });
      expect(ours.build_number).toBe(read + 2);
      const input = { workspaceId: ws(2).id, subject: subject(2), afterBuildNumber: read, timeoutMs: 30_000 };
      sent.length = 0;

      await expect(acts().stopWorkspace(input)).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringMatching(new RegExp(`^stop build: ${subject(2)}: build #${ours.build_number} \\(stop, succeeded\\) was started by .* after build #${read}, the one this step read`)),
      });
      expect(await retriedAfterHeartbeat(ours.id, acts().stopWorkspace, input)).toEqual({ buildId: ours.id, buildNumber: ours.build_number });
      expect(sent).toEqual([]);
    });

    it("a start by this same token right after the read is not its stop: taken for one, the backup after it would be of a running workspace", async () => {
      const read = (await latest(3)).build_number;
      const start = await startBuild(sim, ws(3).id, { transition: 'start' });
      sent.length = 0;
      await expect(acts().stopWorkspace({ workspaceId: ws(3).id, subject: subject(3), afterBuildNumber: read, timeoutMs: 30_000 })).rejects.toMatchObject({
        type: FailureType.builtMeanwhile,
        message: expect.stringContaining(`stop build: ${subject(3)}: build #${start.build_number} (start, succeeded) was started by`),
      });
      expect(sent).toEqual([]);
      expect((await latest(3)).id).toBe(start.id);
    });

    it('asks Coder who the token is to judge a build of its shape right after the read: when Coder cannot say, the step fails for a retry, naming itself', async () => {
      const read = (await latest(3)).build_number;
      const stop = await startBuild(sim, ws(3).id, { transition: 'stop' });
      sim.setFaults({ error500Rate: 1, only: ['/api/v2/users/me'] });
      try {
        await expect(acts().stopWorkspace({ workspaceId: ws(3).id, subject: subject(3), afterBuildNumber: read, timeoutMs: 30_000 })).rejects.toMatchObject({
          nonRetryable: false,
          message: expect.stringMatching(new RegExp(`^stop build failed for ${subject(3)}: `)),
        });
      } finally {
        sim.setFaults(undefined);
      }
      expect(await acts().stopWorkspace({ workspaceId: ws(3).id, subject: subject(3), afterBuildNumber: read, timeoutMs: 30_000 })).toEqual({ buildId: stop.id, buildNumber: read + 1 });
    });

    it('heartbeats the build it made at once, then its status while it runs: what the next attempt finds it by', async () => {
      const before = await latest(3);
      const env = new MockActivityEnvironment();
      const beats: unknown[] = [];
      env.on('heartbeat', (d: unknown) => beats.push(d));
      const r: { buildId: string } = await env.run(acts().startPinned, { workspaceId: ws(3).id, subject: subject(3), templateVersionId: before.template_version_id, afterBuildNumber: before.build_number, timeoutMs: 30_000 });
      expect(beats[0]).toEqual({ buildId: r.buildId });
      expect(beats.slice(1)).toContainEqual({ buildId: r.buildId, status: 'succeeded' });
    });
  });
});
