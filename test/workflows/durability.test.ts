import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { startWorkspaceMigration } from '../../src/client/migrations';
import type { WorkspaceMigrationResult } from '../../src/workflows/migrate-workspace';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

const root = join(__dirname, '..', '..');

/** Starts the worker fixture in a child process (its own Temporal runtime, INFO logs) and waits until it polls. */
function spawnWorker(env: MigrationEnv, output: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'fixtures', 'worker-process.ts')], {
    cwd: root,
    env: { ...process.env, TASK_QUEUE: env.taskQueue, SIM_URL: env.sim.url, SIM_TOKEN: env.sim.token, BLOB_DIR: env.blobDir, TEMPORAL_ADDRESS: env.t.address },
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


describe('durability and invariants', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const childOutput: string[] = [];
  const consoleLines: string[] = [];

  beforeAll(async () => {
    // Builds take ~2s here, so there is time to kill the worker while it waits on one.
    env = await createMigrationEnv({ workspaces: 3, buildLatencyMs: 700 });
    const tmp = await env.startWorker();
    targetVersionId = (await env.migrateTemplate()).versionId;
    await tmp.stop();
    for (const m of ['log', 'info', 'warn', 'error'] as const) {
      jest.spyOn(console, m).mockImplementation((...args: unknown[]) => void consoleLines.push(args.map(String).join(' ')));
    }
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await env?.close();
  });

  it('a worker killed mid-build and replaced finishes the migration with no duplicate build and no duplicate push', async () => {
    const ws = env.sim.workspaces()[0];
    const uid = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    const child = await spawnWorker(env, childOutput);
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' }, heartbeatTimeout: '3s' },
      { taskQueue: env.taskQueue },
    );
    const buildPosts = () => env.sim.requestLog().filter((r) => r.method === 'POST' && r.path.endsWith(`/workspaces/${ws.id}/builds`) && r.status === 201);
    await waitFor(() => buildPosts().length === 2); // the stop, then the pinned start: kill while waiting on the start
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    await env.startWorker();
    const result = (await handle.result()) as WorkspaceMigrationResult;
    expect(result.outcome).toBe('migrated');
    expect(buildPosts()).toHaveLength(2);
    const puts = env.sim.requestLog().filter((r) => r.method === 'PUT' && r.status === 204);
    expect(puts).toHaveLength(1);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: targetVersionId });
    expect(env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid).toBe(uid);
    const history = await handle.fetchHistory();
    const retried = history.events?.filter((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1);
    expect(retried?.length).toBeGreaterThan(0); // the start step really was retried on the new worker
  });

  it('keeps history under 150 events, every payload under 16 KiB, and no secret in history or logs', async () => {
    const ws = env.sim.workspaces()[1];
    const state = JSON.parse(env.sim.stateOf(ws.id)) as { resources: { type: string; instances: { attributes: Record<string, unknown> }[] }[] };
    const agentToken = state.resources.find((r) => r.type === 'coder_agent')?.instances[0].attributes.token as string;
    const sshKey = state.resources.find((r) => r.type === 'coder_workspace_owner')?.instances[0].attributes.ssh_private_key as string;
    expect(agentToken?.length).toBeGreaterThan(8);
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'A', approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');
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

    const everything = [
      JSON.stringify(history),
      ...decodedPayloads,
      childOutput.join(''),
      consoleLines.join('\n'),
    ].join('\n');
    for (const secret of [env.sim.token, agentToken, sshKey].filter(Boolean)) {
      expect(everything.includes(secret)).toBe(false);
      expect(everything.includes(Buffer.from(secret).toString('base64'))).toBe(false);
    }
    // The history does carry what an operator needs: references and hashes.
    expect(decodedPayloads.join('\n')).toMatch(/sha256:[0-9a-f]{64}/);
    expect(childOutput.join('')).toMatch(/migration-done|approval|worker-ready/);
  });
});
