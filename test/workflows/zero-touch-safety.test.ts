import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { fleetResult, startFleet } from '../../src/client/fleet';
import { migrationStatus } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { startTemplateMigration } from '../../src/client/migrations';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import { waitFor } from '../harness/wait';
import { api, homePvcName, latestBuildId, putState, startBuild } from '../sim/helpers';
import { FailureType } from '../../src/domain/failure-types';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

/**
 * Zero-touch never takes "no deprecated type left" for "migrated": a workspace whose builds lost
 * its PVC is damaged, and a pinned start that loses or replaces the PVC is not a success.
 */
describe('zeroTouchWorkspace meets a workspace or a build that lost its PVC', () => {
  let env: MigrationEnv;
  let versionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 5 });
    await env.startWorker();
    const template = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    versionId = template.versionId;
  });
  afterAll(async () => env?.close());

  const subject = (i: number) => `${env.sim.workspaces()[i].owner}/${env.sim.workspaces()[i].name}`;
  const buildCount = async (i: number) => (await env.coder.workspace(env.sim.workspaces()[i].id)).latest_build.build_number;
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(env.sim.workspaces()[i].id))?.uid;

  it('a workspace whose last build failed after one that forgot its PVC is needs-attention in the fleet, not "migrated itself"; the others migrate', async () => {
    const damaged = env.sim.workspaces()[0];
    // Its owner's start on the zero-touch version forgets the PVC (the object stays), then a start fails.
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: damaged.id, times: 1 } });
    expect((await startBuild(env.sim, damaged.id, { transition: 'start', template_version_id: versionId })).job.status).toBe('succeeded');
    env.sim.setFaults({ failBuilds: { workspaceId: damaged.id, times: 1 } });
    expect((await startBuild(env.sim, damaged.id, { transition: 'start', template_version_id: versionId })).job.status).toBe('failed');
    env.sim.setFaults(undefined);
    const damagedBuilds = await buildCount(0);
    const uidsBefore = [0, 1, 2, 3, 4].map(pvcUid);

    const result = (await (
      await startFleet(
        env.t.client,
        { organization: 'coder', template: env.sim.template.name, targetVersionId: versionId, zeroTouch: true, canary: 0, concurrency: 3, filters: { exclude: [subject(3), subject(4)] }, approval: { policy: 'none' } },
        { taskQueue: env.taskQueue },
      )
    ).result()) as FleetResult;

    expect(result.summary).toMatchObject({ migrated: 2, alreadyMigrated: 0, needsAttention: 1, failed: 0, restored: 0 });
    expect(result.zeroTouch).toEqual({ migratedThemselves: 0, migratedByRunbook: expect.arrayContaining([subject(1), subject(2)]), waitingForBuild: [] });
    expect(result.failures).toEqual([
      {
        workflowId: expect.any(String),
        subject: subject(0),
        outcome: 'needs-attention',
        reason: expect.stringMatching(
          new RegExp(`^${subject(0)} is damaged, not migrated: kubernetes_persistent_volume_claim\\.home forgotten by build #${damagedBuilds - 1} \\(its state has no entry; the object was not deleted\\).*Recover it with: wsmigrate recover ${subject(0)} --template `),
        ),
      },
    ]);
    // The fleet built nothing on the damaged one; every PVC is the one it was.
    expect(await buildCount(0)).toBe(damagedBuilds);
    expect([0, 1, 2, 3, 4].map(pvcUid)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('a healthy workspace already on the zero-touch version (migrated by the fleet above) is already-migrated: nothing built, its PVC the same', async () => {
    const ws = env.sim.workspaces()[2];
    const builds = await buildCount(2);
    const uid = pvcUid(2);
    const result = await (
      await env.t.client.workflow.start('zeroTouchWorkspace', {
        taskQueue: env.taskQueue,
        workflowId: `zero-touch-safety/again/${ws.id}`,
        args: [{ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'none' } }],
      })
    ).result();
    expect(result).toMatchObject({ outcome: 'already-migrated', workspaceId: ws.id });
    expect(await buildCount(2)).toBe(builds);
    expect(pvcUid(2)).toBe(uid);
  });

  async function zeroTouchRun(i: number): Promise<ApplicationFailure> {
    const ws = env.sim.workspaces()[i];
    const handle = await env.t.client.workflow.start('zeroTouchWorkspace', {
      taskQueue: env.taskQueue,
      workflowId: `zero-touch-safety/${ws.id}`,
      args: [{ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'none' } }],
    });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return cause as ApplicationFailure;
  }

  it('a pinned zero-touch start that replaces the PVC ends needs-attention, naming it and both uids', async () => {
    const ws = env.sim.workspaces()[3];
    const before = pvcUid(3);
    env.sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws.id, times: 1 } });
    const failure = await zeroTouchRun(3);
    env.sim.setFaults(undefined);
    const after = pvcUid(3);
    expect(after).not.toBe(before);
    expect(failure.type).toBe('WsmigrateNeedsAttention');
    expect(failure.message).toMatch(
      new RegExp(`^${subject(3)}: the zero-touch start lost data: post-build check: ${subject(3)}: persistent data lost in build .*: kubernetes_persistent_volume_claim\\.home replaced \\(uid ${before} -> ${after}\\)`),
    );
  });

  it('a pinned zero-touch start that forgets the PVC ends needs-attention, naming it; the object is still in the cluster', async () => {
    const ws = env.sim.workspaces()[4];
    const before = pvcUid(4);
    env.sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws.id, times: 1 } });
    const failure = await zeroTouchRun(4);
    env.sim.setFaults(undefined);
    expect(failure.type).toBe('WsmigrateNeedsAttention');
    expect(failure.message).toMatch(new RegExp(`^${subject(4)}: the zero-touch start lost data: .*: kubernetes_persistent_volume_claim\\.home missing\\.`));
    expect(pvcUid(4)).toBe(before);
  });
});

