import { controlFleet } from '../../src/client/fleet';
import { organizationStatus, startOrganizationMigration } from '../../src/client/organization';
import type { OrganizationResult } from '../../src/contracts/migrate-organization';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { pvcUids } from './fixtures/pvc-uids';

/** Starts the organization's run over the env's template and returns once it names the template's fleet, which Temporal has not created yet. */
async function startUntilFleetNamed(env: MigrationEnv): Promise<{ id: string; fleetId: string }> {
  const id = `wsmigrate-org/coder/${env.sim.template.name}`;
  await startOrganizationMigration(
    env.t.client,
    { organization: 'coder', templates: [env.sim.template.name], canary: 0, concurrency: 1, archiveOldVersions: false, approval: { policy: 'none' } },
    { taskQueue: env.taskQueue, workflowId: id },
  );
  let fleetId = '';
  await waitFor(async () => {
    fleetId = (await organizationStatus(env.t.client, id)).progress?.templates[0]?.workflowId ?? '';
    return fleetId !== '';
  }, 60_000);
  await expect(env.t.client.workflow.getHandle(fleetId).describe()).rejects.toThrow(/not found/i);
  return { id, fleetId };
}

/**
 * The organization's run names a template's fleet (progress, the row's workflow id) before Temporal has
 * created it. A cancel or pause in that gap was signalled to a workflow that did not exist yet ("not
 * found", logged and dropped): the fleet then migrated its whole template under a run that said
 * 'cancelled'. CI hit the gap once at load; the fixture widens it to two seconds.
 */
describe('migrateOrganization: a control taken while a fleet is being started', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3 });
    await env.startWorker({ workflowInterceptorModules: [require.resolve('./fixtures/slow-fleet-start')] });
  });
  afterAll(async () => env?.close());

  it('a cancel before the fleet exists reaches it once started: the template fleet is cancelled, not run to the end', async () => {
    const uidsBefore = pvcUids(env);
    const { id, fleetId } = await startUntilFleetNamed(env);
    await controlFleet(env.t.client, id, 'cancel', 'sre', 'not today');

    await expect(env.t.client.workflow.getHandle(id).result()).rejects.toThrow();
    const result = (await organizationStatus(env.t.client, id)).result as OrganizationResult;
    expect(result.phase).toBe('cancelled');
    expect(result.templates.map((r) => [r.template, r.state])).toEqual([[env.sim.template.name, 'cancelled']]);
    // The fleet itself took the cancel, with who and why; it did not migrate the template's workspaces.
    const fleet = await env.t.client.workflow.getHandle(fleetId).describe();
    expect(fleet.status.name).toBe('CANCELLED');
    expect(result.summary.migrated).toBe(0);
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});

/**
 * A pause and then a resume, both taken while the organization's run is starting a template's fleet
 * (the cancel is above): they reach the fleet once it exists, in the
 * order they were taken. The other way round (resume, then pause) the fleet would sit paused under an
 * organization's run that says it is running, and the template would never be migrated.
 */
describe('migrateOrganization: a pause and a resume taken while a fleet is being started', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker({ workflowInterceptorModules: [require.resolve('./fixtures/slow-fleet-start')] });
  });
  afterAll(async () => env?.close());

  it('reach the fleet in the order taken: it runs to the end, the workspace migrated', async () => {
    const uidsBefore = pvcUids(env);
    const { id, fleetId } = await startUntilFleetNamed(env);
    await controlFleet(env.t.client, id, 'pause', 'sre', 'a look first');
    await controlFleet(env.t.client, id, 'resume', 'sre', 'looks fine');

    await waitFor(async () => (await organizationStatus(env.t.client, id)).result !== undefined, 90_000);
    const result = (await organizationStatus(env.t.client, id)).result as OrganizationResult;
    expect(result.phase).toBe('done');
    expect(result.summary.migrated).toBe(1);
    expect((await env.t.client.workflow.getHandle(fleetId).describe()).status.name).toBe('COMPLETED');
    expect(pvcUids(env)).toEqual(uidsBefore);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});
