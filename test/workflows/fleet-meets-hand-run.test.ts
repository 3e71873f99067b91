import { decide } from '../../src/client/approvals';
import { startFleet } from '../../src/client/fleet';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { summaryTable } from '../../src/cli/fleet-render';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { waitFor, workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A fleet reaches a workspace whose migration someone started by hand (it waits at its stop gate).
 * One run per workspace: the fleet's child cannot start, and the fleet skips it. Driven from outside
 * first (docs/hazard-drive.md): the fleet ended 'done' with "skipped 1" and no word of which workspace
 * or why, while the hand run still waited at its gate.
 */
describe('a fleet that meets a workspace another run is migrating', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3, buildLatencyMs: 20 }));
  });
  afterAll(async () => env?.close());

  it('names it among the skips, with the run that has it and what to do; the hand run goes on', async () => {
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const hand = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => ((await migrationStatus(env.t.client, hand.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'stop');

    const fleet = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 3, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await fleet.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 2, skipped: 1, failed: 0 });
    expect(result.skips).toEqual([
      {
        workflowId: hand.workflowId,
        subject,
        reason: expect.stringContaining(`skipped: another run was already migrating it when the fleet reached it (${hand.workflowId}: `),
      },
    ]);
    expect(result.skips?.[0]?.reason).toContain(`See 'wsmigrate status ${hand.workflowId}'`);
    const table = summaryTable(result);
    expect(table).toContain('skipped (a person must act first):');
    expect(table).toContain(subject);

    expect((await hand.describe()).status.name).toBe('RUNNING');
    await decide(env.t.client, hand.workflowId, 'reject', { approver: 'sre', comment: 'test over' });
    expect((await workflowFailureOf(hand.result())).type).toBe('WsmigrateRejected');
  }, 180_000);
});