/**
 * A workspace already on _v1 types whose health cannot be judged is neither "already migrated" nor
 * a workspace to back up and start: one busy with someone else's build through the whole bounded wait
 * fails as busy (for a later round), one whose state cannot be read is refused; neither gets a build,
 * a backup or a state of ours. The worker's timers are a hundredth of their length
 * (fixtures/short-timers): the run's five minutes of polls take seconds.
 */
describe("zeroTouchWorkspace meets a workspace it cannot judge: someone else's build running, or a state it cannot read", () => {
  let env: MigrationEnv;
  let versionId: string;
  // What a user does between our preflight and our health check (a step boundary of the run).
  let afterPreflight: ((workspace: string) => Promise<void>) | undefined;
  // Called when a run goes on to the backup: past the health check, which should have stopped it.
  let onBackup: ((subject: string) => void) | undefined;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, provisioners: 1 });
    await env.startWorker({
      workflowInterceptorModules: [require.resolve('./fixtures/short-timers')],
      wrap: (acts) => ({
        ...acts,
        preflightWorkspace: async (i) => {
          const r = await acts.preflightWorkspace(i);
          await afterPreflight?.(i.workspace);
          return r;
        },
        backupState: async (i) => {
          onBackup?.(i.subject);
          return acts.backupState(i);
        },
      }),
    });
    versionId = (
      (await (
        await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
      ).result()) as TemplateMigrationResult
    ).versionId;
    // Each owner's start on the zero-touch version migrated it: no deprecated type left, healthy.
    for (const ws of env.sim.workspaces()) expect((await startBuild(env.sim, ws.id, { transition: 'start', template_version_id: versionId })).job.status).toBe('succeeded');
  });
  afterAll(async () => env?.close());

  const subject = (i: number) => `${env.sim.workspaces()[i].owner}/${env.sim.workspaces()[i].name}`;
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(env.sim.workspaces()[i].id))?.uid;
  const daemonsOffline = (offline: boolean) => {
    for (const d of env.sim.provisionerDaemons()) env.sim.setDaemonOffline(d.name, offline);
  };

  /** The run's failure; a run that goes on to the backup, or is still going after `withinMs`, is terminated and fails the test. */
  async function zeroTouchFailure(i: number, withinMs: number): Promise<{ failure: ApplicationFailure; timers: number }> {
    const ws = env.sim.workspaces()[i];
    const handle = await env.t.client.workflow.start('zeroTouchWorkspace', {
      taskQueue: env.taskQueue,
      workflowId: `zero-touch-safety/cannot-judge/${ws.id}`,
      args: [{ owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'none' } }],
    });
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      handle.result().then(
        (r: unknown) => ({ result: r }),
        (e: unknown) => ({ error: e }),
      ),
      new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), withinMs))),
      new Promise<'went on'>((resolve) => (onBackup = (s) => s === subject(i) && resolve('went on'))),
    ]).finally(() => {
      clearTimeout(timer);
      onBackup = undefined;
    });
    if (ended === 'still running' || ended === 'went on') {
      await handle.terminate('the test gave up on it');
      throw new Error(`${subject(i)}: the zero-touch run ${ended === 'went on' ? 'went on to the backup' : `was still running after ${withinMs} ms`}, past the health check`);
    }
    expect(ended).toEqual({ error: expect.any(WorkflowFailedError) });
    const cause = ((ended as { error: WorkflowFailedError }).error).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    const timers = ((await handle.fetchHistory()).events ?? []).filter((e) => e.timerStartedEventAttributes).length;
    return { failure: cause as ApplicationFailure, timers };
  }

  it("busy with its owner's build through the whole wait: fails as busy, naming that build; nothing built, backed up or pushed by us, its PVC the same", async () => {
    const ws = env.sim.workspaces()[0];
    const uid = pvcUid(0);
    const before = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const blobsBefore = (await env.blobs.list()).length;
    let owners: { id: string; build_number: number } | undefined;
    // Right after our preflight, its owner presses Stop; no provisioner is free, so it stays pending.
    afterPreflight = async (workspace) => {
      if (workspace !== ws.name) return;
      daemonsOffline(true);
      owners = await fetch(`${env.sim.url}/api/v2/workspaces/${ws.id}/builds`, {
        method: 'POST',
        headers: { 'Coder-Session-Token': env.sim.tokenOf(ws.owner), 'Content-Type': 'application/json' },
        body: JSON.stringify({ transition: 'stop' }),
      }).then((r) => r.json() as Promise<{ id: string; build_number: number }>);
    };
    try {
      const { failure, timers } = await zeroTouchFailure(0, 160_000);
      expect(failure.type).toBe(FailureType.busy);
      expect(failure.message).toBe(`preflight: ${subject(0)} is busy: build #${owners!.build_number} (stop) is pending`);
      // It read the workspace again after each poll of its bounded wait, then gave up.
      expect(timers).toBe(60);
      expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ id: owners!.id, job: { status: 'pending' } });
    } finally {
      afterPreflight = undefined;
      daemonsOffline(false);
    }
    // The owner's stop runs once a provisioner is back, and it is the only build since the run began: none of ours.
    expect(owners!.build_number).toBe(before + 1);
    await waitFor(async () => (await env.coder.workspace(ws.id)).latest_build.job.status === 'succeeded', 30_000);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ id: owners!.id, build_number: before + 1, transition: 'stop' });
    expect((await env.blobs.list()).length).toBe(blobsBefore);
    expect(pvcUid(0)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('its state overwritten after our preflight read it (a broken `coder state push`): refused as unreadable, saying why; nothing built, backed up or pushed by us', async () => {
    const ws = env.sim.workspaces()[1];
    const uid = pvcUid(1);
    const read = await latestBuildId(env.sim, ws.id);
    const good = (await api(env.sim, 'GET', `/workspacebuilds/${read}/state`)).text;
    const builds = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const blobsBefore = (await env.blobs.list()).length;
    afterPreflight = async (workspace) => {
      if (workspace === ws.name) expect((await putState(env.sim, read, '{"version": 4, "resources": [')).status).toBe(204);
    };
    try {
      const { failure, timers } = await zeroTouchFailure(1, 120_000);
      expect(failure.type).toBe(FailureType.refused);
      expect(failure.message).toMatch(new RegExp(`^preflight: ${subject(1)} is unreadable: .+`));
      expect(timers).toBe(0);
    } finally {
      afterPreflight = undefined;
      expect((await putState(env.sim, read, good)).status).toBe(204);
    }
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ id: read, build_number: builds });
    expect((await env.blobs.list()).length).toBe(blobsBefore);
    expect(pvcUid(1)).toBe(uid);
  });
});

