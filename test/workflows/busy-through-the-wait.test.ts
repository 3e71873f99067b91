import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WsmigrateActivities } from '../../src/activities';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { FailureType } from '../../src/domain/failure-types';
import { homePvcName } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

/**
 * migrateWorkspace meets a workspace whose health reads busy (someone else's build running) through
 * the whole bounded wait (five minutes of polls, a hundredth of that here: fixtures/short-timers). It
 * is not stopped, backed up or built by us: the run fails as busy (a fleet's later round takes it, not
 * its failure budget). busy-workspace.test.ts has the waits that end in a migration, and the same
 * race: the workspace idle at the preflight's read, busy at the health's (an owner's Start between),
 * here answered so at every read (Coder read once, then that read answered again: 61 reads in seconds).
 */
describe('migrateWorkspace meets a workspace busy through the whole wait', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  // Workspaces whose health reads busy, with the reads answered so.
  const busy = new Set<string>();
  const reads = new Map<string, number>();
  let firstRead: Awaited<ReturnType<WsmigrateActivities['preflightAndAssess']>> | undefined;
  // Called when a run goes on to back up or stop: past the health check, which should have stopped it.
  let onWentOn: ((subject: string) => void) | undefined;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, provisioners: 1 });
    await env.startWorker({
      workflowInterceptorModules: [require.resolve('./fixtures/short-timers')],
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          if (!busy.has(i.workspace)) return acts.preflightAndAssess(i);
          // Coder is read once; the workspace reads the same at every poll after it.
          const r = (firstRead ??= await acts.preflightAndAssess(i));
          reads.set(i.workspace, (reads.get(i.workspace) ?? 0) + 1);
          return { ...r, health: { ...r.health, health: 'busy' as const, reason: `build #${r.preflight.latestBuild.buildNumber + 1} (start) by its owner is running` } };
        },
        backupState: async (i) => {
          onWentOn?.(i.subject);
          return acts.backupState(i);
        },
        stopAndBackUp: async (i) => {
          onWentOn?.(i.subject);
          return acts.stopAndBackUp(i);
        },
      }),
    });
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(env.sim.workspaces()[i].id))?.uid;

  /** The run's failure; a run that goes on to stop or back up the workspace is terminated and fails the test. */
  async function failureOf(i: number, option: 'A' | 'B'): Promise<{ failure: ApplicationFailure; timers: number }> {
    const ws = env.sim.workspaces()[i];
    const subject = `${ws.owner}/${ws.name}`;
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option, approval: { policy: 'none' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    const ended = await Promise.race([
      handle.result().then(
        (r: unknown) => ({ result: r }),
        (e: unknown) => ({ error: e }),
      ),
      new Promise<'went on'>((resolve) => (onWentOn = (s) => s === subject && resolve('went on'))),
    ]).finally(() => (onWentOn = undefined));
    if (ended === 'went on') {
      await handle.terminate('the test gave up on it');
      throw new Error(`${subject}: the run went on to stop or back it up, past the health check of a busy workspace`);
    }
    expect(ended).toEqual({ error: expect.any(WorkflowFailedError) });
    const cause = ((ended as { error: WorkflowFailedError }).error).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    const timers = ((await handle.fetchHistory()).events ?? []).filter((e) => e.timerStartedEventAttributes).length;
    return { failure: cause as ApplicationFailure, timers };
  }

  it("someone else's build running through the whole wait: fails as busy, naming it; nothing stopped, backed up or built by us, its PVC the same", async () => {
    const ws = env.sim.workspaces()[0];
    const uid = pvcUid(0);
    const subject = `${ws.owner}/${ws.name}`;
    const blobsBefore = (await env.blobs.list()).length;
    const before = (await env.coder.workspace(ws.id)).latest_build;
    busy.add(ws.name);
    try {
      const { failure, timers } = await failureOf(0, 'A');
      expect(failure.type).toBe(FailureType.busy);
      expect(failure.message).toBe(`preflight: ${subject} is busy: build #${before.build_number + 1} (start) by its owner is running`);
      // It read the workspace again after each poll of its bounded wait, then gave up.
      expect(timers).toBe(60);
      expect(reads.get(ws.name)).toBe(61);
    } finally {
      busy.delete(ws.name);
    }
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ id: before.id, build_number: before.build_number });
    expect((await env.blobs.list()).length).toBe(blobsBefore);
    expect(pvcUid(0)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
