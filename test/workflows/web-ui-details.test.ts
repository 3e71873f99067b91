import { execFileSync } from 'node:child_process';
import { startFleet } from '../../src/client/fleet';
import { startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { startWorkspaceRecovery } from '../../src/client/recovery';
import { fleetProgressQuery } from '../../src/contracts/migrate-fleet';
import { temporalCliPath } from '../../src/config/tools';
import { approvalCommands } from '../../src/domain/run-details';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/** What the Web UI reads: the run's static summary, its current details (a query) and each activity's summary. */
describe('the Temporal Web UI view of a workspace migration', () => {
  let env: MigrationEnv;
  let target: { versionId: string; versionName?: string };

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4 });
    await env.startWorker();
    target = await env.migrateTemplate();
  });
  afterAll(async () => env?.close());

  const currentDetails = async (workflowId: string): Promise<string> => {
    const meta = (await env.t.client.workflow.getHandle(workflowId).query('__temporal_workflow_metadata')) as { currentDetails?: string };
    return meta.currentDetails ?? '';
  };

  it('shows a summary, the pending gate with the exact commands that decide it, and a summary per step; the printed signal command works', async () => {
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target.versionId, option: 'B', approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue, versionName: target.versionName },
    );
    const summary = `${ws.owner}/${ws.name} → ${env.sim.template.name} @ ${target.versionName}`;
    expect(await (await handle.describe()).staticSummary()).toBe(summary);

    await waitFor(async () => (await currentDetails(handle.workflowId)).includes('Waiting for approval'));
    const details = await currentDetails(handle.workflowId);
    expect(details).toContain(`### ${summary}`);
    expect(details).toContain('**Phase:** awaiting-approval');
    expect(details).toContain('**Steps done:** preflight → backup → rewrite → verify');
    expect(details).toMatch(/\*\*Guard:\*\* allow — /);
    const planHash = /plan `(sha256:[0-9a-f]{64})`/.exec(details)?.[1] as string;
    expect(planHash).toBeDefined();
    const commands = approvalCommands(handle.workflowId, { gateId: 'apply', planHash });
    expect(details).toContain(commands.cli);
    expect(details).toContain(commands.signalJson);

    // An SRE copies the signal JSON into the Temporal CLI, with their name: the run goes on.
    execFileSync(temporalCliPath(), [
      'workflow', 'signal', '--address', env.t.address, '--namespace', env.t.namespace,
      '--workflow-id', handle.workflowId, '--name', 'approval', '--input', commands.signalJson.replace('<you>', 'alice'),
    ]);
    expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
    const after = await currentDetails(handle.workflowId);
    expect(after).toContain('**Phase:** migrated');
    expect(after).not.toContain('Waiting for approval');

    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      .map((e) => e.userMetadata?.summary?.data)
      .filter((d): d is Uint8Array => d instanceof Uint8Array)
      .map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as string);
    expect(summaries).toEqual(expect.arrayContaining([`start ${ws.owner}/${ws.name} on ${target.versionName} carrying the migrated state, wait for the build; check every PVC/PV kept its uid, no deprecated type left`, `back up the state of ${ws.owner}/${ws.name}`]));
  });

  it('a run cancelled at its gate says cancelled and restored, and no gate is left pending; a failed run says failed and why', async () => {
    const ws = env.sim.workspaces()[1];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target.versionId, approval: { policy: 'all', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    // Waiting at the stop gate is awaiting approval, as at any gate.
    await waitFor(async () => (await currentDetails(handle.workflowId)).includes('Waiting for approval: `stop`'));
    expect(await currentDetails(handle.workflowId)).toContain('**Phase:** awaiting-approval');
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'alice' });
    await waitFor(async () => (await currentDetails(handle.workflowId)).includes('Waiting for approval: `apply`'));
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    const cancelled = await currentDetails(handle.workflowId);
    expect(cancelled).toContain('**Phase:** cancelled (restored: state and transition as before)');
    expect(cancelled).not.toContain('Waiting for approval');
    expect((await handle.describe()).searchAttributes.WsmigratePendingApproval).toEqual(['none']);

    const failed = await startWorkspaceMigration(
      env.t.client,
      { owner: 'nobody', workspace: 'nothing', template: env.sim.template.name, targetVersionId: target.versionId, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await expect(failed.result()).rejects.toThrow();
    const text = await currentDetails(failed.workflowId);
    expect(text).toMatch(/\*\*Phase:\*\* failed \(during preflight\)\n\n\*\*Failed:\*\* `preflight failed for nobody\/nothing: .*404/);
  }, 120_000);

  it('a run whose build failed and that was rolled back says failed, restored (as wsmigrate status), not "failed (during restored)"', async () => {
    const ws = env.sim.workspaces()[2];
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target.versionId, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await expect(handle.result()).rejects.toThrow();
    env.sim.setFaults({});
    const text = await currentDetails(handle.workflowId);
    expect(text).toMatch(/\*\*Phase:\*\* failed, restored\n\n\*\*Failed:\*\* `.*rolled back.*injected: node not ready`/);
  }, 120_000);

  it('a run rejected at its gate says declined and restored once, with no stale "restoring" error beside it', async () => {
    const ws = env.sim.workspaces()[3];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: target.versionId, approval: { policy: 'destructive', approvers: ['alice'] } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => (await currentDetails(handle.workflowId)).includes('Waiting for approval: `apply`'));
    await decide(env.t.client, handle.workflowId, 'reject', { approver: 'alice', comment: 'not tonight' });
    await expect(handle.result()).rejects.toThrow();
    const text = await currentDetails(handle.workflowId);
    expect(text).toMatch(/\*\*Phase:\*\* declined: .*rejected by alice at the apply gate \('not tonight'\).*restored: state and transition as before/);
    expect(text).not.toMatch(/restoring|\*\*Error:\*\*/);
  }, 120_000);

  it('a recovery that failed says failed and why, not the step it was in', async () => {
    const failed = await startWorkspaceRecovery(
      env.t.client,
      { owner: 'nobody', workspace: 'gone', template: env.sim.template.name, targetVersionId: target.versionId, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await expect(failed.result()).rejects.toThrow();
    const text = await currentDetails(failed.workflowId);
    expect(text).toMatch(/\*\*Phase:\*\* failed \(during preflight\)\n\n\*\*Failed:\*\* `.*nobody\/gone.*404/);
  });

  it("a template run's details name the version it promoted and the fleet start that takes it, as wsmigrate status does", async () => {
    const text = await currentDetails(`wsmigrate-template/coder/${env.sim.template.name}`);
    expect(text).toContain('**Phase:** done');
    expect(text).toContain(`#### New version\n\`${target.versionName}\` (\`${target.versionId}\`)\n\nnext: \`wsmigrate fleet start --org coder --template ${env.sim.template.name} --version ${target.versionId}\``);
  });

  it("a fleet's details count its running migrations as soon as they start, not once one ends", async () => {
    // Each migration waits at its first gate, so two stay running while the details are read (of four
    // workspaces, the tests before migrated one and ran one).
    const fleet = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId: target.versionId, canary: 0, concurrency: 2, archiveOldVersions: false, approval: { policy: 'none', approvers: ['alice'] }, workspaceApproval: { policy: 'all' } },
      { taskQueue: env.taskQueue, workflowId: `wsmigrate-fleet/coder/${env.sim.template.name}-details` },
    );
    try {
      await waitFor(async () => (await fleet.query(fleetProgressQuery)).childApprovals.length === 2, 60_000);
      const details = await currentDetails(fleet.workflowId);
      expect(details).toMatch(/^### Fleet coder\/\S+ · awaiting-approval \(rolling\)/);
      const header = details.split('\n').find((l) => l.startsWith('| migrated'))?.split('|').map((c) => c.trim());
      const row = details.split('\n').find((l) => /^\| \d/.test(l))?.split('|').map((c) => c.trim());
      const column = (name: string) => row?.[header?.indexOf(name) ?? -1];
      expect(column('running')).toBe('2');
      expect(column('to go (with running)')).toBe('3');
      expect(column('migrated')).toBe('0');
      // Each migration at its gate says who may approve it: the fleet's approvers, passed to its workspaces.
      expect(details).toMatch(/Migrations waiting for approval: `wsmigrate\/\S+` \(stop; approvers: alice\), `wsmigrate\/\S+` \(stop; approvers: alice\)/);
    } finally {
      await fleet.terminate('test over');
      for (const w of env.sim.workspaces()) await env.t.client.workflow.getHandle(`wsmigrate/${env.sim.template.name}/${w.owner}/${w.name}`).terminate('test over').catch(() => undefined);
    }
  }, 120_000);
});

describe('the Temporal Web UI view of a template run cancelled at its promote gate', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('says cancelled, shows no gate (nor the commands that would approve it), and names the pushed version with the promote that must come first', async () => {
    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'destructive', approvers: ['alice'] } }, { taskQueue: env.taskQueue });
    const details = async () => ((await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails ?? '';
    await waitFor(async () => (await details()).includes('Waiting for approval: `template-promote`'));
    expect(await details()).toMatch(/#### New version\n`\S+` \(`[0-9a-f-]{36}`\)\n\nnot active yet: this run promotes it once its `template-promote` gate is approved/);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    const text = await details();
    expect(text).toContain('**Phase:** cancelled (during awaiting-approval)');
    expect(text).not.toMatch(/Waiting for approval|wsmigrate approve/);
    expect(text).toMatch(/not active \(this run does not promote it\): promote it first, `coder templates versions promote --template \S+ --template-version \S+`, then `wsmigrate fleet start/);
  }, 120_000);
});