describe('the fleet failure budget counts needs-attention, and still holds after an approval', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 6 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('two needs-attention stop the fleet at fleet-budget; approved, it resumes; two more stop it again; rejected, it is cancelled', async () => {
    const template = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    // The first four pinned starts replace their PVC: each of those workspaces ends needs-attention.
    env.sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim_v1.home', transition: 'start', times: 4 } });
    const handle = await startFleet(
      env.t.client,
      {
        organization: 'coder',
        template: env.sim.template.name,
        targetVersionId: template.versionId,
        zeroTouch: true,
        canary: 0,
        concurrency: 1,
        failureBudget: { percent: 0, min: 1 },
        approval: { policy: 'none', approvers: ['sre'] },
      },
      { taskQueue: env.taskQueue },
    );
    const budgetGate = async (needsAttention: number) => {
      const progress = async () => (await migrationStatus(env.t.client, handle.workflowId)) as FleetProgress;
      await waitFor(async () => {
        const p = await progress();
        return p.pendingApproval?.gateId === 'fleet-budget' && p.counts['needs-attention'] === needsAttention;
      }, 120_000);
      return progress();
    };
    const first = await budgetGate(2);
    expect(first.counts['needs-attention']).toBe(2);
    expect(first.running).toEqual([]);
    expect(first.finished).toBe(2);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });

    const second = await budgetGate(4);
    expect(second.counts['needs-attention']).toBe(4);
    expect(second.finished).toBe(4);
    expect(second.budget).toEqual({ allowance: 1, failures: 4, accepted: 2 });
    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
    const result = await fleetResult(env.t.client, handle.workflowId);
    env.sim.setFaults(undefined);
    expect(result.phase).toBe('cancelled');
    expect(result.summary).toMatchObject({ needsAttention: 4, migrated: 0, alreadyMigrated: 0 });
    expect(result.failures.map((f) => f.outcome)).toEqual(['needs-attention', 'needs-attention', 'needs-attention', 'needs-attention']);
    expect(result.failures.every((f) => /kubernetes_persistent_volume_claim\.home replaced \(uid /.test(f.reason))).toBe(true);
    expect(result.moreRemaining).toBe(true);
    // The two workspaces it never reached were not built by the fleet: still unmigrated, same PVC.
    expect(env.sim.cluster.pvcLosses()).toHaveLength(4);
  });
});

