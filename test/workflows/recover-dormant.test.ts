import { pendingApproval } from '../../src/client/approvals';
import { startWorkspaceMigration } from '../../src/client/migrations';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import { api, startBuild } from '../sim/helpers';
import { workflowFailureOf } from '../harness/wait';
import { createMigratedEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

/**
 * A damaged workspace (a user's Update onto the guarded version forgot its PVC) that is dormant:
 * Coder lets nobody start it (coderd/rbac/roles.go, workspace_dormant), so a recovery, which is a
 * start, cannot run. It must be refused before anything, with what to do, and never put to a person
 * as a plan to approve, nor end as needs-attention blaming the token after the approval.
 */
describe('recovering a damaged, dormant workspace', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 2 }));
  });
  afterAll(async () => env?.close());

  async function damageAndPutToSleep(i: number) {
    const ws = env.sim.workspaces()[i]!;
    const update = await startBuild(env.sim, ws.id, { transition: 'start', template_version_id: targetVersionId });
    expect(update.job.status).toBe('failed');
    expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    return ws;
  }

  /** The run's end, or the gate it asks at (which it must not). */
  async function endOrGate(workflowId: string, result: Promise<unknown>): Promise<string> {
    const ended = workflowFailureOf(result).then((e) => e.message);
    for (;;) {
      const done = await Promise.race([ended, new Promise<undefined>((r) => setTimeout(() => r(undefined), 250))]);
      if (done !== undefined) return done;
      const gate = await pendingApproval(env.t.client, workflowId).catch(() => undefined);
      if (gate) return `asked at gate ${gate.gateId}: ${gate.summary}`;
    }
  }

  it.each([
    ['wsmigrate recover', 0],
    ['a migration that finds it damaged', 1],
  ])('%s: refused before any backup or gate, saying to make it active', async (how, i) => {
    const ws = await damageAndPutToSleep(i);
    const input = { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: how === 'wsmigrate recover' ? ('all' as const) : ('none' as const), approvers: ['sre'] } };
    const handle = how === 'wsmigrate recover' ? await startWorkspaceRecovery(env.t.client, input, { taskQueue: env.taskQueue }) : await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue });
    const before = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const why = await endOrGate(handle.workflowId, handle.result());
    expect(why).toMatch(/^recovery refused for .*: it is damaged \(.*forgotten.*\) and dormant since .*, and Coder lets nobody start a dormant workspace/);
    expect(why).toContain(`PUT /api/v2/workspaces/${ws.id}/dormant {"dormant": false}`);
    expect((await env.coder.workspace(ws.id)).latest_build.build_number).toBe(before);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
