import { decide } from '../../src/client/approvals';
import { controlFleet } from '../../src/client/fleet';
import { organizationStatus, startOrganizationMigration } from '../../src/client/organization';
import type { OrganizationResult } from '../../src/contracts/migrate-organization';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { isWrite } from '../harness/coder-requests';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * An organization run paused before its first template's fleet starts holds that start; cancelled
 * while so held, it ends cancelled at once, its templates cancelled and nothing started or written.
 */
describe('migrateOrganization: a cancel while paused', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('ends cancelled at once, starting no template', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    const requests = env.sim.requestLog().length;
    const handle = await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    await controlFleet(env.t.client, id, 'pause', 'sre', 'not yet');
    await waitFor(async () => (await organizationStatus(env.t.client, id)).progress?.phase === 'paused', 30_000);
    // Held before the first fleet: none started.
    expect((await organizationStatus(env.t.client, id)).progress?.templates.filter((r) => r.workflowId)).toEqual([]);
    await controlFleet(env.t.client, id, 'cancel', 'sre', 'not today');
    await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 30_000);
    const s = await organizationStatus(env.t.client, id);
    expect(s.phase).toBe('cancelled');
    const result = s.result as OrganizationResult;
    expect(result.templates.map((r) => [r.template, r.state, r.workflowId])).toEqual([[env.sim.template.name, 'cancelled', undefined]]);
    expect(env.sim.requestLog().slice(requests).filter(isWrite)).toEqual([]);
  });
});

/**
 * The organization's fleet-continue gate after the canaries, unanswered (escalated once, then timed
 * out): the run is cancelled and no template goes past its canary.
 */
describe('migrateOrganization: its fleet-continue gate nobody answers', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('is cancelled after the canary; the other workspace is never migrated', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    const handle = await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'], timeout: '5s' } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    // The template's promote gate, answered at once; the organization's own gate is left to time out.
    const templateRun = templateWorkflowId('coder', env.sim.template.name);
    await waitFor(async () => decide(env.t.client, templateRun, 'approve', { approver: 'sre' }).then(() => true, () => false), 60_000);
    await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 90_000);
    const s = await organizationStatus(env.t.client, id);
    expect(s.phase).toBe('cancelled');
    const result = s.result as OrganizationResult;
    expect(result.summary).toMatchObject({ migrated: 1 });
    const target = (await env.coder.template(env.sim.template.id)).active_version_id;
    const onTarget = [];
    for (const ws of env.sim.workspaces()) if ((await env.coder.workspace(ws.id)).latest_build.template_version_id === target) onTarget.push(ws.name);
    expect(onTarget).toHaveLength(1);
  }, 120_000);
});
