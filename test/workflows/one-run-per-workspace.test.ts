import { decide } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * One run per workspace: a migration and a recovery of the same workspace share its workflow id, so
 * neither starts beside the other (two runs would each take a backup and build over the other's
 * build). A second start is refused with what is running and how to look at it; the first goes on.
 */
describe('a second run of a workspace while one is running', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  it("a recovery or another migration of a workspace whose migration waits at its apply gate is refused, naming the run; the first run is untouched", async () => {
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const input: MigrateWorkspaceInput = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', approvers: ['sre'], timeout: '7d' } };
    const handle = await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'apply');
    const builds = (await env.coder.workspace(ws.id)).latest_build.build_number;

    await expect(startWorkspaceRecovery(env.t.client, input, { taskQueue: env.taskQueue })).rejects.toThrow(
      `a migration or recovery of ${subject} is already running (${handle.workflowId}); see 'wsmigrate status ${handle.workflowId}'`,
    );
    await expect(startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue })).rejects.toThrow(
      `a migration of ${subject} is already running (${handle.workflowId}); see 'wsmigrate status ${handle.workflowId}'`,
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await env.coder.workspace(ws.id)).latest_build.build_number).toBe(builds);

    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'sre', comment: 'test over' });
    expect((await workflowFailureOf(handle.result())).type).toBe('WsmigrateRejected');
  });
});
