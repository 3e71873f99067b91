import { WorkflowFailedError } from '@temporalio/client';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { decide, pendingApproval } from '../../src/client/approvals';
import { startTemplateMigration } from '../../src/client/migrations';
import { templateWorkflowId } from '../../src/domain/migration-input';
import { pushTemplateVersion } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

/**
 * The template's `template-promote` gate can wait hours. An admin who pushes and promotes a version of
 * their own meanwhile (a new image, say) must not have it silently undone by the approval: the pushed
 * version was rewritten from the version active before theirs, and that is what was reported and approved.
 */
describe('another version promoted while migrateTemplate waits at template-promote', () => {
  let env: MigrationEnv;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('promotes nothing and says whose version is active and what to run', async () => {
    const workflowId = templateWorkflowId('coder', env.sim.template.name);
    const handle = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'destructive', approvers: ['sre'] } }, { taskQueue: env.taskQueue });
    let gate = await pendingApproval(env.t.client, workflowId);
    for (let i = 0; !gate && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 100));
      gate = await pendingApproval(env.t.client, workflowId);
    }
    expect(gate?.gateId).toBe('template-promote');
    const pushedVersionId = gate?.planHash.replace(/^version:/, '');

    const theirs = await pushTemplateVersion(env.sim, K8S_TEMPLATE_MAIN_TF.replace('codercom/enterprise-base:ubuntu', 'codercom/enterprise-base:ubuntu-2026'), { name: 'admin-image', promote: true });
    await decide(env.t.client, workflowId, 'approve', { approver: 'sre' });

    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const message = (err as WorkflowFailedError).cause?.message ?? '';
    expect(message).toContain(`admin-image (${theirs.id}) was promoted after ${env.sim.template.originalVersionId}`);
    expect(message).toContain("Run 'wsmigrate migrate template' again");
    const t = await env.coder.template(env.sim.template.id);
    expect(t.active_version_id).toBe(theirs.id);
    expect(t.active_version_id).not.toBe(pushedVersionId);
  });
});
