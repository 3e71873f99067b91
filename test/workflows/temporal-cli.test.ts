import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { temporalCliPath } from '../../src/config/tools';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import type { TemplateMigrationResult, TemplateMigrationStatus } from '../../src/contracts/migrate-template';
import { WsmigrateTemplate } from '../../src/contracts/search-attributes';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * The README's "without our CLI" section, command for command: start each workflow with
 * `temporal workflow start` and plain JSON, read the pending gate with `temporal workflow query`,
 * approve with `temporal workflow update execute` and with `temporal workflow signal`.
 */
describe('driving the workflows with the Temporal CLI only', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  // Asynchronous: the worker runs in this process, and a query or update waits for it to answer.
  const temporal = async (...args: string[]): Promise<string> =>
    (await promisify(execFile)(temporalCliPath(), [...args, '--address', env.t.address, '--namespace', env.t.namespace], { encoding: 'utf8', timeout: 60_000 })).stdout;
  const pendingGate = async (workflowId: string): Promise<{ gateId: string; planHash: string } | undefined> => {
    const out = JSON.parse(await temporal('workflow', 'query', '--workflow-id', workflowId, '--name', 'status', '-o', 'json')) as { queryResult: TemplateMigrationStatus[] };
    return out.queryResult[0].pendingApproval;
  };

  it('migrates a template (approved by update, then by signal) and a workspace, from JSON input', async () => {
    const template = env.sim.template.name;
    const templateId = `wsmigrate-template/coder/${template}`;
    await temporal(
      'workflow', 'start', '--task-queue', env.taskQueue, '--type', 'migrateTemplate', '--workflow-id', templateId,
      '--input', JSON.stringify({ organization: 'coder', template, approval: { policy: 'all', approvers: ['alice'] } }),
      '--search-attribute', `WsmigrateTemplate="${template}"`, '--static-summary', `template coder/${template} → _v1 types`,
    );

    await waitFor(async () => (await pendingGate(templateId))?.gateId === 'template-push');
    const push = (await pendingGate(templateId))!;
    // The signal's JSON sent as the approve update, saying reject: refused, never taken as an approval.
    const update = (name: string, payload: object) => temporal('workflow', 'update', 'execute', '--workflow-id', templateId, '--name', name, '--input', JSON.stringify(payload), '-o', 'json');
    await expect(update('approve', { gateId: push.gateId, planHash: push.planHash, approver: 'alice', decision: 'reject' })).rejects.toThrow(
      /the 'approve' update carries decision 'reject': send the update named for your decision \(--name approve or --name reject\), or leave decision out/,
    );
    // A misspelt field is named, not read as a missing gate.
    await expect(update('reject', { gateid: push.gateId, planHash: push.planHash, approver: 'alice' })).rejects.toThrow(/unknown field 'gateid' \(did you mean gateId\?\): an approval has gateId, planHash, approver/);
    // Not an object at all (a quoted string, an array): said so, not "unknown field '0', '1', …" (hazard drive, round 2).
    const raw = (name: string, input: string) => temporal('workflow', 'update', 'execute', '--workflow-id', templateId, '--name', name, '--input', input, '-o', 'json');
    await expect(raw('approve', '"garbage"')).rejects.toThrow(/approval payload must be a JSON object: .*gateId.*planHash.*approver.* \(got a string\)/);
    await expect(raw('reject', '["x"]')).rejects.toThrow(/approval payload must be a JSON object.*\(got an array\)/);
    expect(await pendingGate(templateId)).toMatchObject({ gateId: 'template-push', planHash: push.planHash });
    const receipt = JSON.parse(
      await temporal('workflow', 'update', 'execute', '--workflow-id', templateId, '--name', 'approve', '--input', JSON.stringify({ gateId: push.gateId, planHash: push.planHash, approver: 'alice' }), '-o', 'json'),
    ) as { result: { decision: string; approver: string } };
    expect(receipt.result).toMatchObject({ decision: 'approve', approver: 'alice' });

    await waitFor(async () => (await pendingGate(templateId))?.gateId === 'template-promote');
    const promote = (await pendingGate(templateId))!;
    await temporal('workflow', 'signal', '--workflow-id', templateId, '--name', 'approval', '--input', JSON.stringify({ gateId: promote.gateId, planHash: promote.planHash, approver: 'alice', decision: 'approve' }));
    const t = (await env.t.client.workflow.getHandle(templateId).result()) as TemplateMigrationResult;
    expect(t.outcome).toBe('promoted');
    expect(await temporal('workflow', 'result', '--workflow-id', templateId)).toContain(t.versionId);

    // A workspace started with no search attribute at all: the workflow tags itself.
    const ws = env.sim.workspaces()[0];
    const wsId = `wsmigrate/${template}/${ws.owner}/${ws.name}`;
    await temporal(
      'workflow', 'start', '--task-queue', env.taskQueue, '--type', 'migrateWorkspace', '--workflow-id', wsId,
      '--input', JSON.stringify({ owner: ws.owner, workspace: ws.name, template, targetVersionId: t.versionId, option: 'A', approval: { policy: 'none' } }),
    );
    const handle = env.t.client.workflow.getHandle(wsId);
    expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
    expect((await handle.describe()).typedSearchAttributes.get(WsmigrateTemplate)).toBe(template);
  });
});
