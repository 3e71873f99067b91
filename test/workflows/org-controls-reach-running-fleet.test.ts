import { controlFleet } from '../../src/client/fleet';
import { migrationStatus } from '../../src/client/migrations';
import { organizationStatus, startOrganizationMigration } from '../../src/client/organization';
import type { FleetProgress } from '../../src/contracts/migrate-fleet';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A pause and a resume of an organization's run reach the template fleet running under it, once it
 * has started (org-control-during-fleet-start.test.ts has the controls taken while it starts): the
 * fleet takes the pause, then the resume, with who and why. Held back for good, or passed on as the wrong
 * control, the SRE's pause leaves the fleet starting migrations, or the resume leaves it paused for good.
 */
describe("migrateOrganization: a pause and a resume reach the fleet it is running", () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
    // Already migrated: the run goes straight to the template's fleet.
    await env.migrateTemplate();
  });
  afterAll(async () => env?.close());

  it('the fleet takes the pause, then the resume, by who and why', async () => {
    const id = `wsmigrate-org/coder/${env.sim.template.name}`;
    await startOrganizationMigration(
      env.t.client,
      // Each migration waits at its gate: the fleet runs as long as the test needs it to.
      { organization: 'coder', templates: [env.sim.template.name], canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue, workflowId: id },
    );
    let fleetId = '';
    await waitFor(async () => {
      fleetId = (await organizationStatus(env.t.client, id)).progress?.templates[0]?.workflowId ?? '';
      return fleetId !== '' && (await env.t.client.workflow.getHandle(fleetId).describe().then(() => true, () => false));
    }, 120_000);
    const fleet = async () => (await migrationStatus(env.t.client, fleetId)) as FleetProgress;
    await waitFor(async () => (await fleet().catch(() => undefined)) !== undefined, 30_000);

    // The fleet's own record of the controls it took (its phase says 'awaiting-approval' while its migrations wait at gates).
    const taken = async () => (await fleet()).control.map((c) => [c.action, c.by, c.reason]);
    await controlFleet(env.t.client, id, 'pause', 'sre', 'change freeze');
    await waitFor(async () => (await taken()).length === 1, 30_000);
    expect(await taken()).toEqual([['pause', 'sre', 'change freeze']]);
    await controlFleet(env.t.client, id, 'resume', 'sre', 'freeze over');
    await waitFor(async () => (await taken()).length === 2, 30_000);
    expect(await taken()).toEqual([
      ['pause', 'sre', 'change freeze'],
      ['resume', 'sre', 'freeze over'],
    ]);

    await controlFleet(env.t.client, id, 'cancel', 'sre', 'test over');
    await expect(env.t.client.workflow.getHandle(id).result()).rejects.toThrow();
  }, 240_000);
});
