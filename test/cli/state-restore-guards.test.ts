import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { registerStateRestoreCommand } from '../../src/cli/commands/state-restore';
import { EXIT } from '../../src/cli/io';
import { main } from '../../src/cli/main';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { homePvcName } from '../sim/helpers';

/**
 * The by-hand restore (`wsmigrate state restore`) never builds a state with a version that would lose
 * one of its objects (client/restore-backup.ts versionHazards), even when only one entry is at risk: a
 * `_v1` home PVC with a version that declares only its old type destroys the volume. Refused (exit 3)
 * naming the entry, nothing built (state-restore-version.test.ts has whole states both ways). Nor does
 * it build while another build of the workspace is pending, nor call a restore build that did not
 * succeed (canceled) restored.
 */
describe('wsmigrate state restore refuses a backup that does not fit the version, and a workspace being built', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  let blobs: BlobStore;
  let dir: string;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerStateRestoreCommand, 'state', 'restore', ...args);
  const latest = async (id: string) => (await coder.workspace(id)).latest_build;
  /** The whole CLI as a user runs it: main() prints every error the way the binary does, with its exit code. */
  const runMain = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const exitCode = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { out: out.join('\n'), err: err.join('\n'), exitCode };
  };

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5, provisioners: 1 });
    coder = new CoderClient({ url: sim.url, token: sim.token });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-restore-guards-'));
    blobs = createFileBlobStore({ dir });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token, WSMIGRATE_BLOB_DIR: dir });
    delete process.env.WSMIGRATE_ENCRYPTION_KEY;
  });
  afterAll(async () => {
    process.env = saved;
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup whose home PVC alone was renamed to _v1 (by hand), onto the old version that declares only the old type: refused, naming the PVC; nothing built', async () => {
    const ws = sim.workspaces()[0];
    const state = JSON.parse(sim.stateOf(ws.id)) as { serial: number; resources: { type: string; name: string }[] };
    const pvc = state.resources.find((r) => r.type === 'kubernetes_persistent_volume_claim');
    expect(pvc).toBeDefined();
    pvc!.type = 'kubernetes_persistent_volume_claim_v1';
    state.serial += 3;
    const backup = await blobs.put(Buffer.from(JSON.stringify(state)), { kind: 'state-backup' });
    const before = await latest(ws.id);
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;

    const r = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--version', before.template_version_id, '--transition', 'start', '--yes');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toContain(`restore refused: the backup does not fit version ${before.template_version_id}: kubernetes_persistent_volume_claim_v1.${pvc!.name} is migrated, but this version declares the old kubernetes_persistent_volume_claim.${pvc!.name}`);
    expect(r.err).not.toContain('kubernetes_deployment');
    expect((await latest(ws.id)).id).toBe(before.id);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });

  it('a workspace with a build pending: refused, wait until it finishes; nothing built over it', async () => {
    const ws = sim.workspaces()[1];
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, true);
    try {
      const pending = await coder.createWorkspaceBuild(ws.id, { transition: 'stop' });
      const r = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toContain(`restore refused: ${ws.owner}/${ws.name} has build #${pending.build_number} pending; wait until it finishes, then run this again`);
      expect(await latest(ws.id)).toMatchObject({ id: pending.id, job: { status: 'pending' } });
    } finally {
      for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, false);
    }
  });
  it('a restore build canceled before it ran is no restore: exit 1 saying it ended canceled, never "restored"', async () => {
    const ws = sim.workspaces()[0];
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    const changed = JSON.parse(sim.stateOf(ws.id)) as { serial: number };
    changed.serial += 1;
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'start', state: Buffer.from(JSON.stringify(changed)) })).id);
    const before = await latest(ws.id);
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, true);
    try {
      const restoring = runMain('state', 'restore', `${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
      // Its build is queued (no provisioner takes it); someone cancels it.
      let queued: Awaited<ReturnType<typeof latest>> | undefined;
      for (let i = 0; i < 200 && !queued; i++) {
        const now = await latest(ws.id);
        if (now.build_number > before.build_number) queued = now;
        else await new Promise((r) => setTimeout(r, 10));
      }
      expect(queued).toMatchObject({ build_number: before.build_number + 1, job: { status: 'pending' } });
      const cancel = await fetch(`${sim.url}/api/v2/workspacebuilds/${queued!.id}/cancel`, { method: 'PATCH', headers: { 'Coder-Session-Token': sim.token } });
      expect(cancel.status).toBe(200);
      const r = await restoring;
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toContain(`the restore build #${queued!.build_number} of ${ws.owner}/${ws.name} ended canceled`);
      expect(r.out).not.toMatch(/restored/);
      expect(await latest(ws.id)).toMatchObject({ id: queued!.id, job: { status: 'canceled' } });
    } finally {
      for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, false);
    }
  });
  it("a stopped workspace's backup after its owner started it again: refused (a stop carrying it would leave the start's pod outside the state); nothing built; restored once it is stopped", async () => {
    const ws = sim.workspaces()[1];
    // Option A's backup: the state of our stop.
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    // Its owner starts it: the start creates the deployment again.
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'start' })).id);
    const started = await latest(ws.id);
    const refused = await runMain('state', 'restore', `${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(refused.exitCode).toBe(EXIT.denied);
    expect(refused.err).toMatch(new RegExp(`${ws.owner}/${ws.name} was started after the backup was taken \\(build #${started.build_number}, start by .*Nothing was written. Stop the workspace first \\(coder stop ${ws.owner}/${ws.name}`));
    expect((await latest(ws.id)).id).toBe(started.id);
    // Stopped (by its owner, on the state Coder holds): the restore goes on.
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'stop' })).id);
    const ok = await runMain('state', 'restore', `${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(ok.exitCode).toBe(EXIT.ok);
  });
});
