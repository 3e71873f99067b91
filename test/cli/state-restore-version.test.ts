import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';

/**
 * `state restore --version` names the version the backup is built on. A migrated (_v1) backup built
 * on the pre-migration version plans the _v1 claim away: driven by hand on `wsmigrate sim`, the
 * restore build failed with AlreadyExists and the cluster recorded the home PVC lost (new uid).
 * The same rule as every workflow build (activities/builds.ts refuseDowngrade), both directions.
 */
describe('state restore never builds a backup on a version whose types do not match it', () => {
  const cli = cliAgainstWorker(2);

  it('a migrated backup with --version <the old version>, and an old-type backup with --version <the _v1 version>: refused (exit 3), nothing built, no PVC lost', async () => {
    const env = cli.env;
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const oldVersion = (await env.coder.workspace(ws.id)).latest_build.template_version_id;
    const oldState = JSON.parse(env.sim.stateOf(ws.id)) as { serial: number };
    const migrate = await runMain('migrate', 'workspace', subject, '--template', env.sim.template.name, '--version', cli.version, '--approval', 'none', '--wait');
    expect(migrate.exitCode).toBe(EXIT.ok);
    const migratedState = JSON.parse(env.sim.stateOf(ws.id)) as { serial: number };
    expect(JSON.stringify(migratedState)).toMatch(/kubernetes_persistent_volume_claim_v1/);
    const pvcBefore = env.sim.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim');

    // Bytes no recent build holds (an operator's copy): the command asks for --version and --transition.
    const migratedBackup = await env.blobs.put(Buffer.from(JSON.stringify({ ...migratedState, serial: migratedState.serial + 3 })), { kind: 'state-backup' });
    const oldBackup = await env.blobs.put(Buffer.from(JSON.stringify({ ...oldState, serial: migratedState.serial + 5 })), { kind: 'state-backup' });
    Object.assign(process.env, { CODER_URL: env.sim.url, CODER_SESSION_TOKEN: env.sim.token, WSMIGRATE_BLOB_DIR: env.blobDir });
    const before = (await env.coder.workspace(ws.id)).latest_build;

    const down = await runMain('state', 'restore', subject, '--backup', migratedBackup.ref, '--version', oldVersion, '--transition', 'start', '--yes');
    expect(down.exitCode).toBe(EXIT.denied);
    expect(down.err).toMatch(new RegExp(`the backup does not fit version ${oldVersion}: kubernetes_persistent_volume_claim_v1\\.home is migrated, but this version declares the old kubernetes_persistent_volume_claim\\.home: the build would destroy it and re-create it empty.*Nothing was written`));

    const up = await runMain('state', 'restore', subject, '--backup', oldBackup.ref, '--version', cli.version, '--transition', 'start', '--yes');
    expect(up.exitCode).toBe(EXIT.denied);
    expect(up.err).toMatch(new RegExp(`the backup does not fit version ${cli.version}: kubernetes_persistent_volume_claim\\.home has the old type, but this version declares only kubernetes_persistent_volume_claim_v1\\.home`));

    // Without --yes too: the dry run says what is wrong, not what it would do.
    const dry = await runMain('state', 'restore', subject, '--backup', migratedBackup.ref, '--version', oldVersion, '--transition', 'start');
    expect(dry.exitCode).toBe(EXIT.denied);

    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(before.id);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
    expect(env.sim.cluster.objects().filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual(pvcBefore);

    // The matching pairs still restore: the migrated backup on the migrated version.
    const ok = await runMain('state', 'restore', subject, '--backup', migratedBackup.ref, '--version', cli.version, '--transition', 'start', '--yes');
    expect(ok.exitCode).toBe(EXIT.ok);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});
