import { startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { spawnCliWorker, workerEnvFor, type CliWorker } from './fixtures/cli-worker';

/** Two `wsmigrate worker` processes on one task queue, sharing one blob directory, as two pods share S3. */
describe('two worker processes on one task queue', () => {
  let env: MigrationEnv;
  const workers: CliWorker[] = [];

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 8, buildLatencyMs: 400 });
    const workerEnv = {
      ...workerEnvFor(env),
      WSMIGRATE_METRICS_PORT: '0',
    };
    workers.push(...(await Promise.all([spawnCliWorker(workerEnv), spawnCliWorker(workerEnv)])));
  }, 240_000);
  afterAll(async () => {
    for (const w of workers) await w.stop('SIGKILL');
    await env?.close();
  });

  it('a batch finishes with activities run by both, and killing one mid-batch loses nothing', async () => {
    const tpl = await startTemplateMigration(env.t.client, { organization: 'coder', template: env.sim.template.name, approval: { policy: 'none' } }, { taskQueue: env.taskQueue });
    const targetVersionId = ((await tpl.result()) as { versionId: string }).versionId;
    const workspaces = env.sim.workspaces();
    const pvcUid = (id: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(id))?.uid;
    const uidsBefore = new Map(workspaces.map((w) => [w.id, pvcUid(w.id)]));
    const handles = await Promise.all(
      workspaces.map((w) =>
        startWorkspaceMigration(
          env.t.client,
          { owner: w.owner, workspace: w.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' }, heartbeatTimeout: '3s' },
          { taskQueue: env.taskQueue },
        ),
      ),
    );
    const buildPosts = () => env.sim.requestLog().filter((r) => r.method === 'POST' && /\/workspaces\/[^/]+\/builds$/.test(r.path) && r.status === 201);
    // Mid-batch: some builds made, most of the batch still to go.
    await waitFor(() => buildPosts().length >= 4, 120_000);
    expect(buildPosts().length).toBeLessThan(2 * workspaces.length);
    // Kill a worker that has run something (under load the other may not have had a task yet), so the
    // survivor must take its migrations over.
    const busyPids = new Set([...(await identitiesIn(handles))].map((id) => id.split('@')[0]));
    const victim = busyPids.has(String(workers[0].child.pid)) ? workers[0] : workers[1];
    await victim.stop('SIGKILL');

    const results = (await Promise.all(handles.map((h) => h.result()))) as WorkspaceMigrationResult[];
    expect(results.map((r) => r.outcome)).toEqual(workspaces.map(() => 'migrated'));

    // Nothing lost, nothing doubled: one stop and one build carrying the migrated state per workspace, no state PUT,
    // every PVC kept, every backup readable from the shared store by the surviving worker's peers.
    for (const w of workspaces) {
      expect({ ws: w.name, builds: buildPosts().filter((r) => r.path.includes(w.id)).length }).toEqual({ ws: w.name, builds: 2 });
      expect(pvcUid(w.id)).toBe(uidsBefore.get(w.id));
    }
    expect(env.sim.requestLog().filter((r) => r.method === 'PUT')).toEqual([]);
    for (const r of results) expect((await env.blobs.get(r.backup!.ref)).length).toBeGreaterThan(0);

    // Both processes ran activities, remote or local (their identities are pid@host).
    const identities = await identitiesIn(handles);
    expect(identities.size).toBe(2);
    expect([...identities].some((id) => id.startsWith(`${workers[0].child.pid}@`))).toBe(true);
    expect([...identities].some((id) => id.startsWith(`${workers[1].child.pid}@`))).toBe(true);
  }, 300_000);
});

/** Which processes ran the migrations' steps so far (identities are pid@host). */
async function identitiesIn(handles: { fetchHistory(): Promise<{ events?: { activityTaskStartedEventAttributes?: { identity?: string | null } | null; workflowTaskCompletedEventAttributes?: { identity?: string | null } | null }[] | null }> }[]): Promise<Set<string>> {
  const identities = new Set<string>();
  for (const h of handles) {
    for (const e of (await h.fetchHistory()).events ?? []) {
      // Quick steps are local activities: they run inside the workflow task of the worker that completes it.
      const id = e.activityTaskStartedEventAttributes?.identity ?? e.workflowTaskCompletedEventAttributes?.identity;
      if (id) identities.add(id);
    }
  }
  return identities;
}
