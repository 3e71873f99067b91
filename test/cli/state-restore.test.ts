import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { registerStateRestoreCommand } from '../../src/cli/commands/state-restore';
import { applyRestore, planRestore } from '../../src/client/restore-backup';
import { EXIT } from '../../src/cli/io';
import { main } from '../../src/cli/main';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { SIZED_HOME_TEMPLATE_MAIN_TF } from '../sim/helpers';

describe('wsmigrate state restore', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  let blobs: BlobStore;
  let dir: string;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerStateRestoreCommand, 'state', 'restore', ...args);
  /** The whole CLI as a user runs it: main() prints every error the way the binary does. */
  const runMain = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const exitCode = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { out: out.join('\n'), err: err.join('\n'), exitCode };
  };
  const latest = async (id: string) => (await coder.workspace(id)).latest_build;
  /** A later build that runs on other bytes (what a migration's build, or anyone's, leaves behind). */
  const buildWith = async (id: string, state: unknown) => coder.waitForBuild((await coder.createWorkspaceBuild(id, { transition: 'start', state: Buffer.from(JSON.stringify(state)) })).id);

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

  it('shows what it would do without --yes, then with --yes runs one build carrying the backup on the version it was taken under', async () => {
    const ws = sim.workspaces()[0];
    const original = sim.stateOf(ws.id);
    const backup = await blobs.put(Buffer.from(original), { kind: 'state-backup' });
    const changed = JSON.parse(original);
    changed.serial += 1;
    changed.resources = changed.resources.filter((r: { type: string }) => r.type !== 'kubernetes_deployment');
    const first = await latest(ws.id);
    await buildWith(ws.id, changed);

    const before = await latest(ws.id);
    const dry = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref);
    expect(dry.exitCode).toBe(EXIT.changesPending);
    expect(dry.out).toMatch(new RegExp(`would start ${ws.owner}/${ws.name} on version ${first.template_version_id} \\(that of build #${first.build_number}, which the backup was taken from\\) carrying backup file:///.+/sha256/[0-9a-f]{64}`));
    expect(sim.stateOf(ws.id)).not.toBe(original);
    expect((await latest(ws.id)).id).toBe(before.id);

    const real = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(real.exitCode).toBe(EXIT.ok);
    expect(real.out).toMatch(new RegExp(`build #${before.build_number + 1} succeeded`));
    // One build carried the backup, on the version it was taken under: never a PUT onto a build.
    const after = await latest(ws.id);
    expect(after).toMatchObject({ build_number: before.build_number + 1, transition: 'start', template_version_id: first.template_version_id, job: { status: 'succeeded' } });
    // The managed objects of the backup, ids kept (data sources are read again by every build).
    const managed = (text: string) =>
      (JSON.parse(text).resources as { mode: string; type: string; name: string; instances: { attributes: { id?: string } }[] }[])
        .filter((r) => r.mode === 'managed')
        .map((r) => [r.type, r.name, r.instances.map((i) => i.attributes.id)]);
    expect(managed(sim.stateOf(ws.id))).toEqual(managed(original));
    expect(managed(original).map(([type]) => type)).toContain('kubernetes_deployment');

  });

  it('asks for the version and transition when no recent build holds the backup, and builds on them when given', async () => {
    const ws = sim.workspaces()[1];
    const held = JSON.parse(sim.stateOf(ws.id));
    const unknown = { ...held, serial: held.serial + 7 }; // same lineage, bytes no build holds
    const backup = await blobs.put(Buffer.from(JSON.stringify(unknown)), { kind: 'state-backup' });
    const before = await latest(ws.id);
    const refused = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
    expect(refused.exitCode).toBe(EXIT.denied);
    expect(refused.err).toMatch(/none of .* last 25 builds holds this backup.*--version .* and --transition start\|stop/);
    expect((await latest(ws.id)).id).toBe(before.id);
    expect((await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--version', before.template_version_id)).exitCode).toBe(EXIT.usage);

    const given = await run(`${ws.owner}/${ws.name}`, '--backup', backup.ref, '--version', before.template_version_id, '--transition', 'stop', '--yes');
    expect(given.exitCode).toBe(EXIT.ok);
    expect(await latest(ws.id)).toMatchObject({ build_number: before.build_number + 1, transition: 'stop', template_version_id: before.template_version_id, job: { status: 'succeeded' } });
  });

  it('writes nothing over a build someone started between the check and the write', async () => {
    const ws = sim.workspaces()[0];
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    const changed = JSON.parse(sim.stateOf(ws.id));
    changed.serial += 1;
    await buildWith(ws.id, changed);
    const plan = await planRestore(coder, blobs, ws.owner, ws.name, backup.ref);
    const theirs = await coder.createWorkspaceBuild(ws.id, { transition: 'stop' });
    await coder.waitForBuild(theirs.id);
    await expect(applyRestore(coder, plan)).rejects.toThrow(/was built meanwhile \(build #\d+, succeeded\); nothing was written over it/);
    expect((await latest(ws.id)).id).toBe(theirs.id);
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

  it('never prints the session token, on success or when Coder echoes it back in an error', async () => {
    const ws = sim.workspaces()[1];
    // Running again first (the test before left it stopped): a stopped workspace's backup after a start is refused
    // (state-restore-guards.test.ts), and this test is about the token, not that refusal.
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'start' })).id);
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    const changed = JSON.parse(sim.stateOf(ws.id));
    changed.serial += 1;
    await buildWith(ws.id, changed);
    const before = sim.requestLog().length;
    const dry = await runMain('state', 'restore', `${ws.owner}/${ws.name}`, '--backup', backup.ref);
    expect(dry.exitCode).toBe(EXIT.changesPending);
    expect(sim.requestLog().length).toBeGreaterThan(before); // it really talked to Coder
    expect(dry.out + dry.err).not.toContain(sim.token);

    // A proxy in front of Coder that quotes the token it was sent in its error answer.
    const echo = createServer((req, res) => {
      const sent = String(req.headers['coder-session-token'] ?? '');
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `Invalid session token "${sent}".`, detail: `token ${sent} is not accepted here`, validations: [{ field: 'token', detail: sent }] }));
    });
    const echoUrl = await new Promise<string>((resolve) => echo.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(echo.address() as AddressInfo).port}`)));
    const asked: string[] = [];
    echo.on('request', (req) => asked.push(String(req.url)));
    process.env.CODER_URL = echoUrl;
    try {
      const r = await runMain('state', 'restore', `${ws.owner}/${ws.name}`, '--backup', backup.ref, '--yes');
      expect(asked.length).toBeGreaterThan(0);
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toMatch(/Invalid session token/);
      expect(r.out + r.err).not.toContain(sim.token);
      expect(r.out + r.err).not.toContain(sim.token.slice(sim.token.indexOf('-') + 1));
    } finally {
      process.env.CODER_URL = sim.url;
      await new Promise((r) => echo.close(r));
    }
  });
});

/**
 * The backup was taken on a version that sizes the home claim with a parameter (the workspace has 20, the
 * default is 10); a later start on a version without that parameter dropped its value (Coder drops the
 * value of a parameter the build's version does not declare on a start). The restore gives the value back:
 * otherwise Coder resolves the default and the kubernetes provider replaces the shrinking claim.
 */
describe('wsmigrate state restore after a build that lost a parameter value', () => {
  const OLD = SIZED_HOME_TEMPLATE_MAIN_TF;
  let sim: CoderSimulator;
  let dir: string;
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('restores with the value of the build the backup was taken from: the same claim, 20Gi', async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }] });
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-restore-'));
    const blobs = createFileBlobStore({ dir });
    const ws = sim.workspaces()[0]!;
    const uid = sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid;
    const first = (await coder.workspace(ws.id)).latest_build;
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "20Gi"').replace('"coder_agent" "main" {', '"coder_agent" "main" {\n  # no size parameter') }]));
    const bare = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash });
    await coder.waitForTemplateVersion(bare.id);
    const moved = await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: bare.id })).id);
    expect(await coder.workspaceBuildParameters(moved.id)).toEqual([]);

    const plan = await planRestore(coder, blobs, ws.owner, ws.name, backup.ref, { templateVersionId: first.template_version_id, transition: 'start' });
    expect(plan.parameters).toEqual([{ name: 'home_disk_size', value: '20' }]);
    const done = await applyRestore(coder, plan);
    expect(done.template_version_id).toBe(first.template_version_id);
    expect(await coder.workspaceBuildParameters(done.id)).toEqual([{ name: 'home_disk_size', value: '20' }]);
    expect(sim.cluster.pvc('coder', `coder-${ws.id}-home`)?.uid).toBe(uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });
});
