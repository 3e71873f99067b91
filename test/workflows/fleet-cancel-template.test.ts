import { WorkflowFailedError } from '@temporalio/client';
import { pendingApproval } from '../../src/client/approvals';
import { controlFleet, fleetStatus, startFleet } from '../../src/client/fleet';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { startOrganizationMigration } from '../../src/client/organization';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

/**
 * `fleet cancel` (or an organization's cancel, which the fleet running now receives) while the
 * fleet's template step waits at its `template-promote` gate: the cancel must reach that step. Before,
 * the fleet took the cancel and went on waiting for its template child, which kept asking for the
 * promotion: anyone approving it promoted a version the operator had cancelled.
 */
describe('a fleet cancelled while its template waits at template-promote', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('cancels the template step: nothing promoted, the fleet ends cancelled and says why', async () => {
    const before = (await env.coder.template(env.sim.template.id)).active_version_id;
    const handle = await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, canary: 1, approval: { policy: 'destructive', approvers: ['sre'] } }, { taskQueue: env.taskQueue });
    const templateId = templateWorkflowId('coder', env.sim.template.name);
    await waitFor(async () => (await pendingApproval(env.t.client, templateId).catch(() => undefined))?.gateId === 'template-promote', 60_000);

    await controlFleet(env.t.client, handle.workflowId, 'cancel', 'sre', 'wrong week');

    const ended = await Promise.race([
      handle.result().then(
        () => 'completed',
        (e: unknown) => (e instanceof WorkflowFailedError ? `${e.cause?.constructor.name}: ${e.cause?.message}` : String(e)),
      ),
      new Promise<string>((r) => setTimeout(() => r('still running 30 s after the cancel'), 30_000)),
    ]);
    expect(ended).toMatch(/^CancelledFailure/);
    const fleet = await fleetStatus(env.t.client, handle.workflowId);
    expect(fleet.phase).toBe('cancelled');
    expect(fleet.result?.cancelledBy).toEqual({ by: 'sre', reason: 'wrong week' });
    expect(fleet.result?.note).toContain(`${templateWorkflowId('coder', env.sim.template.name)} was cancelled too, so nothing more of it was pushed or promoted`);
    const template = await env.t.client.workflow.getHandle(templateId).describe();
    expect(template.status.name).toBe('CANCELLED');
    expect((await env.coder.template(env.sim.template.id)).active_version_id).toBe(before);
    expect(env.sim.workspaces().map((w) => env.sim.stateOf(w.id)).join('\n')).not.toContain('_v1');
  });

  it('an organization cancelled then says cancelling until its template fleet has ended, then cancelled', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    await startOrganizationMigration(env.t.client, { organization: 'coder', templates: [env.sim.template.name], canary: 1, approval: { policy: 'destructive', approvers: ['sre'] } }, { taskQueue: env.taskQueue, workflowId: id });
    const templateId = templateWorkflowId('coder', env.sim.template.name);
    await waitFor(async () => (await pendingApproval(env.t.client, templateId).catch(() => undefined))?.gateId === 'template-promote', 60_000);
    await controlFleet(env.t.client, id, 'cancel', 'sre');
    const handle = env.t.client.workflow.getHandle(id);
    await handle.result().catch(() => undefined);
    const phases: string[] = [];
    for (const e of (await handle.fetchHistory()).events ?? []) {
      const data = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.WsmigratePhase?.data;
      if (data) phases.push(JSON.parse(Buffer.from(data).toString()) as string);
    }
    expect(phases).toEqual(['running', 'cancelling', 'cancelled']);
  });
});
