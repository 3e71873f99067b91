import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoderClient } from '../../src/adapters/coder';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { makeReleaseActiveVersion, makeRequireActiveVersion } from '../../src/activities/active-version-lock';
import type { ActivityDeps } from '../../src/activities/ports';
import { startSimulator, type CoderSimulator } from '../../src/sim';

describe("the fleet's hold on old versions (require_active_version)", () => {
  let dir: string;
  let blobs: BlobStore;
  const sims: CoderSimulator[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsm-lock-'));
    blobs = createFileBlobStore({ dir });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => Promise.all(sims.map((s) => s.close())));

  async function depsFor(premium: boolean): Promise<{ sim: CoderSimulator; deps: ActivityDeps; input: { organization: string; template: string; workflowId: string } }> {
    const sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, premium });
    sims.push(sim);
    const coder = new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const deps = { coder, blobs, notifier: { notify: async () => undefined } } as unknown as ActivityDeps;
    return { sim, deps, input: { organization: 'coder', template: sim.template.name, workflowId: 'wsmigrate-fleet/coder/x' } };
  }
  const setting = async (sim: CoderSimulator) => (await new CoderClient({ url: sim.url, token: sim.token }).template(sim.template.id)).require_active_version;

  it('switches it on and, once asked to release, gives it back and removes its mark', async () => {
    const { sim, deps, input } = await depsFor(true);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    expect(await setting(sim)).toBe(true);
    // A later batch (another workflow, maybe another worker) sees the mark in the shared store.
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'already-on', byWsmigrate: true });
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('switched-off');
    expect(await setting(sim)).toBe(false);
    expect(await blobs.list()).toEqual([]);
  });

  it("leaves the operator's own setting on: no mark, no switch-off", async () => {
    const { sim, deps, input } = await depsFor(true);
    await new CoderClient({ url: sim.url, token: sim.token }).setTemplateRequireActiveVersion(sim.template.id, true);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'already-on', byWsmigrate: false });
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('left-on-by-operator');
    expect(await setting(sim)).toBe(true);
  });

  it.each(['agpl', 'expired'] as const)('on a Coder with licence %s: Coder answers the change with 200 and reads it back false: reported not held, no mark left', async (licence) => {
    const { sim, deps, input } = await depsFor(true);
    sim.setLicence(licence);
    const lock = await makeRequireActiveVersion(deps)(input);
    expect(lock).toEqual({ state: 'not-held', reason: expect.stringMatching(/reads it back as false.*Premium licence.*nothing holds members/) });
    expect(await setting(sim)).toBe(false);
    expect(await blobs.list()).toEqual([]);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('was-off');
  });

  it('a Template Admin token is refused before the setting is touched, naming what it may not do', async () => {
    const { sim, deps, input } = await depsFor(true);
    const templateAdmin = { ...deps, coder: new CoderClient({ url: sim.url, token: sim.tokenFor('template-admin'), retry: { maxAttempts: 2, baseDelayMs: 1 } }) };
    await expect(makeRequireActiveVersion(templateAdmin)(input)).rejects.toThrow(/may not start the template's workspaces; stop the template's workspaces.*Owner, or of an Organization Admin/);
    expect(await setting(sim)).toBe(false);
    expect(await blobs.list()).toEqual([]);
  });

  it('a Coder that answers the switch with a 500 (after the retries) is reported refused, and leaves no mark that would claim the setting', async () => {
    const { sim, deps, input } = await depsFor(true);
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/templates/${sim.template.id}`] });
    try {
      expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'refused', reason: expect.stringMatching(/500/) });
    } finally {
      sim.setFaults(undefined);
    }
    expect(await setting(sim)).toBe(false);
    expect(await blobs.list()).toEqual([]);
  });
});
