import { startFleet } from '../../src/client/fleet';
import { migrationStatus } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

describe('migrateFleet started with --any-approver and no approver list', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it("passes the choice to its workspaces, so their gates can be approved (not refused as 'names no approver')", async () => {
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const handle = await startFleet(
      env.t.client,
      {
        organization: 'coder',
        template: env.sim.template.name,
        targetVersionId,
        canary: 0,
        archiveOldVersions: false,
        approval: { policy: 'destructive', approvers: [], anyApprover: true },
        workspaceApproval: { policy: 'destructive' },
      },
      { taskQueue: env.taskQueue },
    );
    let childId = '';
    await waitFor(async () => {
      const progress = (await migrationStatus(env.t.client, handle.workflowId)) as FleetProgress;
      const gate = progress.childApprovals.find((a) => a.gateId === 'apply');
      childId = gate?.workflowId ?? '';
      return childId !== '';
    }, 90_000);
    expect(((await migrationStatus(env.t.client, childId)) as WorkspaceMigrationStatus).pendingApproval?.anyApprover).toBe(true);
    await decide(env.t.client, childId, 'approve', { approver: 'whoever-is-on-call' });
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 1, failed: 0 });
  }, 240_000);
});
