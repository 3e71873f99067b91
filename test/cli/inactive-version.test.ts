import { runMain } from '../harness/cli';
import { EXIT } from '../../src/cli/io';
import { isWrite } from '../harness/coder-requests';
import { cliAgainstWorker } from '../harness/cli-env';
import { fixtureSource, pushTemplateVersion } from '../sim/helpers';

/**
 * `migrate workspace --version` of a `_v1` version that is not the template's active one (pushed with
 * `migrate template --no-promote`, or by hand): the workspace would end "outdated", and its owner's
 * Update would build the active version (here a migrated one; an old one would destroy the home PVC,
 * see preflight-workspace). Refused unless asked for by name; asked for, the run says so in its result
 * and status.
 */
describe('migrate workspace onto a version that is not the active one', () => {
  const cli = cliAgainstWorker(2);
  let pushed: string | undefined;
  /** A second _v1 version, pushed once and not promoted. */
  const candidateVersion = async () => (pushed ??= (await pushTemplateVersion(cli.env.sim, fixtureSource('template-v1'), { name: 'v1-candidate' })).id);

  it('--help names the flag and the hazard, on migrate workspace and recover', async () => {
    for (const command of [['migrate', 'workspace'], ['recover']]) {
      const help = (await runMain(...command, '--help')).out.replace(/\s+/g, ' ');
      expect(help).toContain(
        "--allow-inactive-version migrate onto a --version that is not the template's active one (refused otherwise). HAZARD: the workspace then shows \"outdated\", and its owner's Update builds the active version: when that is an old one (the deprecated types), on the _v1 state, destroying the home PVC",
      );
    }
  });

  it('is refused in preflight (exit 3), saying why and what to do, with nothing written; with --allow-inactive-version it is migrated and warns in its result and status', async () => {
    const env = cli.env;
    const ws = env.sim.workspaces()[0];
    const subject = `${ws.owner}/${ws.name}`;
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    const candidate = await candidateVersion();
    const built = (await env.coder.workspace(ws.id)).latest_build;
    const before = env.sim.requestLog().length;

    const refused = await runMain('migrate', 'workspace', subject, '--template', env.sim.template.name, '--version', candidate, '--approval', 'none', '--wait');
    expect(refused.exitCode).toBe(EXIT.denied);
    expect(refused.err).toContain(
      `${id} failed: preflight refused for ${subject}: template version v1-candidate (${candidate}) is not the active version of template ${env.sim.template.name} (${cli.version} is). ` +
        // The active version here is the migrated one 'migrate template' promoted: Update would move it there, losing nothing.
        'After the migration Coder shows the workspace as outdated, and one click of its owner on Update moves it onto the active version, which declares the _v1 types too: no volume is lost, but it is not the version you chose. Nothing was stopped.',
    );
    expect(refused.err).toContain(`Promote it first ('coder templates versions promote --template ${env.sim.template.name} --template-version v1-candidate'`);
    expect(refused.err).toContain('or pass --allow-inactive-version');
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build.id).toBe(built.id);

    const allowed = await runMain('migrate', 'workspace', subject, '--template', env.sim.template.name, '--version', candidate, '--allow-inactive-version', '--approval', 'none', '--wait');
    expect(allowed.exitCode).toBe(EXIT.ok);
    const result = JSON.parse(allowed.out.slice(allowed.out.indexOf('{'))) as { outcome: string; warnings: string[] };
    const warning =
      `migrating ${subject} onto template version v1-candidate (${candidate}) leaves it outdated: that is not the active version of template ${env.sim.template.name} (${cli.version} is), ` +
      "and its owner's Update moves it onto the active version (a migrated one too: no volume is lost). " +
      `Promote v1-candidate before anyone presses Update ('coder templates versions promote --template ${env.sim.template.name} --template-version v1-candidate'); ` +
      'without --allow-inactive-version a migration onto it is refused';
    expect(result).toMatchObject({ outcome: 'migrated', warnings: [warning] });
    expect((await runMain('status', id)).out).toContain(`\n  warning: ${warning}`);
    const latest = (await env.coder.workspace(ws.id)).latest_build;
    expect(latest.template_version_id).toBe(candidate);
    expect((await env.coder.workspace(ws.id)).outdated).toBe(true);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);

  it('recover takes the flag too: without it the inactive version is refused; with it the preflight passes and the recovery says what it finds (here: nothing damaged)', async () => {
    const env = cli.env;
    const ws = env.sim.workspaces()[1];
    const subject = `${ws.owner}/${ws.name}`;
    const candidate = await candidateVersion();
    const refused = await runMain('recover', subject, '--template', env.sim.template.name, '--version', candidate, '--any-approver', '--wait');
    expect(refused.exitCode).toBe(EXIT.denied);
    expect(refused.err).toContain(`preflight refused for ${subject}: template version v1-candidate (${candidate}) is not the active version of template ${env.sim.template.name}`);
    const allowed = await runMain('recover', subject, '--template', env.sim.template.name, '--version', candidate, '--allow-inactive-version', '--any-approver', '--wait');
    expect(allowed.exitCode).toBe(EXIT.denied);
    expect(allowed.err).toMatch(new RegExp(`recover refused for ${subject}: it is unmigrated .*use 'wsmigrate migrate workspace'`));
  }, 180_000);
});
