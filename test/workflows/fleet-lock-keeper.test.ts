import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WsmigrateActivities } from '../../src/activities';
import { makeReleaseActiveVersion } from '../../src/activities/active-version-lock';
import { sha256Hex } from '../../src/adapters/hash';
import { fleetStatus, startFleet } from '../../src/client/fleet';
import { withLeftLock, type LeftLockSources } from '../../src/client/left-lock';
import { temporalLockHolders, type LockHolders } from '../../src/client/lock-holders';
import { statusText } from '../../src/cli/fleet-render';
import { fleetProgressQuery, type FleetResult } from '../../src/contracts/migrate-fleet';
import { formatBlobRef } from '../../src/domain/blob-ref';
import type { MigrateFleetInput } from '../../src/domain/fleet-input';
import { templateLockMarkText } from '../../src/domain/template-lock-mark';
import { createLockKeeper, type LockKeeper } from '../../src/worker/lock-keeper';
import { coderLockMarks } from '../../src/worker/lock-marks';
import { runMain } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(300_000);

/**
 * A fleet run that is terminated (`temporal workflow terminate`, the Web UI's Terminate) or times
 * out runs no code at its end: require_active_version stays on with wsmigrate's mark and no run
 * watching the active version. An admin's rollback would then make Coder's lifecycle executor
 * autostart every migrated workspace on the old version with its `_v1` state
 * (coderd/autobuild/lifecycle_executor.go useActiveVersion) and destroy its PVC. The worker's lock
 * keeper gives it back once no run holds it; `fleet status` says what the run left.
 */
