import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBlobStore } from '../../src/adapters/open-blob-store';
import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { workspaceStatusQuery } from '../../src/contracts/migrate-workspace';
import { buildPostsOf } from '../harness/coder-requests';
import { waitFor } from '../harness/wait';
import { describeWithS3, startS3TestServer, type S3TestServer } from '../harness/versitygw';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { writeWorkflowBundle } from './fixtures/workflow-bundle-file';

const root = join(__dirname, '..', '..');
/**
 * Every worker here runs one bundle of the workflows made in beforeAll, whose activities wait a tenth of
 * each retry backoff (fixtures/short-retries): the steps these cases exhaust (a backup another worker
 * cannot read, a store down through three attempts) and the build step worker B takes over fail the
 * same way, in the same attempts, without waiting out 5 s, 10 s, …; no worker runs webpack at its start.
 */
let bundlePath = '';
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * A worker in its own process with its own blob settings (a pod with its own disk), ready when it polls. It is
 * SIGKILLed mid-run, so its workflows' next tasks leave its sticky queue after 1 s, not Temporal's 10 s.
 */
function spawnWorker(env: MigrationEnv, blobEnv: Record<string, string>): Promise<ChildProcess> {
  const output: string[] = [];
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'fixtures', 'worker-process.ts')], {
    cwd: root,
    env: { ...process.env, TASK_QUEUE: env.taskQueue, SIM_URL: env.sim.url, SIM_TOKEN: env.sim.token, TEMPORAL_ADDRESS: env.t.address, WORKFLOW_BUNDLE: bundlePath, STICKY_TIMEOUT_MS: '1000', ...blobEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      output.push(b.toString());
      if (b.toString().includes('worker-ready')) resolve(child);
    });
    child.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
    child.once('exit', (code) => reject(new Error(`worker process exited early (${code}): ${output.join('')}`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function failureOf(handle: WorkflowHandle): Promise<{ type?: string; message: string }> {
  try {
    await handle.result();
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause as { type?: string; message?: string } | undefined;
    return { type: cause?.type, message: cause?.message ?? '' };
  }
  throw new Error('expected the workflow to fail');
}

describe('backups every worker can read', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const children: ChildProcess[] = [];
  const dirs: string[] = [];

  const statePuts = () => env.sim.requestLog().filter((r) => r.method === 'PUT' && r.path.includes('/state') && r.status === 204);
  const buildPosts = (workspaceId: string) => buildPostsOf(env.sim, workspaceId).length;
  const startMigration = (i: number, extra: Record<string, unknown> = {}) => {
    const ws = env.sim.workspaces()[i];
    return startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' }, heartbeatTimeout: '3s', ...extra },
      { taskQueue: env.taskQueue },
    );
  };
  /** Worker A takes the backup and queues the build carrying the migrated state; it dies while that build runs (and fails); worker B compensates. */
  async function buildThenLoseTheWorker(i: number, blobEnvA: Record<string, string>, blobEnvB: Record<string, string>) {
    const ws = env.sim.workspaces()[i];
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    const a = await spawnWorker(env, blobEnvA);
    children.push(a);
    const postsBefore = buildPosts(ws.id);
    const handle = await startMigration(i);
    await waitFor(() => buildPosts(ws.id) === postsBefore + 2, 120_000); // option A: our stop, then our build with the migrated state
    await kill(a);
    const b = await spawnWorker(env, blobEnvB);
    children.push(b);
    return { ws, handle, postsAfterBuild: postsBefore + 2 };
  }

  beforeAll(async () => {
    const bundleDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bundle-'));
    dirs.push(bundleDir);
    bundlePath = await writeWorkflowBundle(bundleDir, [require.resolve('./fixtures/short-retries')]);
    env = await createMigrationEnv({ workspaces: 6, buildLatencyMs: 700 });
    const tmp = await env.startWorker({ workflowBundlePath: bundlePath });
    targetVersionId = (await env.migrateTemplate()).versionId;
    await tmp.stop();
  }, 180_000);
  // Each test's workers go with it: a leftover worker on the queue would take the next test's steps.
  afterEach(async () => {
    for (const c of children.splice(0)) await kill(c);
  });
  afterAll(async () => {
    await env?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('with a file store per worker, the other worker cannot read the backup: needs-attention naming store and key, nothing wrong written', async () => {
    const dirA = mkdtempSync(join(tmpdir(), 'wsmigrate-worker-a-'));
    const dirB = mkdtempSync(join(tmpdir(), 'wsmigrate-worker-b-'));
    dirs.push(dirA, dirB);
    const run = await buildThenLoseTheWorker(0, { BLOB_DIR: dirA }, { BLOB_DIR: dirB });
    const failure = await failureOf(run.handle);
    expect(failure.type).toBe('WsmigrateNeedsAttention');
    const status = await run.handle.query<WorkspaceMigrationStatus>(workspaceStatusQuery);
    expect(status.phase).toBe('needs-attention');
    const hex = status.backup!.sha256;
    expect(status.backup!.ref).toBe(`file://${dirA}/sha256/${hex}`);
    expect(failure.message).toContain(`lives in store file://${dirA}, key sha256/${hex}; this store is file://${dirB}`);
    expect(failure.message).toContain(`wsmigrate state restore ${run.ws.owner}/${run.ws.name} --backup file://${dirA}/sha256/${hex} --yes`);
    expect(failure.message).toMatch(/Coder keeps its own copy of the state from before the migration on build #\d+/);
    // Nothing was written after our build: no restore build, no state PUT.
    expect(buildPosts(run.ws.id)).toBe(run.postsAfterBuild);
    expect(statePuts()).toEqual([]);
  }, 240_000);

  describeWithS3('with the S3 store', () => {
    let s3: S3TestServer;
    const bucket = 'wsmigrate-backups';
    const saved = { ...process.env };
    let blobEnv: Record<string, string>;
    let url: string;

    beforeAll(async () => {
      s3 = await startS3TestServer();
      await s3.createBucket(bucket);
      url = `s3://${bucket}/test-${randomUUID().slice(0, 8)}`;
      blobEnv = { ...s3.awsEnv, AWS_EC2_METADATA_DISABLED: 'true', BLOB_URL: url, S3_ENDPOINT: s3.endpoint };
      Object.assign(process.env, s3.awsEnv, { AWS_EC2_METADATA_DISABLED: 'true' });
    }, 60_000);
    afterAll(async () => {
      process.env = saved;
      await s3?.close();
    });
    const store = () => openBlobStore({ url, s3Endpoint: s3.endpoint, s3ForcePathStyle: true });

    it('the other worker restores from the backup worker A took, after A died', async () => {
      const run = await buildThenLoseTheWorker(1, blobEnv, blobEnv);
      const failure = await failureOf(run.handle);
      expect(failure.type).toBe('WsmigrateRolledBack');
      const status = await run.handle.query<WorkspaceMigrationStatus>(workspaceStatusQuery);
      const ref = status.backup!.ref;
      expect(status.phase).toBe('restored');
      expect(ref).toBe(`${url}/sha256/${status.backup!.sha256}`);
      // Worker B's builds: our failed start stopped on its own version (it created nothing here: a stop
      // that changes nothing), then the restore: the prior transition on the prior version, run on the backup A took.
      expect(buildPosts(run.ws.id)).toBe(run.postsAfterBuild + 2);
      const [, stopFirst] = await env.coder.workspaceBuilds(run.ws.id, { limit: 2 });
      expect(stopFirst).toMatchObject({ transition: 'stop', template_version_id: targetVersionId, job: { status: 'succeeded' } });
      const latest = (await env.coder.workspace(run.ws.id)).latest_build;
      expect(latest).toMatchObject({ transition: 'start', template_version_id: env.sim.template.originalVersionId, job: { status: 'succeeded' } });
      const backup = JSON.parse((await store().get(ref)).toString('utf8')) as { lineage: string; resources: { type: string }[] };
      const held = JSON.parse(env.sim.stateOf(run.ws.id)) as { lineage: string; resources: { type: string }[] };
      expect(held.lineage).toBe(backup.lineage);
      expect(held.resources.some((r) => r.type.endsWith('_v1'))).toBe(false);
      expect(statePuts()).toEqual([]);
      // The backup's record says whose it is, for retention; no state content in it.
      const listed = (await store().list()).find((b) => b.sha256 === status.backup!.sha256);
      expect(listed?.records).toEqual([expect.objectContaining({ kind: 'state-backup', workspace: `${run.ws.owner}/${run.ws.name}`, workflowId: run.handle.workflowId })]);
    }, 240_000);

    it('the store down during the backup: the step fails and nothing changes', async () => {
      const worker = await env.startWorker({ blobs: store(), workflowBundlePath: bundlePath });
      const ws = env.sim.workspaces()[2];
      const before = env.sim.stateOf(ws.id);
      const builds = () => env.sim.requestLog().filter((r) => r.method === 'POST' && r.path.endsWith(`/workspaces/${ws.id}/builds`)).length;
      const buildsBefore = builds();
      const putsBefore = statePuts().length;
      await s3.stop();
      try {
        // Option B: no stop build, so a failed backup must leave the workspace exactly as it was.
        const handle = await startMigration(2, { option: 'B' });
        const failure = await failureOf(handle);
        expect(failure.type).toBe('WsmigrateRolledBack');
        expect(failure.message).toMatch(new RegExp(`back up state failed for ${ws.owner}/${ws.name}: cannot store a blob \\(store ${url}, key .*sha256/[0-9a-f]{64}\\): the S3 endpoint ${s3.endpoint} \\(WSMIGRATE_S3_ENDPOINT\\) did not answer`));
        expect(failure.message).toContain('gave up after 3 attempts');
      } finally {
        await s3.start();
        await worker.stop();
      }
      expect(env.sim.stateOf(ws.id)).toBe(before);
      expect(builds()).toBe(buildsBefore);
      expect(statePuts()).toHaveLength(putsBefore);
    }, 240_000);

    it('the store down during the restore: retried, then needs-attention with the ref', async () => {
      const worker = await env.startWorker({ blobs: store(), workflowBundlePath: bundlePath });
      const ws = env.sim.workspaces()[3];
      env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1 } });
      const postsBefore = buildPosts(ws.id);
      const handle = await startMigration(3);
      let backup: WorkspaceMigrationStatus['backup'];
      await waitFor(() => buildPosts(ws.id) === postsBefore + 2, 120_000);
      await s3.stop();
      try {
        const failure = await failureOf(handle);
        expect(failure.type).toBe('WsmigrateNeedsAttention');
        backup = (await handle.query<WorkspaceMigrationStatus>(workspaceStatusQuery)).backup;
        const ref = backup!.ref;
        expect(ref).toBe(`${url}/sha256/${backup!.sha256}`);
        expect(failure.message).toContain(`restore build failed for ${ws.owner}/${ws.name}: cannot read a blob (store ${url}, key `);
        expect(failure.message).toContain('gave up after 3 attempts');
        expect(failure.message).toContain(`--backup ${ref} --yes`);
        const history = await handle.fetchHistory();
        const restoreAttempts = history.events?.filter((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) >= 3);
        expect(restoreAttempts?.length).toBeGreaterThan(0);
      } finally {
        await s3.start();
        await worker.stop();
      }
      // Nothing written after the migration's own build; the backup is intact for the by-hand restore.
      expect(buildPosts(ws.id)).toBe(postsBefore + 2);
      expect(statePuts()).toEqual([]);
      expect(sha256(await store().get(backup!.ref))).toBe(backup!.sha256);
    }, 240_000);
  });
});
