import { fleetResult, startFleet } from '../../src/client/fleet';
import { isWrite } from '../harness/coder-requests';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * A dry-run fleet given no --version dry-runs the template's migration, which pushes nothing: there
 * is no version to dry-run the workspaces against, so it starts none of them and says how to (pass
 * the id of a pushed _v1 version). It never goes on to its workspaces without a target.
 */
describe('a dry-run fleet without --version', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('dry-runs the template only: no workspace started, nothing written, the note says what to pass', async () => {
    const requests = env.sim.requestLog().length;
    const handle = await startFleet(env.t.client, { organization: 'coder', template: env.sim.template.name, dryRun: true, canary: 0, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    const result = await fleetResult(env.t.client, handle.workflowId);
    expect(result.phase).toBe('done');
    expect(result.targetVersionId).toBeUndefined();
    expect(result.note).toMatch(/^template dry run: the rewritten version was not pushed, so the workspaces cannot be dry-run against it \(pass targetVersionId of a pushed _v1 version\)\. \d+ reference\(s\) would be renamed\.$/);
    expect(result.summary).toMatchObject({ migrated: 0, failed: 0, dryRun: 0 });
    expect(result.failures).toEqual([]);
    expect(env.sim.requestLog().slice(requests).filter(isWrite)).toEqual([]);
  });
});