describe("the worker's lock keeper gives back what a run that ran no code at its end left on", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let releaseFails = false;
  const lines: string[] = [];
  let keeper: LockKeeper | undefined;

  const requireActive = async () => (await env.coder.template(env.sim.template.id)).require_active_version === true;
  const marked = async () => env.blobs.has(formatBlobRef(env.blobs.location, sha256Hex(Buffer.from(templateLockMarkText(env.sim.template.id)))));
  const sources = (): LeftLockSources => ({ coder: env.coder, blobs: env.blobs, keeperSeconds: 1 });
  const statusOf = async (id: string) => statusText(await withLeftLock(env.t.client, await fleetStatus(env.t.client, id), sources()));
  /** `wsmigrate fleet status <id>` as an operator runs it, configured for this Coder and this store. */
  const cliStatus = async (id: string, ...more: string[]) => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { CODER_URL: env.sim.url, CODER_SESSION_TOKEN: env.sim.token, WSMIGRATE_BLOB_DIR: env.blobDir, WSMIGRATE_LOCK_KEEPER_INTERVAL: '1', WSMIGRATE_TASK_QUEUE: env.taskQueue });
      const r = await runMain('fleet', 'status', id, ...more);
      // --wait follows it to its end and exits 1 for a run that failed (a termination is one).
      expect(r.exitCode).toBe(more.includes('--wait') ? 1 : 0);
      return r.out;
    } finally {
      process.env = saved;
    }
  };
  const keeperWith = (holders: LockHolders) =>
    createLockKeeper({
      findMarks: coderLockMarks({ coder: env.coder, blobs: env.blobs }),
      holders, giveBack: makeReleaseActiveVersion({ coder: env.coder, blobs: env.blobs }), log: (l) => lines.push(l), intervalMs: 300 });

  /** A fleet waiting at its canary gate, holding the setting. */
  const atGate = async (workflowId?: string) => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, ...(workflowId ? { workflowId } : {}) },
    );
    await waitFor(async () => (await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 90_000);
    expect(await requireActive()).toBe(true);
    return handle;
  };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 5, licence: 'premium' });
    await env.startWorker({
      wrap: (acts): WsmigrateActivities => ({
        ...acts,
        // Say, Coder down as a run ends.
        releaseActiveVersion: async (i) => {
          if (releaseFails) throw ApplicationFailure.create({ message: 'Coder answered 503 for this test', nonRetryable: true });
          return acts.releaseActiveVersion(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterEach(async () => {
    await keeper?.stop();
    keeper = undefined;
  });
  afterAll(async () => env?.close());

  it('terminated at its canary gate: status says the setting is still on and who gives it back; Temporal refusing leaves it; the keeper gives it back and status says so', async () => {
    const handle = await atGate();
    await handle.terminate('an SRE reached for Terminate');
    expect(await requireActive()).toBe(true);
    expect(await cliStatus(handle.workflowId)).toMatch(
      new RegExp(
        `require active version: still ON, left by this run's termination, and no run watches the active version: do not promote an old version; the worker's lock keeper gives it back within ~1 s \\(or: coder templates edit ${env.sim.template.name} --require-active-version=false\\)`,
      ),
    );

    // Said as what happened (not 'failed'), with what became of the migrations it had started.
    expect(await cliStatus(handle.workflowId)).toMatch(new RegExp(`^${handle.workflowId}: terminated: an SRE reached for Terminate\n`));
    expect(await cliStatus(handle.workflowId)).toMatch(/\nthe migrations it had started are runs of their own and go on to their end .*'wsmigrate approvals' lists those waiting$/);
    expect(await cliStatus(handle.workflowId, '--wait')).toMatch(/require active version: still ON, left by this run's termination/);

    // Temporal refuses to describe the run (here: a namespace it does not know): nothing is given back.
    const refusing = new Client({ connection: env.t.client.connection, namespace: 'wsmigrate-no-such-namespace' });
    const blind = await keeperWith(temporalLockHolders(refusing)).sweep();
    expect(blind).toEqual([expect.objectContaining({ template: `coder/${env.sim.template.name}`, outcome: 'unknown' })]);
    expect(await requireActive()).toBe(true);
    expect(await marked()).toBe(true);

    keeper = keeperWith(temporalLockHolders(env.t.client));
    keeper.start();
    // The keeper says so once its give-back has ended (the setting off, then the mark removed): waited for by its line, as
    // the setting reads off before the mark's removal is done and the line said.
    const saidGivenBack = () => lines.some((l) => l.startsWith(`lock keeper: require_active_version given back (off) on template coder/${env.sim.template.name}: no wsmigrate run holds it (${handle.workflowId} terminated`));
    await waitFor(async () => saidGivenBack(), 30_000);
    expect(await requireActive()).toBe(false);
    expect(await marked()).toBe(false);
    expect(await cliStatus(handle.workflowId)).toMatch(/require active version: given back \(off\) since this run's termination/);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it("the operator's own setting (on, no mark) is never touched", async () => {
    await env.coder.setTemplateRequireActiveVersion(env.sim.template.id, true);
    expect(await keeperWith(temporalLockHolders(env.t.client)).sweep()).toEqual([]);
    expect(await requireActive()).toBe(true);
    await env.coder.setTemplateRequireActiveVersion(env.sim.template.id, false);
  });

  it("a later run on the template holds it while the mark's first run is closed; once it ends too, given back", async () => {
    const first = await atGate();
    await first.terminate('stuck');
    // A window of the template (its own id) finds wsmigrate's mark and holds the setting.
    const second = await atGate(`${first.workflowId}-2026-12-07T05:00:00Z`);
    expect((await second.query(fleetProgressQuery)).activeVersionLock).toEqual({ state: 'already-on', byWsmigrate: true });
    const k = keeperWith(temporalLockHolders(env.t.client));
    expect(await k.sweep()).toEqual([{ template: `coder/${env.sim.template.name}`, outcome: 'held', by: second.workflowId }]);
    expect(await statusOf(first.workflowId)).toMatch(new RegExp(`require active version: on, held now by ${second.workflowId}, which runs`));
    expect(await requireActive()).toBe(true);
    expect(await marked()).toBe(true);

    await second.terminate('stuck too');
    expect(await k.sweep()).toEqual([expect.objectContaining({ outcome: 'given-back' })]);
    expect(await requireActive()).toBe(false);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it("a run that completed but could not give it back (Coder down as it ended): the keeper's next sweep does", async () => {
    releaseFails = true;
    const input: MigrateFleetInput = { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 1, filters: { limit: 1 }, archiveOldVersions: false, approval: { policy: 'none' } };
    const handle = await startFleet(env.t.client, input, { taskQueue: env.taskQueue });
    const result = (await handle.result()) as FleetResult;
    releaseFails = false;
    expect(result.activeVersionLock).toEqual({ state: 'switched-on' });
    expect(await requireActive()).toBe(true);
    expect(await keeperWith(temporalLockHolders(env.t.client)).sweep()).toEqual([expect.objectContaining({ outcome: 'given-back', why: expect.stringContaining(`${handle.workflowId} completed`) })]);
    expect(await requireActive()).toBe(false);
    expect(await marked()).toBe(false);
  });
});
