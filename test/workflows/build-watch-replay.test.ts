import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { decide, migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { createWsmigrateWorker, defaultWorkflowsPath } from '../../src/worker/create-worker';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/workflows/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

const root = join(__dirname, '..', '..');
/** The commit before replacement tracking: what workers ran when today's long migrations started. */
const BEFORE_BUILD_WATCH = 'a6b6fff';
/** The last commit whose runs recorded three patch markers (lean history, health preflight, build watch) instead of one. */
const THREE_PATCH_MARKERS = 'a28deea';
/** The last commit whose workflows dropped input keys they did not know instead of refusing them. */
const UNKNOWN_KEYS_DROPPED = '46a525a';

describe('upgrading workers mid-migration', () => {
  let env: MigrationEnv;
  const oldSources: string[] = [];

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4 });
  });
  afterAll(async () => {
    await env?.close();
    for (const dir of oldSources) rmSync(dir, { recursive: true, force: true });
  });

  /** The ids of the patch markers a history recorded, in order. */
  function patchIds(history: Awaited<ReturnType<typeof historyFromCommit>>['history']): string[] {
    return (history.events ?? [])
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
      .map((e) => {
        const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
        return (JSON.parse(Buffer.from(data as Uint8Array).toString()) as { id: string }).id;
      });
  }

  /** Migrates workspace `index` with the workflow code of `commit`, and returns its history. */
  async function historyFromCommit(commit: string, index: number, extraInput: Record<string, unknown> = {}) {
    const oldSrc = mkdtempSync(join(tmpdir(), 'wsmigrate-old-'));
    oldSources.push(oldSrc);
    execSync(`git archive ${commit} src | tar -x -C ${oldSrc}`, { cwd: root });
    symlinkSync(join(root, 'node_modules'), join(oldSrc, 'node_modules'));
    const tmp = await env.startWorker();
    const versionId = (await env.migrateTemplate()).versionId;
    await tmp.stop();
    const old = await createWsmigrateWorker({
      connection: env.t.nativeConnection,
      namespace: env.t.namespace,
      taskQueue: env.taskQueue,
      workflowsPath: join(oldSrc, 'src', 'workflows'),
      activities: createActivities({ coder: env.coder, blobs: env.blobs, notifier: { notify: async () => undefined } }),
    });
    const ws = env.sim.workspaces()[index];
    const input = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, option: 'A' as const, approval: { policy: 'none' as const } };
    // Extra keys go in raw, as `temporal workflow start` sends them (the client refuses them).
    const handle = Object.keys(extraInput).length
      ? await env.t.client.workflow.start('migrateWorkspace', { taskQueue: env.taskQueue, workflowId: `raw-${ws.owner}-${ws.name}`, args: [{ ...input, ...extraInput }] })
      : await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    const result = (await old.runUntil(handle.result())) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    return { history: await handle.fetchHistory(), workflowId: handle.workflowId };
  }

  it("a history written by the previous workflow code replays on today's code (the build watch is patched in)", async () => {
    const { history, workflowId } = await historyFromCommit(BEFORE_BUILD_WATCH, 0);
    expect(JSON.stringify(history)).not.toContain('trackBuildChanges');
    await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, workflowId)).resolves.toBeUndefined();
  }, 180_000);

  it("a history with the three patch markers of earlier code replays on today's code, which records one", async () => {
    const { history, workflowId } = await historyFromCommit(THREE_PATCH_MARKERS, 2);
    expect(patchIds(history)).toEqual(['wsmigrate-lean-history', 'wsmigrate-health-preflight', 'wsmigrate-build-watch']);
    await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, workflowId)).resolves.toBeUndefined();
  }, 180_000);

  it("a run that an older worker started with an input key it did not know (dropped then) replays on today's code, which refuses such keys in new runs", async () => {
    const { history, workflowId } = await historyFromCommit(UNKNOWN_KEYS_DROPPED, 3, { note: 'typed by hand' });
    expect(patchIds(history)).toEqual(['wsmigrate-workspace-v2']);
    await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, workflowId)).resolves.toBeUndefined();
  }, 180_000);

  it("a history written by today's code, with a gate, a compensation and its local steps, replays on today's code", async () => {
    const worker = await env.startWorker();
    try {
      const versionId = (await env.migrateTemplate()).versionId;
      const ws = env.sim.workspaces()[1];
      const handle = await startWorkspaceMigration(
        env.t.client,
        { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, option: 'A', approval: { policy: 'destructive', approvers: ['sre'] } },
        { taskQueue: env.taskQueue },
      );
      await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'apply', 120_000);
      await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre' });
      await expect(handle.result()).rejects.toThrow();
      const history = await handle.fetchHistory();
      expect(patchIds(history)).toEqual(['wsmigrate-workspace-v3', 'wsmigrate-approval-closed']);
      await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, handle.workflowId)).resolves.toBeUndefined();
    } finally {
      await worker.stop();
    }
  }, 180_000);
});
