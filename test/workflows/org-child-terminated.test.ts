import { organizationStatus, organizationStatusText, startOrganizationMigration } from '../../src/client/organization';
import { fleetWorkflowId } from '../../src/domain/fleet-input';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';

jest.setTimeout(240_000);

/**
 * Hazard drive, round 2: `temporal workflow terminate` of one template's fleet under an organization
 * run, while its template step waited at 'template-promote'. The organization went on (right) and its
 * row said only "Terminated", while the template step, abandoned, still waited at its gate for anyone
 * to approve. The row now says what a terminate leaves and where to look.
 */
describe('a template fleet terminated under an organization run', () => {
  let env: MigrationEnv;
  let first: string;
  beforeAll(async () => {
    first = uniqueTaskQueue('aaa');
    env = await createMigrationEnv({ workspaces: 2, moreTemplates: [{ name: first, workspaces: 2 }] });
    await env.startWorker();
  });
  afterAll(async () => {
    await env?.t.client.workflow.getHandle(templateWorkflowId('coder', first)).cancel().catch(() => undefined);
    await env?.close();
  });

  it('its row names what the terminate left: the template step at its gate, and how to run it again', async () => {
    const uids = pvcUids(env);
    const id = `wsmigrate-org/coder/${first}`;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [first, env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    const templateRun = templateWorkflowId('coder', first);
    await waitFor(async () => organizationStatusText(await organizationStatus(env.t.client, id)).includes(`waits for ${templateRun} at 'template-promote'`), 60_000);
    const child = `${fleetWorkflowId('coder', first)}/canary`;
    await env.t.client.workflow.getHandle(child).terminate('hazard drive');
    await waitFor(async () => (await organizationStatus(env.t.client, id)).progress?.templates.find((r) => r.template === first)?.state === 'failed', 60_000);
    const row = (await organizationStatus(env.t.client, id)).progress?.templates.find((r) => r.template === first);
    expect(row?.note).toMatch(new RegExp(`${child} was terminated .*its template step ${templateRun}, if it still waits at a gate, waits on \\(wsmigrate status ${templateRun}: reject it .*wsmigrate fleet start --org coder --template ${first}`));
    await env.t.client.workflow.getHandle(id).terminate('test over');
    expect(pvcUids(env)).toEqual(uids);
  });
});
