import { makeAssessHealth } from '../../src/activities/assess-health';
import { makeBackupState } from '../../src/activities/backup-state';
import { makeBuildWithState } from '../../src/activities/build-with-state';
import { makePostBuildCheck } from '../../src/activities/post-build-check';
import { makeRewriteState } from '../../src/activities/rewrite-state';
import { makeStopWorkspace } from '../../src/activities/stop-workspace';
import { makeTrackBuildChanges } from '../../src/activities/track-build-changes';
import { makeVerifyMigration } from '../../src/activities/verify-migration';
import { makeWiredPreflight } from './fixtures/preflight-step';
import { stepsOf } from './fixtures/steps';
import { withCombined } from './fixtures/combined';
import { CoderClient } from '../../src/adapters/coder';
import { sha256Hex } from '../../src/adapters/hash';
import { V1, useSimWithVersions } from './fixtures/sim-with-versions';
import { api, latestBuildId, migrateStateByHand, putState, startBuild } from '../sim/helpers';

/** The steps this file tests, each from its own factory (fixtures/steps.ts says why). */
const STEPS = { preflightWorkspace: makeWiredPreflight, assessHealth: makeAssessHealth, rewriteState: makeRewriteState, verifyMigration: makeVerifyMigration, stopWorkspace: makeStopWorkspace, backupState: makeBackupState, buildWithState: makeBuildWithState, trackBuildChanges: makeTrackBuildChanges, postBuildCheck: makePostBuildCheck };

/**
 * The combined steps ask Coder once for what two of their parts need, where nothing is written
 * between the two reads, and read afresh after every write: the backup is of the state Coder holds
 * after the stop, and the post-build check reads back what Coder holds after the build.
 */
