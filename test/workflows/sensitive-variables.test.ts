import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import type { TemplateMigrationResult } from '../../src/contracts/migrate-template';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { templateVariablesFile } from '../../src/adapters/template-variables-file';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim';
import { failureOf } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(240_000);

const SENSITIVE_NAMESPACE = K8S_TEMPLATE_MAIN_TF.replace(
  'description = "The Kubernetes namespace that holds the workspaces."',
  'description = "The Kubernetes namespace that holds the workspaces."\n  sensitive   = true',
);

/**
 * A template whose namespace variable is sensitive, pushed with namespace=team-s: Coder hands the
 * value back as '*redacted*', so wsmigrate cannot carry it from Coder. Without a value given to the
 * worker the migration is refused before anything is pushed; with one (WSMIGRATE_TEMPLATE_VARIABLES)
 * the migrated version builds in team-s and every claim is kept. The value never reaches a history.
 */
describe('a template with a sensitive variable', () => {
  let env: MigrationEnv;
  let dir: string;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, templateFiles: [{ name: 'main.tf', content: SENSITIVE_NAMESPACE }], templateVariables: [{ name: 'namespace', value: 'team-s' }] });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-sensitive-'));
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = () => startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
  const versions = async () => (await env.coder.templateVersions(env.sim.template.id)).length;

  it('is refused before the push without the value, naming the variable and where to give it; with it, migrated in team-s, every claim kept', async () => {
    const ws = env.sim.workspaces()[0]!;
    const uid = env.sim.cluster.pvc('team-s', `coder-${ws.id}-home`)?.uid;
    expect(uid).toBeDefined();

    const bare = await env.startWorker();
    const before = await versions();
    const refused = await failureOf((await start()).result());
    // Refused with the rewrite, before the push gate is asked.
    expect(refused).toContain('rewrite template refused for template coder/');
    expect(refused).toContain('template variable(s) namespace of the active version');
    expect(refused).toContain('WSMIGRATE_TEMPLATE_VARIABLES');
    expect(await versions()).toBe(before);
    await bare.stop();

    // A wrong value is caught before the push too, on a workspace built on the active version.
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ [`coder/${env.sim.template.name}`]: { namespace: 'team-wrong' } }));
    const mistaken = await env.startWorker({ templateVariables: templateVariablesFile(wrong) });
    const caught = await failureOf((await start()).result());
    expect(caught).toContain('rewrite template refused for template coder/');
    expect(caught).toContain('would give kubernetes_persistent_volume_claim_v1.home another namespace (computed from a sensitive variable) than');
    expect(caught).toContain('Nothing was pushed');
    expect(caught).not.toContain('team-wrong');
    expect(caught).not.toContain('team-s');
    expect(await versions()).toBe(before);
    await mistaken.stop();

    const file = join(dir, 'variables.json');
    writeFileSync(file, JSON.stringify({ [`coder/${env.sim.template.name}`]: { namespace: 'team-s' } }));
    const good = await env.startWorker({ templateVariables: templateVariablesFile(file) });
    const handle = await start();
    const template = (await handle.result()) as TemplateMigrationResult;
    expect(template.outcome).toBe('promoted');
    const result = (await (
      await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: template.versionId, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })
    ).result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(env.sim.cluster.pvc('team-s', `coder-${ws.id}-home`)?.uid).toBe(uid);
    expect(env.sim.cluster.pvc('coder', `coder-${ws.id}-home`)).toBeUndefined();
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    const history = JSON.stringify((await handle.fetchHistory()).events);
    expect(history).not.toContain('team-s');
    await good.stop();
  });

  it("a worker given another value than the template was pushed with refuses each workspace before anything stops: its claims' namespace would change", async () => {
    const ws = env.sim.workspaces()[1]!;
    const uid = env.sim.cluster.pvc('team-s', `coder-${ws.id}-home`)?.uid;
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ [`coder/${env.sim.template.name}`]: { namespace: 'team-typo' } }));
    await env.startWorker({ templateVariables: templateVariablesFile(typo) });
    const before = (await env.coder.workspace(ws.id)).latest_build.build_number;
    const refused = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: (await env.coder.templateByName('coder', env.sim.template.name)).active_version_id, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(refused).toContain('would give kubernetes_persistent_volume_claim_v1.home another namespace (computed from a sensitive variable) than build #');
    expect(refused).toContain("the migration's build would replace it and its data with it");
    expect(refused).not.toContain('team-typo');
    expect(refused).not.toContain('team-s');
    expect((await env.coder.workspace(ws.id)).latest_build.build_number).toBe(before);
    expect(env.sim.cluster.pvc('team-s', `coder-${ws.id}-home`)?.uid).toBe(uid);
  });
});
