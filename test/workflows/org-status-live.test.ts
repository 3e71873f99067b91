import { controlFleet } from '../../src/client/fleet';
import { decide } from '../../src/client/approvals';
import { organizationStatus, organizationStatusText, startOrganizationMigration } from '../../src/client/organization';
import { fleetWorkflowId } from '../../src/domain/fleet-input';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { childrenStartedAfterUpdate } from '../harness/history';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

/**
 * `fleet status wsmigrate-org/…` while the organization's run is paused, and while a template's fleet
 * rolls: it must say who paused the organization and give the organization's resume (resuming only the
 * template fleet leaves the next templates held, silently), and count the template fleet running now
 * live, not only its canary.
 */
describe('fleet status of an organization run: its own pause, the running fleet counted live', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('names the organization pause and its resume, then the live counts of the template fleet', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    const name = env.sim.template.name;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [name], canary: 1, concurrency: 1, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    await waitFor(async () => {
      await decide(env.t.client, templateWorkflowId('coder', name), 'approve', { approver: 'sre' }).catch(() => undefined);
      return (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue';
    }, 120_000);

    await controlFleet(env.t.client, id, 'pause', 'sre', 'lunch');
    await decide(env.t.client, id, 'approve', { approver: 'sre' });
    const org = env.t.client.workflow.getHandle(id);
    await waitFor(async () => (await childrenStartedAfterUpdate(org, 'approve')) !== undefined, 60_000);
    const paused = organizationStatusText(await organizationStatus(env.t.client, id));
    expect(paused).toMatch(/paused by sre \(lunch\) since .*: no new migration starts until it is resumed/);
    expect(paused).toContain(`wsmigrate fleet resume ${id} --by <you>`);

    await controlFleet(env.t.client, id, 'resume', 'sre');
    // The template fleet migrates the other two and waits at its archive gate: the organization still says "rolling".
    const fleetId = fleetWorkflowId('coder', name);
    await waitFor(async () => (await organizationStatus(env.t.client, id)).waitingOn?.some((w) => w.kind === 'gate' && w.workflowId === fleetId) ?? false, 120_000);
    const rolling = await organizationStatus(env.t.client, id);
    const row = rolling.progress?.templates.find((r) => r.template === name);
    expect(row?.state).toBe('rolling');
    expect(row?.summary?.migrated).toBe(3);
    expect(organizationStatusText(rolling)).toContain(`${name.padEnd(24)} rolling · 3 migrated, 0 not ok, 3 PVC uids kept`);
    await controlFleet(env.t.client, id, 'cancel', 'sre');
  });
});
