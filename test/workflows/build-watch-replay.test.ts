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

describe('upgrading workers mid-migration', () => {
  let env: MigrationEnv;
  let oldSrc: string;

  beforeAll(async () => {
    oldSrc = mkdtempSync(join(tmpdir(), 'wsmigrate-old-'));
    execSync(`git archive ${BEFORE_BUILD_WATCH} src | tar -x -C ${oldSrc}`, { cwd: root });
    symlinkSync(join(root, 'node_modules'), join(oldSrc, 'node_modules'));
    env = await createMigrationEnv({ workspaces: 2 });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(oldSrc, { recursive: true, force: true });
  });

  it("a history written by the previous workflow code replays on today's code (the build watch is patched in)", async () => {
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
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, option: 'A', approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await old.runUntil(handle.result())) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const history = await handle.fetchHistory();
    expect(JSON.stringify(history)).not.toContain('trackBuildChanges');
    await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, handle.workflowId)).resolves.toBeUndefined();
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
      await expect(Worker.runReplayHistory({ workflowsPath: defaultWorkflowsPath() }, history, handle.workflowId)).resolves.toBeUndefined();
    } finally {
      await worker.stop();
    }
  }, 180_000);
});
