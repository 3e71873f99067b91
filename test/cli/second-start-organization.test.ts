import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { exclusiveFile, ORG_CODER_LOCK } from '../harness/exclusive';

// The organization run wsmigrate-org/coder and schedules of organization coder: one such file at a time.
exclusiveFile(ORG_CODER_LOCK);

/**
 * A second start of an organization's run while one runs: refused (exit 3) naming the run, as a second
 * fleet, migration or recovery is (second-start.test.ts); a script tells "refused, nothing changed"
 * from "broke" (exit 1) by the code.
 */
describe("a second start of a running organization's run, through the CLI", () => {
  // A worker and the template migrated: the run's fleet waits at its first gate, so the run is still running.
  const cli = cliAgainstWorker(1);

  it('fleet start --all-templates while it runs: exit 3, naming the run and its status command', async () => {
    const start = () => runMain('fleet', 'start', '--org', 'coder', '--all-templates', '--approver', 'sre');
    const first = await start();
    expect(first.exitCode).toBe(EXIT.ok);
    try {
      const again = await start();
      expect(again.exitCode).toBe(EXIT.denied);
      expect(again.err).toContain("a migration of organization coder is already running (wsmigrate-org/coder); see 'wsmigrate fleet status wsmigrate-org/coder'");
    } finally {
      expect((await runMain('fleet', 'cancel', 'wsmigrate-org/coder', '--by', 'sre')).exitCode).toBe(EXIT.ok);
      // Ended, not only asked to: the next file that starts wsmigrate-org/coder must not find it still running.
      await cli.env.t.client.workflow.getHandle('wsmigrate-org/coder').result().catch(() => undefined);
    }
  }, 120_000);
});
