import { startFleet, fleetResult } from '../../src/client/fleet';
import { startTemplateMigration } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import { FailureType } from '../../src/domain/failure-types';
import { workflowFailureOf } from '../harness/wait';
import { homePvcName } from '../sim/helpers';
import { createMigratedEnv, createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

/**
 * A gate nobody answers never lets a run go on by itself (README: a gate that times out is a
 * decision, a decline): after its time-out, escalated once, the run stops there and says what it
 * left. The template's push and promote gates, a recovery's recover gate and a fleet's
 * fleet-continue gate after its canary; each with a one-second time-out. (migrate-workspace.test.ts
 * has the apply and stop gates, fleet-budget-gate.test.ts the fleet-budget gate.)
 */
describe('the template gates nobody answers', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('template-push (policy all): nothing pushed, the active version unchanged', async () => {
    const original = env.sim.template.activeVersionId;
    const versions = (await env.coder.templateVersions(env.sim.template.id)).length;
    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'all', anyApprover: true, timeout: '1s' } }, { taskQueue: env.taskQueue });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe(FailureType.rejected);
    expect(failure.message).toMatch(/: the template-push gate timed out after \d+s with no decision \(escalated once\): nothing pushed, nothing changed$/);
    expect((await env.coder.templateVersions(env.sim.template.id)).length).toBe(versions);
    expect(env.sim.template.activeVersionId).toBe(original);
  });

  it('template-promote (policy destructive): the version stays pushed but inactive', async () => {
    const original = env.sim.template.activeVersionId;
    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'destructive', anyApprover: true, timeout: '1s' } }, { taskQueue: env.taskQueue });
    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe(FailureType.rejected);
    expect(failure.message).toMatch(/: the template-promote gate timed out after \d+s with no decision \(escalated once\): \S+ stays pushed but inactive \(version [0-9a-f-]{36}\)$/);
    expect(env.sim.template.activeVersionId).toBe(original);
  });
});

describe('a recover gate nobody answers', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 1 }));
  });
  afterAll(async () => env?.close());

  it('builds nothing: declined (exit 3), the workspace stays damaged as it was', async () => {
    const ws = env.sim.workspaces()[0];
    const { startBuildId } = await env.sim.updateAndRestart(ws.id);
    expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
    const damaged = env.sim.stateOf(ws.id);
    const uid = env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    const handle = await startWorkspaceRecovery(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'destructive', anyApprover: true, timeout: '1s' } },
      { taskQueue: env.taskQueue },
    );
    const failure = await workflowFailureOf(handle.result());
    expect(failure.type).toBe(FailureType.rejected);
    expect(failure.message).toMatch(/: the recover gate timed out after \d+s with no decision \(escalated once\); the recovery built nothing: \S+ stays damaged/);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(startBuildId);
    expect(env.sim.stateOf(ws.id)).toBe(damaged);
    expect(env.sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });
});

describe('a fleet-continue gate nobody answers after the canary', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }));
  });
  afterAll(async () => env?.close());

  it('cancels the fleet: the canary migrated, no other workspace started', async () => {
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, option: 'B', canary: 1, concurrency: 1, archiveOldVersions: false, approval: { policy: 'destructive', anyApprover: true, timeout: '1s' } },
      { taskQueue: env.taskQueue },
    );
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('cancelled');
    expect(result.cancelledBy).toMatchObject({ by: 'fleet-continue gate' });
    expect(result.summary).toMatchObject({ migrated: 1 });
    expect(result.moreRemaining).toBe(true);
    const onTarget = [];
    for (const ws of env.sim.workspaces()) if ((await env.coder.workspace(ws.id)).latest_build.template_version_id === targetVersionId) onTarget.push(ws.name);
    expect(onTarget).toHaveLength(1);
  });
});
