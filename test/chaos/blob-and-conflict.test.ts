/**
 * The blob store failing under a migration, and other people's changes landing mid-migration, on a
 * real dev server and the simulator: a corrupted or deleted backup is caught by its hash and never
 * pushed; a full disk fails the backup before anything changes; someone else's state push or build
 * between our backup and our push is never overwritten and is reported with what to do.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { decide, migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/workflows/migrate-workspace';
import { buildPostsOf, statePutsOf } from '../harness/coder-requests';
import { failureOf, waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function setup(workspaces: number): Promise<{ env: MigrationEnv; targetVersionId: string }> {
  const env = await createMigrationEnv({ workspaces, buildLatencyMs: 40 });
  const tmp = await env.startWorker();
  const targetVersionId = (await env.migrateTemplate()).versionId;
  await tmp.stop();
  return { env, targetVersionId };
}

function inputFor(env: MigrationEnv, targetVersionId: string, i: number, policy: 'none' | 'all'): MigrateWorkspaceInput {
  const ws = env.sim.workspaces()[i];
  return { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId, option: 'B', approval: { policy, approvers: ['sre'] } };
}

const statusOf = async (env: MigrationEnv, id: string) => (await migrationStatus(env.t.client, id)) as WorkspaceMigrationStatus;
async function atGate(env: MigrationEnv, id: string, gateId: string): Promise<WorkspaceMigrationStatus> {
  await waitFor(async () => (await statusOf(env, id)).pendingApproval?.gateId === gateId, 90_000);
  return statusOf(env, id);
}
const approve = (env: MigrationEnv, id: string) => decide(env.t.client, id, 'approve', { approver: 'sre' });

describe('chaos: a backup corrupted or deleted before the restore', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await setup(4));
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  /** Backs up, lets the test damage the backup at the apply gate, pushes, then the pinned start fails: the restore must read the backup. */
  async function restoreWithDamagedBackup(i: number, damage: (path: string) => void) {
    const ws = env.sim.workspaces()[i];
    const pvcBefore = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    // Option A: our stop is the backed-up build, so the start before it still holds Coder's own copy.
    const handle = await startWorkspaceMigration(env.t.client, { ...inputFor(env, targetVersionId, i, 'all'), option: 'A' }, { taskQueue: env.taskQueue });
    await atGate(env, handle.workflowId, 'stop');
    await approve(env, handle.workflowId);
    await atGate(env, handle.workflowId, 'apply');
    await approve(env, handle.workflowId);
    // Pushed; the start gate waits: damage the backup now, then the pinned start fails and the restore needs it.
    const atStart = await atGate(env, handle.workflowId, 'start');
    const backupHex = atStart.backup?.sha256 as string;
    damage(join(env.blobDir, 'sha256', backupHex));
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'node pool exhausted' } });
    await approve(env, handle.workflowId);
    const message = await failureOf(handle.result());
    env.sim.setFaults(undefined);
    const status = await statusOf(env, handle.workflowId);
    const puts = await statePutsOf(env.sim, env.coder, ws.id, { okOnly: true });
    const held = env.sim.stateOf(ws.id);
    return { message, status, puts, held, backupHex, pvcBefore, pvcAfter: env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid };
  }

  it('corrupted: the hash catches it, nothing is pushed back, needs-attention names Coder\'s own copy of the pre-migration state', async () => {
    const r = await restoreWithDamagedBackup(0, (path) => {
      const bytes = readFileSync(path);
      bytes[Math.floor(bytes.length / 2)] ^= 0xff;
      writeFileSync(path, bytes);
    });
    expect(r.status.phase).toBe('needs-attention');
    expect(r.message).toMatch(/restore did not finish/);
    expect(r.message).toMatch(/sha256|corrupt|does not match/i);
    expect(r.message).toMatch(/Coder keeps its own copy of the state from before the migration on build #1 \(coder state pull \S+ --build 1\)/);
    expect(r.message).toContain(`wsmigrate state restore`);
    // Only our push reached Coder: the corrupted bytes were never written, and Coder holds a parseable state.
    expect(r.puts).toHaveLength(1);
    expect(sha(r.held)).not.toBe(r.backupHex);
    expect(() => JSON.parse(r.held)).not.toThrow();
    expect(r.pvcAfter).toBe(r.pvcBefore);
  });

  it('corrupted before the push: the push reads the backup back first, pushes nothing, and the workspace is restored with the reason', async () => {
    const ws = env.sim.workspaces()[2];
    const stateBefore = env.sim.stateOf(ws.id);
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 2, 'all'), { taskQueue: env.taskQueue });
    const atApply = await atGate(env, handle.workflowId, 'apply');
    const path = join(env.blobDir, 'sha256', atApply.backup?.sha256 as string);
    const bytes = readFileSync(path);
    bytes[10] ^= 0x01;
    writeFileSync(path, bytes);
    await approve(env, handle.workflowId);
    const message = await failureOf(handle.result());
    expect(message).toMatch(/rolled back.*push state failed for \S+: .*corrupt.*Nothing was pushed: Coder's own copy, the state of build #1, is unchanged/);
    expect((await statusOf(env, handle.workflowId)).phase).toBe('restored');
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect(env.sim.stateOf(ws.id)).toBe(stateBefore);
  });

  it('deleted: reported after a few attempts (not retried for long), nothing pushed back, Coder\'s copy named', async () => {
    const r = await restoreWithDamagedBackup(1, (path) => unlinkSync(path));
    expect(r.status.phase).toBe('needs-attention');
    expect(r.message).toMatch(/gave up after 3 attempts/);
    expect(r.message).toMatch(/Coder keeps its own copy of the state from before the migration on build #\d+/);
    expect(r.puts).toHaveLength(1);
    expect(r.pvcAfter).toBe(r.pvcBefore);
  }, 120_000);
});

