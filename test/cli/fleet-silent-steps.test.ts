import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { startFleet } from '../../src/client/fleet';
import { fleetProgressQuery } from '../../src/contracts/migrate-fleet';
import { runMain } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { writeWorkflowBundle } from '../workflows/fixtures/workflow-bundle-file';

jest.setTimeout(300_000);

const root = join(__dirname, '..', '..');

/** The worker fixture in its own process, killed with SIGKILL mid-step like a crashed pod (as test/workflows/durability.test.ts does). */
function spawnWorker(env: MigrationEnv, bundlePath: string, output: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'test', 'workflows', 'fixtures', 'worker-process.ts')], {
    cwd: root,
    env: { ...process.env, TASK_QUEUE: env.taskQueue, SIM_URL: env.sim.url, SIM_TOKEN: env.sim.token, BLOB_DIR: env.blobDir, TEMPORAL_ADDRESS: env.t.address, WORKFLOW_BUNDLE: bundlePath, STICKY_TIMEOUT_MS: '1000', WORKER_LOG_LEVEL: 'WARN' },
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

/**
 * A worker killed mid-step: Temporal gives the step to another worker only once its heartbeat
 * timeout (2 minutes) has passed, and until then the fleet looked merely "in progress". `fleet
 * status` must name the child, the step and the dead worker once the step has been silent past the
 * first-silence window (75 s for a 2-minute heartbeat timeout, client/run-waits.ts silentAfterMs),
 * reading only the running children; `wsmigrate status` of that child says the same.
 */
describe('fleet status names a running migration whose worker went silent mid-step', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let bundleDir = '';
  let child: ChildProcess | undefined;
  const output: string[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), 'wsmigrate-bundle-'));
    const bundlePath = await writeWorkflowBundle(bundleDir, []);
    env = await createMigrationEnv({ workspaces: 1, provisioners: 1 });
    const tmp = await env.startWorker({ workflowBundlePath: bundlePath });
    targetVersionId = (await env.migrateTemplate()).versionId;
    await tmp.stop();
    child = await spawnWorker(env, bundlePath, output);
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
  });
  afterAll(async () => {
    process.env = saved;
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await env?.close();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  });

  it("says '<owner>/<workspace>: step … on worker … silent for …' with the heartbeat timeout, then what Temporal does", async () => {
    const ws = env.sim.workspaces()[0];
    const childId = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    // Coder's only daemon offline: the child's stop waits in the queue, its step heartbeating as it polls.
    env.sim.setDaemonOffline('sim-provisioner-1', true);
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, targetVersionId, canary: 0, concurrency: 2, pacing: 'off', archiveOldVersions: false, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
    let step = '';
    await waitFor(async () => {
      const d = await env.t.client.workflow.getHandle(childId).describe().catch(() => undefined);
      const a = d?.raw.pendingActivities?.find((p) => p.state === STARTED && p.lastHeartbeatTime);
      step = a?.activityType?.name ?? '';
      return step !== '';
    }, 90_000);
    const exited = new Promise((r) => child?.once('exit', r));
    child?.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();

    // A worker for the workflows' tasks and queries: the killed step stays Temporal's "started" on the dead one.
    const worker = await env.startWorker();
    try {
      expect((await handle.query(fleetProgressQuery)).running.map((r) => r.workflowId)).toEqual([childId]);
      let out = '';
      await waitFor(async () => {
        out = (await runMain('fleet', 'status', handle.workflowId)).out;
        return out.includes('silent for');
      }, 110_000);
      const saidAfterS = (Date.now() - killedAt) / 1000;
      // Said within the 75 s window (plus the polls), not the old 90 s, and before Temporal's own 2 minutes.
      expect(saidAfterS).toBeLessThan(88);
      expect(out).toMatch(
        new RegExp(
          `^ {2}${ws.owner}/${ws.name}: step '${step}' on worker \\S+ silent for 1m\\d\\ds \\(heartbeat timeout 2m00s\\): if that worker is gone, Temporal retries it on another worker once the heartbeat timeout has passed \\(wsmigrate status ${childId.replace(/\//g, '\\/')}\\)$`,
          'm',
        ),
      );
      expect(out).not.toMatch(/more running migration\(s\) not read/);
      const single = (await runMain('status', childId)).out;
      expect(single).toMatch(new RegExp(`step ${step} runs on worker \\S+, not heard from for \\d+ s: if that worker is gone, Temporal gives the step to another worker once its heartbeat timeout \\(2m00s\\) has passed`));
    } finally {
      env.sim.setDaemonOffline('sim-provisioner-1', false);
      await handle.terminate('test over').catch(() => undefined);
      await env.t.client.workflow.getHandle(childId).terminate('test over').catch(() => undefined);
      await worker.stop();
    }
  });
});
