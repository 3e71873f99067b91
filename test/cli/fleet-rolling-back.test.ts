import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';

/**
 * A target version that does not build: each migration's build on it fails and the workspace is
 * restored on its old version. Rollbacks are safe and spend no failure budget, so the fleet goes on
 * through every workspace; the SRE watching it must be told, once, that this is what is happening.
 */
describe('a fleet whose every migration rolls back (the target version does not build)', () => {
  const cli = cliAgainstWorker(5);

  it('--wait says so once with the pause command, the table says to fix the version, every PVC kept, exit 3', async () => {
    cli.env.sim.setFaults({ failBuilds: { templateVersionId: cli.version, transition: 'start', message: 'Error: creating Deployment: admission webhook denied the request' } });
    try {
      const r = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--canary', '0', '--concurrency', '1', '--approval', 'none', '--no-archive', '--wait');
      const fleetId = `wsmigrate-fleet/coder/${cli.env.sim.template.name}`;
      expect(r.out).toMatch(/^restored\s+5$/m);
      expect(r.out).toMatch(/^migrated\s+0$/m);
      const running = r.outLines.filter((l) => l.includes('Rollbacks do not spend the failure budget'));
      // Said once, as the --wait poll first sees three or more of them (the fleet goes on meanwhile).
      expect(running).toHaveLength(1);
      expect(running[0]).toMatch(
        new RegExp(`^([345]) of the \\1 migrations that ran were rolled back \\(each workspace stopped, then rebuilt as it was\\)\\. Rollbacks do not spend the failure budget, so the fleet goes on: when their reasons agree, the target version is likely at fault\\. Pause it \\(wsmigrate fleet pause ${fleetId.replace(/\//g, '\\/')}\\) and read them\\.$`),
      );
      expect(r.out).toContain('5 of the 5 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was): when their reasons agree, the target version is likely at fault; fix it before running the fleet again.');
      expect(r.exitCode).toBe(EXIT.denied);
      // The restores put the old state back: every workspace on the deprecated types, no claim lost.
      for (const ws of cli.env.sim.workspaces()) {
        const types = (JSON.parse(cli.env.sim.stateOf(ws.id)) as { resources: { type: string }[] }).resources.map((res) => res.type);
        expect(types).toContain('kubernetes_persistent_volume_claim');
        expect(types.filter((t) => t.endsWith('_v1'))).toEqual([]);
      }
      expect(cli.env.sim.cluster.pvcLosses()).toEqual([]);
      // Chat is told once (rollbacks never stop the fleet, so this is all that reaches a person who is not watching).
      const told = cli.env.notes.filter((n) => n.kind === 'fleet-rolling-back' && n.workflowId === fleetId);
      expect(told).toHaveLength(1);
      expect(told[0].subject).toBe(`Fleet coder/${cli.env.sim.template.name}: its migrations keep rolling back`);
      expect(told[0].text).toMatch(/^[345] of the [345] migrations that ran were rolled back .* Pause it \(wsmigrate fleet pause /);
      expect((await runMain('fleet', 'status', fleetId)).out).toContain('5 of the 5 migrations that ran were rolled back');
    } finally {
      cli.env.sim.setFaults(undefined);
    }
  }, 300_000);
});
