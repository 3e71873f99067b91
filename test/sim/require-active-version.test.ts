import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, pushTemplateVersion } from './helpers';

describe("simulator: a template that requires its active version (Premium)", () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 11, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  test('members can then start only the active version; template admins still pick any; stops stay allowed', async () => {
    const original = sim.template.activeVersionId;
    const [ws] = sim.workspaces();
    const ownerToken = sim.tokenOf(ws.owner);
    const newer = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'newer' })).id;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: newer } })).status).toBe(200);

    const byMember = await api(sim, 'PATCH', `/templates/${sim.template.id}`, { token: ownerToken, json: { require_active_version: true } });
    expect(byMember.status).toBe(403);
    const on = await api<{ require_active_version: boolean }>(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { name: sim.template.name, require_active_version: true } });
    expect(on.status).toBe(200);
    expect(on.body.require_active_version).toBe(true);
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { require_active_version: true } })).status).toBe(304);
    expect((await api<{ template_require_active_version: boolean }>(sim, 'GET', `/workspaces/${ws.id}`)).body.template_require_active_version).toBe(true);

    // The owner stops on the version it runs (the old one): allowed.
    const stop = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: ownerToken, json: { transition: 'stop' } });
    expect(stop.status).toBe(201);
    await waitForJob(sim, stop.body.id);
    // A start on the old version, explicit or as "the last build's", is refused for the owner…
    for (const json of [{ transition: 'start', template_version_id: original }, { transition: 'start' }]) {
      const refused = await api<{ message: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: ownerToken, json });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('cannot use non-active version');
    }
    // …allowed on the active version, and for a template admin on any version.
    const admin = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start', template_version_id: original } });
    expect(admin.status).toBe(201);
  });

  test('an AGPL deployment refuses to switch it on (with its license reason) but lets it be switched off', async () => {
    const agpl = await startSimulator({ workspaces: 1, seed: 12, buildLatencyMs: 5, premium: false, faults: undefined });
    try {
      const refused = await api<{ message: string; detail: string }>(agpl, 'PATCH', `/templates/${agpl.template.id}`, { json: { require_active_version: true } });
      expect(refused.status).toBe(500);
      expect(refused.body.detail).toMatch(/enterprise license required for require_active_version/);
      expect((await api<{ require_active_version: boolean }>(agpl, 'GET', `/templates/${agpl.template.id}`)).body.require_active_version).toBe(false);
      expect((await api(agpl, 'PATCH', `/templates/${agpl.template.id}`, { json: { require_active_version: false } })).status).toBe(304);
    } finally {
      await agpl.close();
    }
  });
});

async function waitForJob(sim: CoderSimulator, buildId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const b = await api<{ job: { status: string } }>(sim, 'GET', `/workspacebuilds/${buildId}`);
    if (['succeeded', 'failed', 'canceled'].includes(b.body.job.status)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`build ${buildId} did not finish`);
}
