import { makePreflightTemplate } from '../../src/activities/preflight-template';
import type { ActivityDeps } from '../../src/activities/ports';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';

/** The template run's first step: which Coder, which template, and a token that may run it all; reads only. */
describe("the template's preflight", () => {
  const sims: CoderSimulator[] = [];
  afterAll(async () => Promise.all(sims.map((s) => s.close())));
  async function preflightOn(opts: { version?: string; role?: 'template-admin' } = {}) {
    const sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, ...(opts.version ? { version: opts.version } : {}) });
    sims.push(sim);
    const coder = new CoderClient({ url: sim.url, token: opts.role ? sim.tokenFor(opts.role) : sim.token, retry: { maxAttempts: 1 } });
    const preflight = makePreflightTemplate({ coder, blobs: undefined, notifier: { notify: async () => undefined } } as unknown as ActivityDeps);
    return { sim, preflight: (template = sim.template.name) => preflight({ organization: 'coder', template }) };
  }

  it("names the organization, the template and its active version on a 2.x Coder, with Coder's version", async () => {
    const { sim, preflight } = await preflightOn({ version: 'v2.24.3' });
    expect(await preflight()).toEqual({ organizationId: sim.orgId, templateId: sim.template.id, activeVersionId: sim.template.activeVersionId, coderVersion: 'v2.24.3' });
  });

  it('refuses a Coder before 2.x (no build takes a state there), and a version it cannot read, naming the template', async () => {
    const { sim, preflight } = await preflightOn({ version: 'v0.27.3' });
    await expect(preflight()).rejects.toMatchObject({
      type: FailureType.refused,
      nonRetryable: true,
      message: `preflight refused for template coder/${sim.template.name}: Coder v0.27.3 predates Coder 2 (builds that carry a state); upgrade to any 2.x release first`,
    });
    const odd = await preflightOn({ version: 'nightly' });
    await expect(odd.preflight()).rejects.toMatchObject({ type: FailureType.refused, message: expect.stringMatching(new RegExp(`^preflight refused for template coder/${odd.sim.template.name}: .*nightly`)) });
  });

  it("refuses a Template Admin's token (it may not start the workspaces the template's run builds), and names an unknown template", async () => {
    const { sim, preflight } = await preflightOn({ role: 'template-admin' });
    await expect(preflight()).rejects.toThrow(
      new RegExp(`^preflight refused for template coder/${sim.template.name}: the worker's token \\(CODER_SESSION_TOKEN\\) may not start the template's workspaces.*Organization Admin of coder, for template ${sim.template.name}$`),
    );
    const owner = await preflightOn();
    await expect(owner.preflight('no-such-template')).rejects.toMatchObject({ type: 'CoderApi.not-found', message: expect.stringMatching(/^preflight failed for template coder\/no-such-template: /) });
  });
});
