import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';

/**
 * A fleet whose workspace failed its migration and was restored did not migrate everything: its
 * --wait must not exit 0, or a pipeline reads "all done" over a workspace left on the old types.
 */
describe('fleet --wait when a workspace was restored', () => {
  const cli = cliAgainstWorker(2);

  it('exits 3 (did not migrate everything), with the restored count in the table', async () => {
    const [failing] = cli.env.sim.workspaces();
    cli.env.sim.setFaults({ failBuilds: { workspaceId: failing.id, transition: 'start', times: 1, message: 'provisioner lost' } });
    try {
      const r = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--canary', '0', '--approval', 'none', '--no-archive', '--wait');
      expect(r.out).toMatch(/^restored\s+1$/m);
      expect(r.out).toMatch(/^migrated\s+1$/m);
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toMatch(/did not migrate everything/);
    } finally {
      cli.env.sim.setFaults(undefined);
    }
  }, 240_000);
});
