import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { registerStateRestoreCommand } from '../../src/cli/commands/state-restore';
import { EXIT } from '../../src/cli/io';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';

describe('wsmigrate state restore', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  let blobs: BlobStore;
  let dir: string;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerStateRestoreCommand, 'state', 'restore', ...args);
  const latest = async (id: string) => (await coder.workspace(id)).latest_build;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    coder = new CoderClient({ url: sim.url, token: sim.token });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-restore-'));
    const key = 'ab'.repeat(32);
    blobs = createFileBlobStore({ dir, encryptionKey: Buffer.from(key, 'hex') });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token, WSMIGRATE_BLOB_DIR: dir, WSMIGRATE_ENCRYPTION_KEY: key });
  });
  afterAll(async () => {
    process.env = saved;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows what it would do without --yes, then restores the exact backed-up bytes with --yes', async () => {
    const ws = sim.workspaces()[0];
    const original = sim.stateOf(ws.id);
    const backup = await blobs.put(Buffer.from(original), { kind: 'state-backup' });
    const changed = JSON.parse(original);
    changed.serial += 1;
    changed.resources = changed.resources.filter((r: { type: string }) => r.type !== 'kubernetes_deployment');
    await coder.putWorkspaceBuildState((await latest(ws.id)).id, Buffer.from(JSON.stringify(changed)));

    const dry = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref);
    expect(dry.exitCode).toBe(EXIT.changesPending);
    expect(dry.out).toMatch(/would put backup file:\/\/\/.+\/sha256\/[0-9a-f]{64} onto/);
    expect(sim.stateOf(ws.id)).not.toBe(original);

    const real = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(real.exitCode).toBe(EXIT.ok);
    expect(real.out).toMatch(/hash verified/);
    expect(sim.stateOf(ws.id)).toBe(original);

    const again = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(again.out).toMatch(/already holds backup/);
  });

  it("refuses another workspace's backup (different lineage) and changes nothing", async () => {
    const [a, b] = sim.workspaces();
    const backupOfA = await blobs.put(Buffer.from(sim.stateOf(a.id)), { kind: 'state-backup' });
    const before = sim.stateOf(b.id);
    const r = await run(`${b.owner}/${b.name}`, '--backup', backupOfA.ref, '--yes');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(/another workspace's state/);
    expect(sim.stateOf(b.id)).toBe(before);
  });

  it('fails clearly on an unknown backup ref and on a malformed target', async () => {
    const ws = sim.workspaces()[0];
    const missing = await run(`${ws.owner}/${ws.name}`, '--backup', `sha256:${'0'.repeat(64)}`, '--yes');
    expect(missing.exitCode).toBe(EXIT.failure);
    // The configured store and the key it looked for, so the operator knows where the backup is not.
    expect(missing.err).toMatch(/does not exist in store file:\/\/\/.+ \(key sha256\/0{64}\)/);
    expect((await run('just-a-name', '--backup', 'x')).exitCode).toBe(EXIT.usage);
  });

  it('never prints the session token', async () => {
    const ws = sim.workspaces()[0];
    const r = await run(`${ws.owner}/${ws.name}`, '--backup', `sha256:${'0'.repeat(64)}`);
    expect(r.out + r.err).not.toContain(sim.token);
  });
});
