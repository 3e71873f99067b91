import { EXIT } from '../../src/cli/io';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runMain } from '../harness/cli';

/**
 * `migrate workspace` and `recover` of a workspace Coder does not know (a typo of its owner or name):
 * with Coder's URL and token in the shell they started a run anyway (exit 0), which then failed in
 * its preflight; `fleet start` already refused an unknown --owner before starting anything.
 */
describe('migrate workspace / recover of a workspace Coder does not know', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 20 });
    // Coder's URL and token, and a Temporal nobody listens on: the refusal must come before any connection.
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token, TEMPORAL_ADDRESS: '127.0.0.1:1' });
  });
  afterAll(async () => {
    process.env = saved;
    await sim?.close();
  });

  const version = '0b6f0a43-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

  it.each([
    ['migrate', 'workspace'],
    ['recover'],
  ])('%s: a usage error naming the workspace and where names are listed; nothing started', async (...command) => {
    const r = await runMain(...command, 'alice/nope', '--template', sim.template.name, '--version', version, '--approver', 'alice');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toContain(`Coder (${sim.url.replace(/\/$/, '')}) has no workspace 'alice/nope' (or this token cannot read it): nothing was started; check the owner's username and the workspace's name ('wsmigrate scan --template ${sim.template.name}' lists each workspace as owner/name)`);
  });

  it('a workspace Coder knows passes the check (the run then starts as before)', async () => {
    const { refuseUnknownWorkspaceNow } = await import('../../src/cli/names-now');
    const ws = sim.workspaces()[0];
    await expect(refuseUnknownWorkspaceNow({ coderUrl: sim.url, coderSessionToken: undefined }, 'alice', 'nope', 't')).resolves.toBeUndefined(); // no token: not checked here
    const { Secret } = await import('../../src/config/secret');
    await expect(refuseUnknownWorkspaceNow({ coderUrl: sim.url, coderSessionToken: Secret.of(sim.token) }, ws.owner, ws.name, sim.template.name)).resolves.toBeUndefined();
  });
});
