import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { buildPostsOf, statePutsOf } from '../harness/coder-requests';
import { waitFor } from '../harness/wait';
import { capturedWorkerLog } from '../harness/worker-log';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';
import { writeWorkflowBundle } from './fixtures/workflow-bundle-file';
import { captureProcessOutput } from '../harness/process-output';

const root = join(__dirname, '..', '..');
/**
 * Every worker here (the child processes and their in-process replacements) runs one bundle of the
 * workflows made in beforeAll, whose activities wait a tenth of each retry backoff (fixtures/short-retries):
 * the build step the replacement takes over is retried the same way, without waiting out its 5 s; no
 * worker runs webpack at its start.
 */
let bundlePath = '';

/**
 * Starts the worker fixture in a child process (its own Temporal runtime, TRACE logs) and waits until it polls. It is
 * SIGKILLed mid-run, so its workflows' next tasks leave its sticky queue after 1 s, not Temporal's 10 s.
 */
function spawnWorker(env: MigrationEnv, output: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'fixtures', 'worker-process.ts')], {
    cwd: root,
    env: { ...process.env, TASK_QUEUE: env.taskQueue, SIM_URL: env.sim.url, SIM_TOKEN: env.sim.token, BLOB_DIR: env.blobDir, TEMPORAL_ADDRESS: env.t.address, WORKFLOW_BUNDLE: bundlePath, STICKY_TIMEOUT_MS: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer) => {
      output.push(b.toString());
      if (b.toString().includes('worker-ready')) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
    child.once('exit', (code) => reject(new Error(`worker process exited early (${code}): ${output.join('')}`)));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

type StateJson = { resources: { type: string; instances: { attributes: Record<string, unknown> }[] }[] };

describe('durability and invariants', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  /** What every child worker process printed (stdout and stderr, TRACE logs). */
  const childOutput: string[] = [];
  /** console.* calls and raw stdout/stderr writes of this process (pino and friends write there). */
  const processOutput: string[] = [];
  let bundleDir = '';

  beforeAll(async () => {
    // Builds take ~2s here, so there is time to kill the worker while it waits on one.
    bundleDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bundle-'));
    bundlePath = await writeWorkflowBundle(bundleDir, [require.resolve('./fixtures/short-retries')]);
    env = await createMigrationEnv({ workspaces: 3, buildLatencyMs: 700 });
    const tmp = await env.startWorker({ workflowBundlePath: bundlePath });
    targetVersionId = (await env.migrateTemplate()).versionId;
    await tmp.stop();
    captureProcessOutput(processOutput);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await env?.close();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  });

  const pvcUid = (workspaceId: string) => env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(workspaceId))?.uid;
  const start = (i: number, extra: Record<string, unknown> = {}) => {
    const ws = env.sim.workspaces()[i];
    return startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' }, ...extra },
      { taskQueue: env.taskQueue },
    );
  };
  const attemptsOf = async (handle: Awaited<ReturnType<typeof start>>, activity: string) => {
    const history = await handle.fetchHistory();
    const scheduled = new Map<string, string>();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name) scheduled.set(String(e.eventId), a.activityType.name);
    }
    return (history.events ?? [])
      .filter((e) => e.activityTaskStartedEventAttributes && scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId)) === activity)
      .map((e) => e.activityTaskStartedEventAttributes?.attempt ?? 1);
  };

  it('a worker killed mid-build and replaced finishes the migration with no duplicate build and no state PUT', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = pvcUid(ws.id);
    const child = await spawnWorker(env, childOutput);
    const handle = await start(0, { option: 'A', heartbeatTimeout: '3s' });
    await waitFor(() => buildPostsOf(env.sim, ws.id).length === 2); // the stop, then the start carrying the state: kill while waiting on it
    await kill(child);

    const worker = await env.startWorker({ workflowBundlePath: bundlePath });
    try {
      const result = (await handle.result()) as WorkspaceMigrationResult;
      expect(result.outcome).toBe('migrated');
    } finally {
      await worker.stop();
    }
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(2);
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(pvcUid(ws.id)).toBe(uid);
    expect((await attemptsOf(handle, 'buildWithStateAndCheck')).some((a) => a > 1)).toBe(true); // the build step really was retried on the new worker
  });

  it('a worker killed after its state-carrying build was queued but before it heard back does not build again', async () => {
    const ws = env.sim.workspaces()[1];
    const uid = pvcUid(ws.id);
    const child = await spawnWorker(env, childOutput);
    // Coder queues the build at once but holds the answer: the worker dies not knowing it landed.
    env.sim.setFaults({ replyDelayMs: 30_000, only: [`/workspaces/${ws.id}/builds`] });
    let worker: Awaited<ReturnType<MigrationEnv['startWorker']>> | undefined;
    try {
      const handle = await start(1, { option: 'B', heartbeatTimeout: '3s' });
      await waitFor(() => buildPostsOf(env.sim, ws.id).length === 1);
      await kill(child);
      env.sim.setFaults(undefined);
      worker = await env.startWorker({ workflowBundlePath: bundlePath });
      const result = (await handle.result()) as WorkspaceMigrationResult;
      expect(result.outcome).toBe('migrated');
      expect((await attemptsOf(handle, 'buildWithStateAndCheck')).some((a) => a > 1)).toBe(true);
    } finally {
      env.sim.setFaults(undefined);
      await worker?.stop();
    }
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(1); // option B: only the start carrying the state, found again by the retry
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId, job: { status: 'succeeded' } });
    expect(pvcUid(ws.id)).toBe(uid);
  }, 300_000);

  it('keeps history under 150 events, every payload under 16 KiB, and no secret in history, logs or notifications', async () => {
    const ws = env.sim.workspaces()[2];
    const state = JSON.parse(env.sim.stateOf(ws.id)) as StateJson;
    const agentToken = state.resources.find((r) => r.type === 'coder_agent')?.instances[0].attributes.token as string;
    const sshKey = state.resources.find((r) => r.type === 'coder_workspace_owner')?.instances[0].attributes.ssh_private_key as string;
    const sshKeyBody = sshKey.split('\n')[1];
    expect(agentToken.length).toBeGreaterThan(8);
    expect(sshKeyBody.length).toBeGreaterThan(40);
    const worker = await env.startWorker({ workflowBundlePath: bundlePath });
    const handle = await start(2, { option: 'A' });
    try {
      expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
    } finally {
      await worker.stop();
    }
    const history = await handle.fetchHistory();
    expect(history.events?.length).toBeLessThan(150);

    const payloadSizes: number[] = [];
    const decodedPayloads: string[] = [];
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object' || node instanceof Uint8Array) return;
      const rec = node as Record<string, unknown>;
      if (rec.data instanceof Uint8Array && rec.metadata) {
        payloadSizes.push(rec.data.length);
        decodedPayloads.push(Buffer.from(rec.data).toString('utf8'));
      }
      for (const v of Object.values(rec)) visit(v);
    };
    visit(history);
    expect(payloadSizes.length).toBeGreaterThan(10);
    expect(Math.max(...payloadSizes)).toBeLessThan(16 * 1024);

    // The scan sees this worker: its runtime log has the activities of this very run, and the
    // notifier got this run's migration-done.
    const workerLog = capturedWorkerLog();
    expect(workerLog.some((l) => l.includes('Activity completed') && l.includes(handle.workflowId))).toBe(true);
    const notes = env.notes.filter((n) => n.workflowId === handle.workflowId);
    expect(notes.map((n) => n.kind)).toContain('migration-done');

    const everything = [
      JSON.stringify(history),
      ...decodedPayloads,
      JSON.stringify((await handle.describe()).raw),
      ...workerLog,
      ...processOutput,
      ...childOutput,
      JSON.stringify(env.notes),
    ].join('\n');
    for (const secret of [env.sim.token, agentToken, sshKey, sshKeyBody]) {
      expect(everything.includes(secret)).toBe(false);
      expect(everything.includes(Buffer.from(secret).toString('base64'))).toBe(false);
    }
    // The history does carry what an operator needs: references and hashes.
    expect(decodedPayloads.join('\n')).toMatch(/sha256:[0-9a-f]{64}/);
  });
});
