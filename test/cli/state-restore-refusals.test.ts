import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { registerStateRestoreCommand } from '../../src/cli/commands/state-restore';
import { EXIT } from '../../src/cli/io';
import { planRestore } from '../../src/client/restore-backup';
import { K8S_TEMPLATE_MAIN_TF, packTar, startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { homePvcName, SIZED_HOME_TEMPLATE_MAIN_TF } from '../sim/helpers';

/**
 * `wsmigrate state restore` refuses an order it cannot carry out as written before it reads anything,
 * and builds nothing: the build it makes is the one named (start or stop, on the workspace named), so
 * a typo is never a build Coder runs. A `--transition delete` that reached Coder would be a delete
 * carrying the backup: the workspace and its home volume gone.
 */
describe('wsmigrate state restore: bad input is refused, nothing built', () => {
  let sim: CoderSimulator;
  let coder: CoderClient;
  let blobs: BlobStore;
  let dir: string;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerStateRestoreCommand, 'state', 'restore', ...args);
  const latest = async (id: string) => (await coder.workspace(id, { includeDeleted: true })).latest_build;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
    coder = new CoderClient({ url: sim.url, token: sim.token });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-restore-refusals-'));
    blobs = createFileBlobStore({ dir });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token, WSMIGRATE_BLOB_DIR: dir });
    delete process.env.WSMIGRATE_ENCRYPTION_KEY;
  });
  afterAll(async () => {
    process.env = saved;
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A backup of this workspace (its lineage) that no build holds, so only --version and --transition say where it goes. */
  async function unheldBackup(id: string): Promise<string> {
    const held = JSON.parse(sim.stateOf(id));
    return (await blobs.put(Buffer.from(JSON.stringify({ ...held, serial: held.serial + 7 })), { kind: 'state-backup' })).ref;
  }

  it('a --transition other than start or stop (delete, restart) is a usage error: no build, the workspace and its home PVC as they were', async () => {
    const ws = sim.workspaces()[0];
    const ref = await unheldBackup(ws.id);
    const before = await latest(ws.id);
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))?.uid;
    for (const transition of ['delete', 'restart']) {
      const r = await run(`${ws.owner}/${ws.name}`, '--backup', ref, '--version', before.template_version_id, '--transition', transition, '--yes');
      expect(r.exitCode).toBe(EXIT.usage);
      expect(r.err).toContain(`--transition is start or stop (got '${transition}')`);
    }
    expect((await latest(ws.id)).id).toBe(before.id);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))?.uid).toBe(uid);
  });

  it('--transition without --version is a usage error, as --version without --transition', async () => {
    const ws = sim.workspaces()[0];
    const ref = await unheldBackup(ws.id);
    const before = await latest(ws.id);
    const r = await run(`${ws.owner}/${ws.name}`, '--backup', ref, '--transition', 'stop', '--yes');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toContain('--version and --transition go together');
    expect((await latest(ws.id)).id).toBe(before.id);
  });

  it('a target that is not owner/workspace (more parts, or a part missing) is a usage error, never a restore of the workspace its first two parts name', async () => {
    const ws = sim.workspaces()[0];
    const ref = await unheldBackup(ws.id);
    const before = await latest(ws.id);
    const r = await run(`${ws.owner}/${ws.name}/extra`, '--backup', ref, '--version', before.template_version_id, '--transition', 'stop', '--yes');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toContain(`'${ws.owner}/${ws.name}/extra' is not owner/workspace`);
    // A bare name, with a backup ref that reads (the refusal is for the target, not for anything after it).
    for (const target of [ws.name, `${ws.owner}/`, `/${ws.name}`]) {
      const bare = await run(target, '--backup', ref, '--version', before.template_version_id, '--transition', 'stop', '--yes');
      expect(bare.exitCode).toBe(EXIT.usage);
      expect(bare.err).toContain(`'${target}' is not owner/workspace (e.g. alice/dev)`);
    }
    expect((await latest(ws.id)).id).toBe(before.id);
  });

  it('a --backup that is not a blob ref is a usage error naming what a ref looks like', async () => {
    const ws = sim.workspaces()[0];
    const before = await latest(ws.id);
    const r = await run(`${ws.owner}/${ws.name}`, '--backup', 'backup-of-monday', '--yes');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toContain(`not a blob ref: "backup-of-monday"; expected 'sha256:' followed by 64 lowercase hex characters`);
    expect((await latest(ws.id)).id).toBe(before.id);
  });

  it('a backup that is not a Terraform v4 state is refused (exit 3), nothing built', async () => {
    const ws = sim.workspaces()[0];
    const before = await latest(ws.id);
    const notState = await blobs.put(Buffer.from(JSON.stringify({ version: 3, serial: 1, modules: [] })), { kind: 'state-backup' });
    const r = await run(`${ws.owner}/${ws.name}`, '--backup', notState.ref, '--version', before.template_version_id, '--transition', 'stop', '--yes');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(/^restore refused: /);
    expect((await latest(ws.id)).id).toBe(before.id);
  });
});

/**
 * `--version` naming another version than the one of the build that holds the backup: the restore
 * builds that version, so nothing of the holding build is claimed for it: not its version in the
 * words ("that of build #N"), not its parameter values (given back only onto the version they were
 * given to; another version may not declare them, or declare them otherwise).
 */
describe('wsmigrate state restore onto a version the operator names', () => {
  const OLD = SIZED_HOME_TEMPLATE_MAIN_TF;
  let sim: CoderSimulator;
  let dir: string;
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives back no parameter value of the build holding the backup and does not name that build', async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, templateFiles: [{ name: 'main.tf', content: OLD }], workspaceParameters: [{ name: 'home_disk_size', value: '20' }] });
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-restore-named-'));
    const blobs = createFileBlobStore({ dir });
    const ws = sim.workspaces()[0]!;
    const first = (await coder.workspace(ws.id)).latest_build;
    const backup = await blobs.put(Buffer.from(sim.stateOf(ws.id)), { kind: 'state-backup' });
    // A later start on a version without the parameter: its value is lost, and that version is the one named.
    const file = await coder.uploadFile(await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF.replace('storage = "10Gi"', 'storage = "20Gi"') }]));
    const bare = await coder.createTemplateVersion(sim.orgId, { template_id: sim.template.id, file_id: file.hash });
    await coder.waitForTemplateVersion(bare.id);
    await coder.waitForBuild((await coder.createWorkspaceBuild(ws.id, { transition: 'start', template_version_id: bare.id })).id);

    const own = await planRestore(coder, blobs, ws.owner, ws.name, backup.ref);
    expect(own.target).toMatchObject({ templateVersionId: first.template_version_id, fromBuildNumber: first.build_number });
    expect(own.parameters).toEqual([{ name: 'home_disk_size', value: '20' }]);
    const named = await planRestore(coder, blobs, ws.owner, ws.name, backup.ref, { templateVersionId: bare.id, transition: 'start' });
    expect(named.target).toEqual({ transition: 'start', templateVersionId: bare.id });
    expect(named.parameters).toBeUndefined();
  });
});
