import { createHash } from 'node:crypto';
import { decide } from '../../src/client/approvals';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { api, homePvcName, putState } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(120_000);

/**
 * What the run judged is what it writes over: a build that came between the health check and the
 * backup (the owner's Stop), or another state put onto the backed-up build while the apply gate waits
 * (a `coder state push`), is never written over by a state read before it. The run reads the
 * workspace again and starts over (round 2 of 3), and the workspace ends as its owner left it, migrated.
 */
describe('the workspace changed after the run read it, before its build', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let originalVersionId: string;
  // Called once after the preflight's read of that workspace (a step boundary of the run).
  const afterPreflight = new Map<string, () => Promise<void>>();
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          const r = await acts.preflightAndAssess(i);
          const then = afterPreflight.get(i.workspace);
          afterPreflight.delete(i.workspace);
          await then?.();
          return r;
        },
      }),
    });
    originalVersionId = env.sim.template.activeVersionId;
    targetVersionId = (await env.migrateTemplate()).versionId;
  });
  afterAll(async () => env?.close());

  const statusOf = async (id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;
  const pvcUid = (i: number) => env.sim.cluster.pvc('coder', homePvcName(env.sim.workspaces()[i].id))?.uid;

  it("its owner's Stop between the health check and the backup: the run starts over and leaves it stopped (one stop on the new version), never started again by us", async () => {
    const ws = env.sim.workspaces()[0];
    const uid = pvcUid(0);
    let owners: { id: string; build_number: number } | undefined;
    afterPreflight.set(ws.name, async () => {
      const stop = await api<{ id: string; build_number: number }>(env.sim, 'POST', `/workspaces/${ws.id}/builds`, { token: env.sim.tokenOf(ws.owner), json: { transition: 'stop' } });
      expect(stop.status).toBe(201);
      owners = stop.body;
      await waitFor(async () => (await env.coder.workspaceBuild(stop.body.id)).job.status === 'succeeded', 30_000);
    });
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const status = await statusOf(handle.workflowId);
    expect(status.restarts).toBe(1);
    expect(status.stepsDone).toContain('started over: round 2 of 3');
    // On top of the owner's stop: it stays stopped, now on the new version; nothing of ours before it.
    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 3 });
    expect(builds.map((b) => [b.build_number, b.transition, b.job.status, b.template_version_id])).toEqual([
      [owners!.build_number + 1, 'stop', 'succeeded', targetVersionId],
      [owners!.build_number, 'stop', 'succeeded', originalVersionId],
      [owners!.build_number - 1, 'start', 'succeeded', originalVersionId],
    ]);
    expect(pvcUid(0)).toBe(uid);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('another state put onto the backed-up build while the apply gate waits: nothing is built from the old backup; the run starts over from the state put there and ends migrated', async () => {
    const ws = env.sim.workspaces()[1];
    const uid = pvcUid(1);
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy: 'destructive', approvers: ['sre'], timeout: '7d' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await statusOf(handle.workflowId)).pendingApproval?.gateId === 'apply');
    const first = (await statusOf(handle.workflowId)).backup!;
    const backedUp = (await env.coder.workspace(ws.id)).latest_build;
    // `coder state push` of the same objects with a newer serial, onto the build the run backed up.
    const pushed = JSON.parse((await env.coder.getWorkspaceBuildState(backedUp.id)).toString('utf8')) as { serial: number };
    pushed.serial += 5;
    const pushedText = `${JSON.stringify(pushed, null, 2)}\n`;
    expect((await putState(env.sim, backedUp.id, pushedText)).status).toBe(204);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    // Round 2 backs up what is there now and asks again.
    await waitFor(async () => {
      const s = await statusOf(handle.workflowId);
      return s.pendingApproval?.gateId === 'apply' && s.backup?.sha256 !== first.sha256;
    });
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(result.backup?.sha256).toBe(createHash('sha256').update(pushedText).digest('hex'));
    const status = await statusOf(handle.workflowId);
    expect(status.restarts).toBe(1);
    expect(status.stepsDone).toContain('started over: round 2 of 3');
    // One build of ours, on the backed-up build: the migrated state came from the state put there (its serial).
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest).toMatchObject({ build_number: backedUp.build_number + 1, transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
    expect((JSON.parse((await env.coder.getWorkspaceBuildState(latest.id)).toString('utf8')) as { serial: number }).serial).toBeGreaterThan(pushed.serial);
    expect(pvcUid(1)).toBe(uid);
  });
});
