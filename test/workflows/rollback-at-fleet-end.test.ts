import { decide } from '../../src/client/approvals';
import { startFleet } from '../../src/client/fleet';
import { organizationStatus, organizationStatusText, startOrganizationMigration } from '../../src/client/organization';
import { fleetProgressQuery, type FleetResult } from '../../src/contracts/migrate-fleet';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';

jest.setTimeout(240_000);

/**
 * Hazard drive, round 2: an admin promotes the old version again (a rollback) after a fleet's last
 * build, before the minute's watch (fleet-lock-watch.ts) reads it. The fleet ended `done` saying
 * nothing, while every workspace it migrated was outdated: its owner's Update builds the old version on
 * the `_v1` state and destroys the PVC. The run now reads the active version as it ends and says so.
 */
describe('a rollback the minute watch has not read yet', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('the fleet that ends after it says the migrated workspaces are at risk and what to promote', async () => {
    const uids = pvcUids(env);
    const targetVersionId = (await env.migrateTemplate()).versionId;
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await handle.query(fleetProgressQuery)).pendingApproval?.gateId === 'fleet-continue', 60_000);
    // The rollback, then the rest: the second workspace's build is refused (the target is not active), the fleet ends.
    await env.coder.promoteTemplateVersion(env.sim.template.id, env.sim.template.originalVersionId);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const result = (await handle.result()) as FleetResult;
    expect(result.phase).toBe('done');
    expect(result.rolledBackAtEnd).toMatch(new RegExp(`active version of template ${env.sim.template.name} is no longer the migrated version ${targetVersionId}.*AT RISK.*Promote ${targetVersionId} again`));
    expect(result.note).toContain(result.rolledBackAtEnd);
    expect(pvcUids(env)).toEqual(uids);
  });
});

describe('a rollback of a template whose canary ended, before the organization gate', () => {
  let env: MigrationEnv;
  let first: string;
  beforeAll(async () => {
    // Sorted before the seeded template: its canary runs first, and is over while the seeded one's runs.
    first = uniqueTaskQueue('aaa');
    env = await createMigrationEnv({ workspaces: 2, moreTemplates: [{ name: first, workspaces: 2 }] });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('the shared gate and the template row say that its canary workspaces are at risk', async () => {
    const uids = pvcUids(env);
    const old = (await env.coder.templateByName('coder', first)).active_version_id;
    const id = `wsmigrate-org/coder/${first}`;
    await startOrganizationMigration(
      env.t.client,
      { organization: 'coder', templates: [first, env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    await waitFor(async () => (await decide(env.t.client, templateWorkflowId('coder', first), 'approve', { approver: 'sre' }).then(() => true, () => false)), 60_000);
    await waitFor(async () => (await organizationStatus(env.t.client, id)).progress?.templates.find((r) => r.template === first)?.state === 'canary-done', 60_000);
    // The first template rolled back while the second is at its template gate.
    const t = await env.coder.templateByName('coder', first);
    await env.coder.promoteTemplateVersion(t.id, old);
    await waitFor(async () => (await decide(env.t.client, templateWorkflowId('coder', env.sim.template.name), 'approve', { approver: 'sre' }).then(() => true, () => false)), 60_000);
    await waitFor(async () => (await organizationStatus(env.t.client, id)).progress?.pendingApproval?.gateId === 'fleet-continue', 60_000);
    const atGate = (await organizationStatus(env.t.client, id)).progress;
    expect(atGate?.pendingApproval?.summary).toMatch(new RegExp(`WARNING: Before this gate, the active version of template ${first} is no longer the migrated version .*AT RISK`));
    expect(organizationStatusText(await organizationStatus(env.t.client, id))).toMatch(new RegExp(`${first} +canary-done .*· Before this gate, the active version`));
    await decide(env.t.client, id, 'reject', { approver: 'sre' });
    await waitFor(async () => (await organizationStatus(env.t.client, id)).phase === 'cancelled', 60_000);
    expect(pvcUids(env)).toEqual(uids);
  });
});