describe('chaos: the blob store\'s disk is full while backing up', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  let tiny: string;
  let mounted = false;
  beforeAll(async () => {
    ({ env, targetVersionId } = await setup(2));
    tiny = mkdtempSync(join(tmpdir(), 'wsmigrate-tiny-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', tiny], { stdio: 'ignore' });
      mounted = true;
    } catch {
      mounted = false; // not root: a store whose writes fail the way a full disk fails them
    }
  });
  afterAll(async () => {
    await env?.close();
    if (mounted) execFileSync('umount', [tiny]);
    rmSync(tiny, { recursive: true, force: true });
  });

  it('fails the backup step with a clear error before anything changes: no build, no state written, no half-written file left', async () => {
    let blobs: BlobStore;
    if (mounted) {
      mkdirSync(join(tiny, 'store'));
      blobs = createFileBlobStore({ dir: join(tiny, 'store') });
      // Fill the disk, leaving less room than a state needs.
      const size = env.sim.stateOf(env.sim.workspaces()[0].id).length;
      writeFileSync(join(tiny, 'filler'), Buffer.alloc(64 * 1024 - Math.floor(size / 2) - 8192));
    } else {
      const inner = createFileBlobStore({ dir: join(tiny, 'store') });
      blobs = { ...inner, put: async () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) };
    }
    await env.startWorker({ blobs });
    const ws = env.sim.workspaces()[0];
    const stateBefore = env.sim.stateOf(ws.id);
    const buildsBefore = buildPostsOf(env.sim, ws.id).length;
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 0, 'none'), { taskQueue: env.taskQueue });
    const message = await failureOf(handle.result());
    expect(message).toMatch(/back up state failed for \S+: the blob store's disk is full \(ENOSPC\); nothing was stored \(gave up after 3 attempts\)/);
    expect(message).toMatch(/Free space/);
    expect(message).toMatch(/rolled back/);
    const status = await statusOf(env, handle.workflowId);
    expect(status.stepsDone).not.toContain('backup');
    expect(env.sim.stateOf(ws.id)).toBe(stateBefore);
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(buildsBefore);
    if (mounted) {
      const left = execFileSync('find', [join(tiny, 'store'), '-name', '.tmp-*']).toString().trim();
      expect(left).toBe('');
    }
  }, 120_000);
});

describe('chaos: someone else\'s change lands between our backup and our push', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await setup(3));
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('a state push by someone else: detected, not overwritten (not even by the restore), reported as a conflict with what to do', async () => {
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 0, 'all'), { taskQueue: env.taskQueue });
    await atGate(env, handle.workflowId, 'apply');
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    const theirs = JSON.parse(env.sim.stateOf(ws.id)) as { serial: number };
    theirs.serial += 7;
    const theirBytes = Buffer.from(JSON.stringify(theirs));
    await env.coder.putWorkspaceBuildState(latest.id, theirBytes);
    await approve(env, handle.workflowId);
    const message = await failureOf(handle.result());
    expect(message).toMatch(/push state: .*changed since the backup.*not overwriting it/);
    expect(message).toMatch(/someone else pushed a state onto build #\d+ after the backup.*not restoring over it/);
    expect(message).toMatch(/coder state pull \S+ --build \d+/);
    expect(message).toMatch(/wsmigrate state restore \S+ --backup \S+ --yes/);
    expect((await statusOf(env, handle.workflowId)).phase).toBe('needs-attention');
    expect(sha(env.sim.stateOf(ws.id))).toBe(sha(theirBytes));
    expect(await statePutsOf(env.sim, env.coder, ws.id, { okOnly: true })).toHaveLength(1); // theirs only
  });

  it('a build by someone else: detected, nothing pushed or restored over it, reported with what to do', async () => {
    const ws = env.sim.workspaces()[1];
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 1, 'all'), { taskQueue: env.taskQueue });
    await atGate(env, handle.workflowId, 'apply');
    const theirs = await env.coder.waitForBuild((await env.coder.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    const stateAfterTheirs = env.sim.stateOf(ws.id);
    await approve(env, handle.workflowId);
    const message = await failureOf(handle.result());
    expect(message).toMatch(new RegExp(`build #${theirs.build_number} ran after the backup.*not pushing over it`));
    expect(message).toMatch(/not restoring over it/);
    expect(message).toMatch(/wsmigrate state restore \S+ --backup \S+ --yes/);
    expect(env.sim.stateOf(ws.id)).toBe(stateAfterTheirs);
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(theirs.id);
  });
});