describe('zeroTouchWorkspace onto a version that is no longer the active one (an old version promoted again)', () => {
  let env: MigrationEnv;
  let versionId: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
    const template = (await (
      await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, zeroTouch: true, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as TemplateMigrationResult;
    versionId = template.versionId;
    const rolledBack = await api(env.sim, 'PATCH', `/templates/${env.sim.template.id}/versions`, { json: { id: env.sim.template.originalVersionId } });
    expect(rolledBack.status).toBe(200);
  });
  afterAll(async () => env?.close());

  it("is refused in its preflight, naming the owner's Update and the PVC: nothing built, the PVC the same; asked for by name it runs and warns", async () => {
    const ws = env.sim.workspaces()[0];
    const before = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const input = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'none' } };
    const err = await (await env.t.client.workflow.start('zeroTouchWorkspace', { taskQueue: env.taskQueue, workflowId: `zero-touch-inactive/${ws.id}`, args: [input] })).result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(/is not the active version of template .*Update.*destroys the home PVC.*Nothing was stopped/s);
    expect((await env.coder.workspace(ws.id)).latest_build.build_number).toBe(before);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);

    const asked = await (
      await env.t.client.workflow.start('zeroTouchWorkspace', { taskQueue: env.taskQueue, workflowId: `zero-touch-inactive/by-name/${ws.id}`, args: [{ ...input, allowInactiveVersion: true }] })
    ).result();
    expect(asked.warnings.join(' ')).toMatch(/outdated.*Update.*PVC/s);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
