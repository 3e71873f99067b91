/**
 * The blob store failing under a migration, and other people's changes landing mid-migration, on a
 * real dev server and the simulator: a corrupted or deleted backup is caught by its hash and never
 * written; a full disk fails the backup before anything changes; someone else's state push or build
 * between our backup and our build is never overwritten: the run backs up again and starts over.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { buildPostsOf, statePutsOf } from '../harness/coder-requests';
import { failureOf, waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

/** Each activity retry waits a tenth of the production backoff; the attempts are the same. */
const SHORT_RETRIES = require.resolve('../workflows/fixtures/short-retries');

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
    // Retries wait a tenth of the production backoff (fixtures/short-retries): the deleted backup's three attempts take ~1.5 s, not 15.
    await env.startWorker({ workflowInterceptorModules: [SHORT_RETRIES] });
  });
  afterAll(async () => env?.close());

  /** Backs up, lets the test damage the backup once the migrated build is under way, then that build fails: the restore must read the backup. */
  async function restoreWithDamagedBackup(i: number, damage: (path: string) => void) {
    const ws = env.sim.workspaces()[i];
    const pvcBefore = env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid;
    // Option A: our stop is the backed-up build; the migrated build goes on top of it and leaves it as it was.
    const handle = await startWorkspaceMigration(env.t.client, { ...inputFor(env, targetVersionId, i, 'all'), option: 'A' }, { taskQueue: env.taskQueue });
    await atGate(env, handle.workflowId, 'stop');
    await approve(env, handle.workflowId);
    const atApply = await atGate(env, handle.workflowId, 'apply');
    const backupHex = atApply.backup?.sha256 as string;
    const backupBuild = (await env.coder.workspace(ws.id)).latest_build.build_number;
    env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', times: 1, message: 'node pool exhausted' } });
    await approve(env, handle.workflowId);
    // The build step reads the backup back before it writes; damage it once our build exists.
    await waitFor(async () => (await env.coder.workspace(ws.id)).latest_build.build_number > backupBuild);
    damage(join(env.blobDir, 'sha256', backupHex));
    const message = await failureOf(handle.result());
    env.sim.setFaults(undefined);
    const status = await statusOf(env, handle.workflowId);
    const posts = buildPostsOf(env.sim, ws.id).length;
    const puts = await statePutsOf(env.sim, env.coder, ws.id, { okOnly: true });
    const held = env.sim.stateOf(ws.id);
    return { message, status, puts, posts, held, backupHex, backupBuild, pvcBefore, pvcAfter: env.sim.cluster.objects().find((o) => o.kind === 'PersistentVolumeClaim' && o.name.includes(ws.id))?.uid };
  }

  it("corrupted: the hash catches it, nothing is written back, needs-attention names Coder's own copy of the pre-migration state", async () => {
    const r = await restoreWithDamagedBackup(0, (path) => {
      const bytes = readFileSync(path);
      bytes[Math.floor(bytes.length / 2)] ^= 0xff;
      writeFileSync(path, bytes);
    });
    expect(r.status.phase).toBe('needs-attention');
    expect(r.message).toMatch(/restore did not finish/);
    expect(r.message).toMatch(/sha256|corrupt|does not match/i);
    // The migrated state went into a build of its own: the backed-up build still holds the old state in Coder.
    expect(r.message).toMatch(new RegExp(`Coder keeps its own copy of the state from before the migration on build #${r.backupBuild} \\(coder state pull \\S+ --build ${r.backupBuild}\\)`));
    expect(r.message).toContain(`wsmigrate state restore`);
    expect(r.puts).toEqual([]);
    expect(r.posts).toBe(2); // our stop and our migrated build: no restore build with corrupted bytes
    expect(() => JSON.parse(r.held)).not.toThrow();
    expect(r.pvcAfter).toBe(r.pvcBefore);
  });

  it('corrupted before our build: the build step reads the backup back first, builds nothing, and the workspace is restored with the reason', async () => {
    const ws = env.sim.workspaces()[2];
    const stateBefore = env.sim.stateOf(ws.id);
    const postsBefore = buildPostsOf(env.sim, ws.id).length;
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 2, 'all'), { taskQueue: env.taskQueue });
    const atApply = await atGate(env, handle.workflowId, 'apply');
    const path = join(env.blobDir, 'sha256', atApply.backup?.sha256 as string);
    const bytes = readFileSync(path);
    bytes[10] ^= 0x01;
    writeFileSync(path, bytes);
    await approve(env, handle.workflowId);
    const message = await failureOf(handle.result());
    expect(message).toMatch(/rolled back.*migrated-state build failed for \S+: .*corrupt.*Nothing was written to Coder: build #1 is unchanged/);
    expect((await statusOf(env, handle.workflowId)).phase).toBe('restored');
    expect(buildPostsOf(env.sim, ws.id)).toHaveLength(postsBefore);
    expect(env.sim.stateOf(ws.id)).toBe(stateBefore);
  });

  it('deleted: reported after a few attempts (not retried for long), nothing pushed back, Coder\'s copy named', async () => {
    const r = await restoreWithDamagedBackup(1, (path) => unlinkSync(path));
    expect(r.status.phase).toBe('needs-attention');
    expect(r.message).toMatch(/gave up after 3 attempts/);
    expect(r.message).toMatch(/Coder keeps its own copy of the state from before the migration on build #\d+/);
    expect(r.puts).toEqual([]);
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
    await env.startWorker({ blobs, workflowInterceptorModules: [SHORT_RETRIES] });
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

describe("chaos: someone else's change lands between our backup and our build", () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await setup(3));
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('a state push by someone else: not written over; the run backs up their state and starts over', async () => {
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 0, 'all'), { taskQueue: env.taskQueue });
    const first = await atGate(env, handle.workflowId, 'apply');
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    const theirs = JSON.parse(env.sim.stateOf(ws.id)) as { serial: number };
    theirs.serial += 7;
    const theirBytes = Buffer.from(JSON.stringify(theirs));
    await env.coder.putWorkspaceBuildState(latest.id, theirBytes);
    await approve(env, handle.workflowId);
    // Round 2: a fresh backup, of their bytes, and the gate asked again.
    await waitFor(async () => (await statusOf(env, handle.workflowId)).restarts === 1 && (await statusOf(env, handle.workflowId)).pendingApproval?.gateId === 'apply', 90_000);
    const second = await statusOf(env, handle.workflowId);
    expect(second.backup?.sha256).toBe(sha(theirBytes));
    expect(second.backup?.sha256).not.toBe(first.backup?.sha256);
    await approve(env, handle.workflowId);
    expect(await handle.result()).toMatchObject({ outcome: 'migrated' });
    const ours = (await env.coder.workspace(ws.id)).latest_build;
    expect(ours).toMatchObject({ build_number: latest.build_number + 1, template_version_id: targetVersionId });
    expect(JSON.parse(env.sim.stateOf(ws.id)).serial).toBeGreaterThan(theirs.serial);
    expect(await statePutsOf(env.sim, env.coder, ws.id, { okOnly: true })).toHaveLength(1); // theirs only
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });

  it('a build by someone else: not built over; the run reads the workspace again (now stopped) and migrates it as it is', async () => {
    const ws = env.sim.workspaces()[1];
    const handle = await startWorkspaceMigration(env.t.client, inputFor(env, targetVersionId, 1, 'all'), { taskQueue: env.taskQueue });
    await atGate(env, handle.workflowId, 'apply');
    const theirs = await env.coder.waitForBuild((await env.coder.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    await approve(env, handle.workflowId);
    await waitFor(async () => (await statusOf(env, handle.workflowId)).restarts === 1 && (await statusOf(env, handle.workflowId)).pendingApproval?.gateId === 'apply', 90_000);
    await approve(env, handle.workflowId);
    expect(await handle.result()).toMatchObject({ outcome: 'migrated' });
    // Theirs stands in the history; ours is the next build: a stop on the new version, since they stopped it.
    const builds = await env.coder.workspaceBuilds(ws.id, { limit: 2 });
    expect(builds[1].id).toBe(theirs.id);
    expect(builds[0]).toMatchObject({ build_number: theirs.build_number + 1, transition: 'stop', template_version_id: targetVersionId, job: { status: 'succeeded' } });
    expect(await statePutsOf(env.sim, env.coder, ws.id)).toEqual([]);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  });
});
