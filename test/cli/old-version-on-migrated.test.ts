import { runMain } from '../harness/cli';
import { EXIT } from '../../src/cli/io';
import { isWrite } from '../harness/coder-requests';
import { cliAgainstWorker } from '../harness/cli-env';

/**
 * `--version <the pre-migration version>` given for a workspace that is already migrated. Driven by
 * hand on `wsmigrate sim`: `migrate workspace` stopped the user's workspace, backed it up, had the
 * guard deny the build and started it again (downtime for nothing), and `recover` called the
 * migrated workspace "unmigrated" and sent the SRE to `migrate workspace`. Both now stop at preflight.
 */
describe('the old version given for an already-migrated workspace', () => {
  const cli = cliAgainstWorker(2);

  it('migrate workspace and recover refuse it in preflight, naming the version and the volumes, with nothing stopped or written', async () => {
    const env = cli.env;
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    const oldVersion = env.sim.template.originalVersionId;
    expect((await runMain('migrate', 'workspace', subject, '--template', env.sim.template.name, '--version', cli.version, '--approval', 'none', '--wait')).exitCode).toBe(EXIT.ok);
    const built = (await env.coder.workspace(ws.id)).latest_build;
    const before = env.sim.requestLog().length;

    const again = await runMain('migrate', 'workspace', subject, '--template', env.sim.template.name, '--version', oldVersion, '--approval', 'none', '--wait');
    expect(again.exitCode).toBe(EXIT.denied);
    expect(again.err).toMatch(
      new RegExp(`failed: preflight refused for ${subject}: template version \\S+ is older than this workspace's migrated state \\(kubernetes_persistent_volume_claim_v1\\.home is migrated, but this version declares the old kubernetes_persistent_volume_claim\\.home: the build would destroy it.*\\), so it is not a migrated version; nothing was stopped\\. Pass --version the id 'wsmigrate migrate template' printed`),
    );
    expect((await runMain('status', id)).out).toMatch(new RegExp(`^${id}: failed \\(during preflight\\)`));

    const rec = await runMain('recover', subject, '--template', env.sim.template.name, '--version', oldVersion, '--any-approver', '--wait');
    expect(rec.exitCode).toBe(EXIT.denied);
    expect(rec.err).toMatch(/preflight refused for .*is older than this workspace's migrated state/);
    expect(rec.err).not.toMatch(/unmigrated/);

    // No stop, no build, no state: the user's workspace was not touched.
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(built.id);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});
