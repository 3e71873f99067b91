import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';

describe('status of a template migration, as an SRE reads it before the fleet', () => {
  const cli = cliAgainstWorker(1);

  it('names the version it pushed and the command that takes it (not only "done")', async () => {
    const template = cli.env.sim.template.name;
    const r = await runMain('status', `wsmigrate-template/coder/${template}`);
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toMatch(new RegExp(`^wsmigrate-template/coder/${template}: done\\n  new version: wsmigrate-\\S+ \\(${cli.version}\\)\\n    next: wsmigrate fleet start --org coder --template ${template} --version ${cli.version}\\n?$`));
  }, 60_000);

  it('migrate template --wait ends with the next command on stderr, the result JSON alone on stdout', async () => {
    const template = cli.env.sim.template.name;
    const r = await runMain('migrate', 'template', template, '--org', 'coder', '--any-approver', '--wait');
    expect(r.exitCode).toBe(EXIT.ok);
    const result = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { outcome: string; versionId: string };
    expect(result.versionId).toBe(cli.version);
    expect(r.err).toMatch(new RegExp(`^next: wsmigrate fleet start --org coder --template ${template} --version ${cli.version}$`, 'm'));
  }, 120_000);
});