describe('combined steps: one read where nothing is written between, a fresh read after each write', () => {
  const env = useSimWithVersions({ workspaces: 3, sources: { v1: V1 }, promote: 'v1' });
  const coder = () => new CoderClient({ url: env.sim.url, token: env.sim.token, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  const acts = () => withCombined(stepsOf({ coder: coder(), blobs: env.blobs, notifier: { notify: async () => undefined } }, STEPS));
  const ws = (i: number) => env.sim.workspaces()[i];
  const subject = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  /** The simulator's log of requests made while `fn` ran. */
  async function requestsDuring(fn: () => Promise<unknown>): Promise<{ method: string; path: string }[]> {
    const before = env.sim.requestLog().length;
    await fn().catch(() => undefined);
    return env.sim.requestLog().slice(before);
  }
  const count = (log: { method: string; path: string }[], method: string, path: string) => log.filter((r) => r.method === method && r.path === `/api/v2${path}`).length;

  it('preflightAndAssess reads the workspace and its latest state once for both checks, and still finds a workspace whose latest build forgot its PVC damaged', async () => {
    const seeded = await latestBuildId(env.sim, ws(0).id);
    expect((await putState(env.sim, seeded, migrateStateByHand((await api(env.sim, 'GET', `/workspacebuilds/${seeded}/state`)).text))).status).toBe(204);
    const good = await startBuild(env.sim, ws(0).id, { transition: 'start', template_version_id: env.versions.v1 });
    expect(good.job.status).toBe('succeeded');
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws(0).id, times: 1 } });
    try {
      await startBuild(env.sim, ws(0).id, { transition: 'start', template_version_id: env.versions.v1 });
    } finally {
      env.sim.setFaults(undefined);
    }
    const latest = await latestBuildId(env.sim, ws(0).id);
    let result: Awaited<ReturnType<ReturnType<typeof acts>['preflightAndAssess']>> | undefined;
    const log = await requestsDuring(async () => {
      result = await acts().preflightAndAssess({ owner: ws(0).owner, workspace: ws(0).name, template: env.sim.template.name, targetVersionId: env.versions.v1, strategy: 'rename' });
    });
    expect(result?.health).toMatchObject({ health: 'damaged', recoverFrom: { id: good.id } });
    expect(result?.health.reason).toContain('kubernetes_persistent_volume_claim_v1.home');
    expect(count(log, 'GET', `/users/${ws(0).owner}/workspace/${ws(0).name}`)).toBe(1);
    expect(count(log, 'GET', `/workspaces/${ws(0).id}`)).toBe(0);
    expect(count(log, 'GET', `/workspacebuilds/${latest}/state`)).toBe(1);
    // The earlier build's state is still read: it is the one that shows the PVC the latest build lost.
    expect(count(log, 'GET', `/workspacebuilds/${good.id}/state`)).toBe(1);
  });

  it('stopAndBackUp reads the stop build only while waiting for it, its logs once, and the backup reads the state after the stop ended', async () => {
    const read = (await coder().workspace(ws(1).id)).latest_build.build_number;
    let stopped: Awaited<ReturnType<ReturnType<typeof acts>['stopAndBackUp']>> | undefined;
    const log = await requestsDuring(async () => {
      stopped = await acts().stopAndBackUp({ workspaceId: ws(1).id, subject: subject(1), afterBuildNumber: read, timeoutMs: 30_000, workflowId: 'wf', template: env.sim.template.name });
    });
    const stopId = stopped!.stop.buildId;
    expect(stopped!.backup.blob.sha256).toBe(sha256Hex(await coder().getWorkspaceBuildState(stopId)));
    expect(count(log, 'GET', `/workspacebuilds/${stopId}/logs`)).toBe(1);
    // One workspace read before the stop (the client reuses it for the POST), one for the backup after it.
    expect(count(log, 'GET', `/workspaces/${ws(1).id}`)).toBe(2);
    const paths = log.map((r) => `${r.method} ${r.path}`);
    const lastPoll = paths.lastIndexOf(`GET /api/v2/workspacebuilds/${stopId}`);
    const stopStateRead = paths.lastIndexOf(`GET /api/v2/workspacebuilds/${stopId}/state`);
    expect(lastPoll).toBeGreaterThan(paths.indexOf(`POST /api/v2/workspaces/${ws(1).id}/builds`));
    expect(stopStateRead).toBeGreaterThan(lastPoll);
    expect(paths.lastIndexOf(`GET /api/v2/workspaces/${ws(1).id}`)).toBeGreaterThan(lastPoll);
  });

  it('buildWithStateAndCheck reads the build logs once for both checks and reads the state back after the build: a build that forgot the PVC is caught', async () => {
    const a = acts();
    const pf = await a.preflightWorkspace({ owner: ws(2).owner, workspace: ws(2).name, template: env.sim.template.name, targetVersionId: env.versions.v1, strategy: 'rename' });
    const backup = await a.backupState({ workspaceId: ws(2).id, subject: subject(2) });
    const { rewrite } = await a.rewriteAndVerify({ subject: subject(2), backupRef: backup.blob.ref, strategy: 'rename', targetVersionId: env.versions.v1 });
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws(2).id, times: 1 } });
    let failure: unknown;
    const log = await requestsDuring(async () => {
      failure = await a
        .buildWithStateAndCheck({
          purpose: 'migrate',
          workspaceId: pf.workspaceId,
          subject: subject(2),
          transition: pf.prior.transition,
          templateVersionId: env.versions.v1,
          state: { ref: rewrite.migrated.ref, sha256: rewrite.migrated.sha256 },
          read: { id: backup.buildId, buildNumber: backup.buildNumber, stateSha256: backup.blob.sha256 },
          backupRef: backup.blob.ref,
          timeoutMs: 30_000,
          workflowId: 'wf',
          template: env.sim.template.name,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
    });
    env.sim.setFaults(undefined);
    const built = (await coder().workspace(ws(2).id)).latest_build;
    expect(built.build_number).toBe(backup.buildNumber + 1);
    expect(failure).toMatchObject({ type: 'WsmigrateDataLoss', nonRetryable: true, message: expect.stringContaining('persistent data lost in build') });
    expect((failure as Error).message).toContain('kubernetes_persistent_volume_claim.home missing');
    expect(count(log, 'GET', `/workspacebuilds/${built.id}/logs`)).toBe(1);
    const paths = log.map((r) => `${r.method} ${r.path}`);
    expect(paths.lastIndexOf(`GET /api/v2/workspacebuilds/${built.id}/state`)).toBeGreaterThan(paths.lastIndexOf(`GET /api/v2/workspacebuilds/${built.id}`));
    // The guard's read of the backed-up build's state before the write is still made.
    expect(count(log, 'GET', `/workspacebuilds/${backup.buildId}/state`)).toBe(1);
  });
});
