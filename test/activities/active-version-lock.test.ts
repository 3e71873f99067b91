import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoderApiError, CoderClient } from '../../src/adapters/coder';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { makeReleaseActiveVersion, makeRequireActiveVersion } from '../../src/activities/active-version-lock';
import type { ActivityDeps } from '../../src/activities/ports';
import { pruneBackups } from '../../src/client/backups';
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

  async function depsFor(premium: boolean, opts: { moreTemplates?: { name: string; workspaces: number }[] } = {}): Promise<{ sim: CoderSimulator; deps: ActivityDeps; input: { organization: string; template: string; workflowId: string } }> {
    const sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, premium, ...opts });
    sims.push(sim);
    const coder = new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const deps = { coder, blobs, notifier: { notify: async () => undefined } } as unknown as ActivityDeps;
    return { sim, deps, input: { organization: 'coder', template: sim.template.name, workflowId: 'wsmigrate-fleet/coder/x' } };
  }
  const setting = async (sim: CoderSimulator, templateId = sim.template.id) => (await new CoderClient({ url: sim.url, token: sim.token }).template(templateId)).require_active_version;
  /** The operator switching the setting by hand, in Coder's UI. */
  const byHand = async (sim: CoderSimulator, templateId: string, on: boolean) => new CoderClient({ url: sim.url, token: sim.token }).setTemplateRequireActiveVersion(templateId, on);

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

  it('a later run that finds the mark adds its own record to it (the lock keeper then sees a run that holds it)', async () => {
    const { deps, input } = await depsFor(true);
    await makeRequireActiveVersion(deps)(input);
    const later = { ...input, workflowId: 'wsmigrate-fleet/coder/x-2026-12-07T05:00:00Z' };
    expect(await makeRequireActiveVersion(deps)(later)).toEqual({ state: 'already-on', byWsmigrate: true });
    const [mark] = await blobs.list();
    expect(mark.records.map((r) => [r.kind, r.workflowId]).sort()).toEqual([
      ['template-lock', input.workflowId],
      ['template-lock', later.workflowId],
    ]);
  });

  it("declines while the fleet's target is not the active version: the setting stays off, no mark, the reason names both versions", async () => {
    const { sim, deps, input } = await depsFor(true);
    const notActive = '00000000-0000-4000-8000-0000000000aa';
    const lock = await makeRequireActiveVersion(deps)({ ...input, targetVersionId: notActive });
    expect(lock).toMatchObject({ state: 'declined' });
    expect(lock.state === 'declined' ? lock.reason : '').toContain(`${notActive} is not the template's active version (${sim.template.activeVersionId})`);
    expect(await setting(sim)).toBe(false);
    expect(await blobs.list()).toEqual([]);
    // Its target active: the same call switches it on.
    expect(await makeRequireActiveVersion(deps)({ ...input, targetVersionId: sim.template.activeVersionId })).toEqual({ state: 'switched-on' });
  });

  it('a run that holds it gives it back even when the store lost the mark (another bucket, a prune by hand); without its word the setting reads as the operator\'s', async () => {
    const { sim, deps, input } = await depsFor(true);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    for (const b of await blobs.list()) await blobs.remove(b.sha256);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('left-on-by-operator');
    expect(await setting(sim)).toBe(true);
    expect(await makeReleaseActiveVersion(deps)({ ...input, heldByThisRun: true })).toBe('switched-off');
    expect(await setting(sim)).toBe(false);
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
    await expect(makeRequireActiveVersion(templateAdmin)(input)).rejects.toThrow(
      new RegExp(`^preflight refused for template coder/${input.template}: the worker's token \\(CODER_SESSION_TOKEN\\) may not start the template's workspaces; stop the template's workspaces.*Owner, or of an Organization Admin of coder, for template ${input.template}$`),
    );
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
  it("records its mark as the template's lock, by the workflow that set it: a prune of old backups keeps it, so the release still gives the setting back", async () => {
    const { sim, deps, input } = await depsFor(true);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    const listed = await blobs.list();
    expect(listed).toHaveLength(1);
    expect(listed[0].records).toEqual([expect.objectContaining({ kind: 'template-lock', label: `coder/${input.template}`, workflowId: input.workflowId })]);
    // `wsmigrate backups prune --older-than 0s --apply` a year later, with no workflow running.
    const inAYear = () => new Date(Date.now() + 365 * 24 * 3600 * 1000);
    const pruned = await pruneBackups(blobs, async () => [], { olderThanMs: 0, apply: true, now: inAYear });
    expect(pruned.deleted).toEqual([]);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('switched-off');
    expect(await setting(sim)).toBe(false);
  });

  it("its mark names its template: the operator's own setting on another template is left on when wsmigrate gives its own back", async () => {
    const { sim, deps, input } = await depsFor(true, { moreTemplates: [{ name: 'team-tools', workspaces: 1 }] });
    const other = sim.templates().find((t) => t.name === 'team-tools')!;
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    await byHand(sim, other.id, true);
    const theirs = { ...input, template: 'team-tools' };
    expect(await makeRequireActiveVersion(deps)(theirs)).toEqual({ state: 'already-on', byWsmigrate: false });
    expect(await makeReleaseActiveVersion(deps)(theirs)).toBe('left-on-by-operator');
    expect(await setting(sim, other.id)).toBe(true);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('switched-off');
    expect(await setting(sim)).toBe(false);
    expect(await setting(sim, other.id)).toBe(true);
  });

  it('a mark left behind by a setting switched off by hand is removed at release: the operator switching it on later is not taken for wsmigrate', async () => {
    const { sim, deps, input } = await depsFor(true);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    await byHand(sim, sim.template.id, false);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('was-off');
    expect(await blobs.list()).toEqual([]);
    await byHand(sim, sim.template.id, true);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('left-on-by-operator');
    expect(await setting(sim)).toBe(true);
  });

  it('a connection Coder drops (after the retries) fails the step for Temporal to retry, never "refused" (the fleet would run without the lock); the retry switches it on', async () => {
    const { sim, deps, input } = await depsFor(true);
    sim.setFaults({ dropConnectionRate: 1, only: [`/api/v2/templates/${sim.template.id}`] });
    try {
      await expect(makeRequireActiveVersion(deps)(input)).rejects.toMatchObject({ name: 'CoderApiError', kind: 'network', retryable: true });
    } finally {
      sim.setFaults(undefined);
    }
    expect(await setting(sim)).toBe(false);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    expect(await setting(sim)).toBe(true);
  });

  it("a switch Coder refuses outright (403: a custom role without the template's update) ends refused with Coder's words, and no mark", async () => {
    const { sim, deps, input } = await depsFor(true);
    const forbidden = new CoderApiError(`PATCH /templates/${sim.template.id} answered 403 Forbidden: the token may not update this template`, {
      kind: 'forbidden',
      status: 403,
      method: 'PATCH',
      path: `/templates/${sim.template.id}`,
      endpoint: 'update template settings',
      retryable: false,
      attempts: 1,
    });
    const refusing = { ...deps, coder: new Proxy(deps.coder, { get: (c, k) => (k === 'setTemplateRequireActiveVersion' ? async () => Promise.reject(forbidden) : Reflect.get(c, k).bind(c)) }) };
    expect(await makeRequireActiveVersion(refusing)(input)).toEqual({ state: 'refused', reason: forbidden.message });
    expect(await blobs.list()).toEqual([]);
    expect(await setting(sim)).toBe(false);
  });

  it('names its step and template when Coder cannot answer: a template it does not know, a release Coder fails', async () => {
    const { sim, deps, input } = await depsFor(true);
    const unknown = { ...input, template: 'no-such-template' };
    await expect(makeRequireActiveVersion(deps)(unknown)).rejects.toThrow(/^active-version lock failed for template coder\/no-such-template: /);
    await expect(makeReleaseActiveVersion(deps)(unknown)).rejects.toThrow(/^active-version lock failed for template coder\/no-such-template: /);
    expect(await makeRequireActiveVersion(deps)(input)).toEqual({ state: 'switched-on' });
    sim.setFaults({ error500Rate: 1, only: [`/api/v2/templates/${sim.template.id}`] });
    try {
      await expect(makeReleaseActiveVersion(deps)(input)).rejects.toThrow(new RegExp(`^active-version release failed for template coder/${input.template}: `));
    } finally {
      sim.setFaults(undefined);
    }
    // Still wsmigrate's, still on: the next release gives it back.
    expect(await setting(sim)).toBe(true);
    expect(await makeReleaseActiveVersion(deps)(input)).toBe('switched-off');
  });
});
