import { startFleet } from '../../src/client/fleet';
import { decide } from '../../src/client/approvals';
import { migrationStatus, startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { CoderClient } from '../../src/adapters/coder';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import { failureOf, waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The token (issue 21, C): Coder's Template Admin role reads workspaces but may not start or stop
 * other users' (coderd/rbac/roles.go). The preflight asks Coder (/authcheck) and refuses before
 * anything changes, naming what is missing and who has it; Owner and Organization Admin tokens run.
 */
describe('the preflight asks Coder what the token may do', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let owner: { stop(): Promise<void> };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4 });
    owner = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await owner.stop();
  });
  afterAll(async () => env?.close());

  const asRole = (role: 'template-admin' | 'organization-admin') =>
    env.startWorker({ coder: new CoderClient({ url: env.sim.url, token: env.sim.tokenFor(role), retry: { baseDelayMs: 20, maxDelayMs: 200 } }) });
  const input = (i: number): MigrateWorkspaceInput => {
    const ws = env.sim.workspaces()[i];
    return { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } };
  };
  /** Writes that reached Coder since `from`: the authcheck is a POST, but a question, not a change. */
  const writesSince = (from: number) => env.sim.requestLog().slice(from).filter((r) => r.method !== 'GET' && !r.path.endsWith('/authcheck'));

  it('a Template Admin token: the workspace, template and fleet runs are refused before any change, naming the missing permission and the roles that have it', async () => {
    const worker = await asRole('template-admin');
    try {
      const before = env.sim.requestLog().length;
      const ws = await failureOf((await startWorkspaceMigration(env.t.client, input(0), { taskQueue: env.taskQueue })).result());
      expect(ws).toMatch(/preflight refused for \S+: the worker's token \(CODER_SESSION_TOKEN\) may not start the template's workspaces; stop the template's workspaces \(Coder's \/authcheck answered no\)/);
      expect(ws).toMatch(/Template Admin role cannot start or stop other users' workspaces\. Use the token of an Owner, or of an Organization Admin of/);

      const template = await failureOf((await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result());
      expect(template).toMatch(/preflight refused for template coder\/\S+: the worker's token \(CODER_SESSION_TOKEN\) may not start the template's workspaces; stop the template's workspaces/);

      const fleet = await failureOf(
        (
          await startFleet(
            env.t.client,
            { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, archiveOldVersions: false, approval: { policy: 'none' } },
            { taskQueue: env.taskQueue },
          )
        ).result(),
      );
      expect(fleet).toMatch(/the worker's token \(CODER_SESSION_TOKEN\) may not start the template's workspaces; stop the template's workspaces.*Owner, or of an Organization Admin/);
      expect(writesSince(before)).toEqual([]);
      expect(env.sim.requestLog().slice(before).some((r) => r.path.endsWith('/authcheck'))).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it("a token that loses its rights mid-run (the worker restarted with a Template Admin's at the apply gate): needs attention, naming the backup and the restore to run", async () => {
    const ownerWorker = await env.startWorker();
    const ws = env.sim.workspaces()[2];
    const subject = `${ws.owner}/${ws.name}`;
    const handle = await startWorkspaceMigration(env.t.client, { ...input(2), approval: { policy: 'all', approvers: ['sre'], timeout: '7d' } }, { taskQueue: env.taskQueue });
    const at = async (gate: string) => ((await migrationStatus(env.t.client, handle.workflowId)) as { pendingApproval?: { gateId: string } }).pendingApproval?.gateId === gate;
    await waitFor(() => at('stop'));
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    await waitFor(() => at('apply'));
    const backupRef = ((await migrationStatus(env.t.client, handle.workflowId)) as { backup?: { ref: string } }).backup!.ref;
    await ownerWorker.stop();
    const worker = await asRole('template-admin');
    try {
      await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
      const message = await failureOf(handle.result());
      expect(message).toMatch(/the restore did not finish: .*403 Forbidden, the call needs `start` on the workspace/);
      expect(message).toContain(`Its backup, the state before the migration: ${backupRef}. Once the cause is dealt with and no build runs on ${subject}`);
      expect(message).toContain(`'wsmigrate state restore ${subject} --backup ${backupRef} --yes' puts that state back`);
      expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'stop', job: { status: 'succeeded' } });
    } finally {
      await worker.stop();
    }
  });

  it('an Organization Admin token runs the migration', async () => {
    const worker = await asRole('organization-admin');
    try {
      expect(await (await startWorkspaceMigration(env.t.client, input(1), { taskQueue: env.taskQueue })).result()).toMatchObject({ outcome: 'migrated' });
    } finally {
      await worker.stop();
    }
  });

  it('an Owner token runs the migration', async () => {
    const worker = await env.startWorker();
    try {
      expect(await (await startWorkspaceMigration(env.t.client, input(2), { taskQueue: env.taskQueue })).result()).toMatchObject({ outcome: 'migrated' });
    } finally {
      await worker.stop();
    }
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
