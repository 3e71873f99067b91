import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus-metrics';
import { unpackTar } from '../../src/sim';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult, WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { failureOf } from '../harness/wait';
import { pushTemplateVersion } from '../sim/helpers';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/** Seed 003: every build wsmigrate triggers is read for replacements, destroys and type-rename deletes. */
describe('replacement tracking in builds wsmigrate triggers', () => {
  let env: MigrationEnv;
  let migratedSource: string;
  const metrics = new PrometheusMetrics({ processMetrics: false });
  const counted = async (name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 3 });
    await env.startWorker({ metrics });
    const versionId = (await env.migrateTemplate()).versionId;
    const version = await env.coder.templateVersion(versionId);
    const files = await unpackTar(await env.coder.downloadFile(version.job.file_id));
    migratedSource = files.find((f) => f.name === 'main.tf')?.content.toString() ?? '';
    expect(migratedSource).toContain('kubernetes_deployment_v1');
  });
  afterAll(async () => env?.close());

  const migrate = async (i: number, targetVersionId: string, option: 'A' | 'B' = 'A') => {
    const ws = env.sim.workspaces()[i];
    return startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
  };

  it('a start build that replaces the deployment: the migration succeeds, and the replacement is in status, result and a notification', async () => {
    const renamed = migratedSource.replace('name      = "coder-${data.coder_workspace.me.id}"', 'name      = "coder-${data.coder_workspace.me.id}-renamed"');
    expect(renamed).not.toBe(migratedSource);
    const v = await pushTemplateVersion(env.sim, renamed, { promote: true });
    // Option B keeps it running, so the pinned start changes the running deployment in place.
    const handle = await migrate(0, v.id, 'B');
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    const replaced = result.buildChanges?.flatMap((b) => b.changes.map((c) => ({ transition: b.transition, ...c })));
    expect(replaced).toEqual(expect.arrayContaining([expect.objectContaining({ transition: 'start', kind: 'replace', resourceType: 'kubernetes_deployment_v1', protected: false })]));
    const status = await handle.query<WorkspaceMigrationStatus>('status');
    expect(status.buildChanges?.length).toBe(result.buildChanges?.length);
    const note = env.notes.find((n) => n.workflowId === handle.workflowId && n.kind === 'replacements-detected');
    expect(note?.text).toMatch(/replace kubernetes_deployment_v1\.main/);
    expect(await counted('wsmigrate_resource_replacements_total', { template: env.sim.template.name, resource_type: 'kubernetes_deployment_v1' })).toBe(1);
  });

  it('a build that destroys a protected volume fails the workflow as needs-attention, never a success', async () => {
    // A name the preflight cannot compute before the plan (a function it does not read), so only the build shows the replacement;
    // a plain new name is refused before anything stops (test/activities/claim-identity.test.ts).
    const renamed = migratedSource.replace('name      = "coder-${data.coder_workspace.me.id}-home"', 'name      = format("coder-%s-home2", data.coder_workspace.me.id)');
    expect(renamed).not.toBe(migratedSource);
    const v = await pushTemplateVersion(env.sim, renamed, { promote: true });
    const handle = await migrate(1, v.id);
    const message = await failureOf(handle.result());
    expect(message).toMatch(/destroyed protected kubernetes_persistent_volume_claim_v1\.home/);
    const status = await handle.query<WorkspaceMigrationStatus>('status');
    expect(status.phase).toBe('needs-attention');
    // Nothing after that build: no restore of a state whose volume no longer exists.
    expect(status.stepsDone).not.toContain('restore');
    expect(await counted('wsmigrate_damaged_workspaces_total', { reason: 'protected-destroyed' })).toBe(1);
    expect(env.notes.some((n) => n.workflowId === handle.workflowId && n.kind === 'replacements-detected' && /PROTECTED/.test(n.subject))).toBe(true);
  });
});
