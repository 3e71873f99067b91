import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator, type Licence } from '../../src/sim';
import { api, pushTemplateVersion, waitForBuild } from './helpers';

type TemplateJson = Record<string, unknown> & { id: string; require_active_version: boolean; display_name: string; activity_bump_ms: number };

async function template(sim: CoderSimulator): Promise<TemplateJson> {
  return (await api<TemplateJson>(sim, 'GET', `/templates/${sim.template.id}`)).body;
}

/** The PATCH a careful client sends through 2.31: every current value back, one changed. */
async function patchKeeping(sim: CoderSimulator, change: Record<string, unknown>, token?: string) {
  return api<TemplateJson>(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...(await template(sim)), ...change }, ...(token ? { token } : {}) });
}

/** A new active version, so the seeded one the workspaces run on is no longer the active one. */
async function promoteNewer(sim: CoderSimulator, name: string): Promise<void> {
  const newer = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name })).id;
  expect((await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: newer } })).status).toBe(200);
}

/** A member (the workspace's owner) stops, then starts on the previous build's version: the start's status. */
async function ownerRestartsOnOldVersion(sim: CoderSimulator): Promise<{ stop: number; start: number; message?: string }> {
  const ws = sim.workspaces()[0]!;
  const token = sim.tokenOf(ws.owner);
  const stop = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'stop' } });
  if (stop.status === 201) await waitForBuild(sim, stop.body.id);
  const start = await api<{ id: string; message?: string }>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'start' } });
  if (start.status === 201) await waitForBuild(sim, start.body.id);
  return { stop: stop.status, start: start.status, ...(start.body.message ? { message: start.body.message } : {}) };
}

describe('simulator: require_active_version on a Premium licence', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 11, buildLatencyMs: 5, licence: 'premium' });
  });
  afterEach(async () => sim.close());

  test("members' starts on a non-active version are refused (403); their stops are not; template admins are not held", async () => {
    const original = sim.template.activeVersionId;
    const [ws] = sim.workspaces();
    const ownerToken = sim.tokenOf(ws!.owner);
    await promoteNewer(sim, 'newer');

    expect((await patchKeeping(sim, { require_active_version: true }, ownerToken)).status).toBe(403);
    const on = await patchKeeping(sim, { require_active_version: true });
    expect(on.status).toBe(200);
    expect(on.body.require_active_version).toBe(true);
    expect((await api<{ template_require_active_version: boolean }>(sim, 'GET', `/workspaces/${ws!.id}`)).body.template_require_active_version).toBe(true);

    const member = await ownerRestartsOnOldVersion(sim);
    expect(member).toMatchObject({ stop: 201, start: 403, message: 'cannot use non-active version' });
    const explicit = await api(sim, 'POST', `/workspaces/${ws!.id}/builds`, { token: ownerToken, json: { transition: 'start', template_version_id: original } });
    expect(explicit.status).toBe(403);
    // The owner token (a site Owner) may start any version.
    const admin = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws!.id}/builds`, { json: { transition: 'start', template_version_id: original } });
    expect(admin.status).toBe(201);
    await waitForBuild(sim, admin.body.id);
  });

  test('the PATCH fields are non-pointers: omitted ones are reset; the same values again are 304', async () => {
    const before = await template(sim);
    expect(before.display_name).toBe('Kubernetes (Deployment)');
    expect((await patchKeeping(sim, { require_active_version: true })).status).toBe(200);
    expect(await template(sim)).toMatchObject({ display_name: 'Kubernetes (Deployment)', activity_bump_ms: before.activity_bump_ms, require_active_version: true });
    expect((await patchKeeping(sim, {})).status).toBe(304);

    const bare = await api<TemplateJson>(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { require_active_version: true } });
    expect(bare.status).toBe(200);
    expect(await template(sim)).toMatchObject({ name: sim.template.name, display_name: '', activity_bump_ms: 0, require_active_version: true });
    // coderd compares the name too: a body without one is never "not modified".
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { require_active_version: true } })).status).toBe(200);
    const off = await api<TemplateJson>(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { name: sim.template.name } });
    expect(off.status).toBe(200);
    expect(off.body.require_active_version).toBe(false);
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { activity_bump_ms: -1 } })).status).toBe(400);
  });
});

describe.each<Licence>(['agpl', 'expired'])('simulator: require_active_version without a valid licence (%s)', (licence) => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 1, seed: 12, buildLatencyMs: 5, licence });
  });
  afterEach(async () => sim.close());

  test('the PATCH answers 200, the value is ignored and reads back false, and members are not held', async () => {
    await promoteNewer(sim, 'newer');
    const patch = await patchKeeping(sim, { require_active_version: true });
    expect(patch.status).toBe(200);
    expect(patch.body.require_active_version).toBe(false);
    expect((await template(sim)).require_active_version).toBe(false);
    // coderd compares with the stored column, which AGPL never set: the same PATCH is 200 again, not 304.
    expect((await patchKeeping(sim, { require_active_version: true })).status).toBe(200);
    expect(await ownerRestartsOnOldVersion(sim)).toEqual({ stop: 201, start: 201 });
  });
});

describe('simulator: a licence that expires while a template requires its active version', () => {
  test('the stored setting stays (a PATCH sending it is 304) but reads back false and holds nobody', async () => {
    const sim = await startSimulator({ workspaces: 1, seed: 13, buildLatencyMs: 5, licence: 'premium' });
    try {
      await promoteNewer(sim, 'newer');
      expect((await patchKeeping(sim, { require_active_version: true })).status).toBe(200);
      sim.setLicence('expired');
      expect(sim.licence()).toBe('expired');
      expect((await template(sim)).require_active_version).toBe(false);
      expect((await patchKeeping(sim, { require_active_version: true })).status).toBe(304);
      expect(await ownerRestartsOnOldVersion(sim)).toEqual({ stop: 201, start: 201 });
      expect(() => sim.setLicence('gold' as Licence)).toThrow(/Unknown licence "gold"/);
    } finally {
      await sim.close();
    }
  });
});
