import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoderClient } from '../../src/adapters/coder';
import { createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { makeRequireActiveVersion } from '../../src/activities/active-version-lock';
import type { ActivityDeps } from '../../src/activities/ports';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { coderLockMarks } from '../../src/worker/lock-marks';

/**
 * Which marks the lock keeper judges: wsmigrate's, on templates whose require_active_version is
 * on, found from Coder's templates and looked up by content address, so a sweep's cost does not
 * grow with the backups in the store.
 */
describe("the lock keeper's marks, found from Coder", () => {
  let dir: string;
  let blobs: BlobStore;
  let sim: CoderSimulator;
  let coder: CoderClient;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5, premium: true, moreTemplates: [{ name: 'gpu', workspaces: 1 }, { name: 'docs', workspaces: 1 }] });
    coder = new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 2, baseDelayMs: 1 } });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsm-marks-'));
    blobs = createFileBlobStore({ dir });
  });
  afterEach(async () => {
    for (const t of await coder.templatesOfOrganization('coder')) if (t.require_active_version) await coder.setTemplateRequireActiveVersion(t.id, false);
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => sim?.close());

  const hold = (template: string, workflowId: string) => makeRequireActiveVersion({ coder, blobs, notifier: { notify: async () => undefined } } as unknown as ActivityDeps)({ organization: 'coder', template, workflowId });

  it("finds wsmigrate's mark with every run it names; not the operator's own setting, not a template whose setting is off", async () => {
    await hold(sim.template.name, 'wsmigrate-fleet/coder/a');
    await hold(sim.template.name, 'wsmigrate-fleet/coder/a-later');
    const gpu = await coder.templateByName('coder', 'gpu');
    await coder.setTemplateRequireActiveVersion(gpu.id, true); // the operator's, by hand: no mark
    await hold('docs', 'wsmigrate-fleet/coder/docs');
    const docs = await coder.templateByName('coder', 'docs');
    await coder.setTemplateRequireActiveVersion(docs.id, false); // switched off since, by hand: its stale mark holds nothing

    const marks = await coderLockMarks({ coder, blobs })();
    expect(marks).toEqual([{ template: `coder/${sim.template.name}`, workflowIds: expect.arrayContaining(['wsmigrate-fleet/coder/a', 'wsmigrate-fleet/coder/a-later']) }]);
    expect(marks[0].workflowIds).toHaveLength(2);
  });

  it("reads the records of the marks alone, however many backups the store holds", async () => {
    for (let i = 0; i < 30; i += 1) await blobs.put(Buffer.from(`state ${i}`), { kind: 'state-backup', label: 'coder/x', workflowId: `w${i}` });
    await hold(sim.template.name, 'wsmigrate-fleet/coder/a');
    const read: string[] = [];
    const counting = { location: blobs.location, has: blobs.has, records: async (hex: string) => (read.push(hex), blobs.records(hex)) };
    expect(await coderLockMarks({ coder, blobs: counting })()).toHaveLength(1);
    expect(read).toHaveLength(1);
  });

  it('names the template as Coder does now, and looks in every organization the token is a member of', async () => {
    const me = await coder.currentUser();
    expect(me.organization_ids).toEqual([sim.orgId]);
    await hold('gpu', 'wsmigrate-fleet/coder/gpu');
    const asked: string[] = [];
    const spying = { currentUser: () => coder.currentUser(), templatesOfOrganization: (org: string) => (asked.push(org), coder.templatesOfOrganization(org)) };
    expect(await coderLockMarks({ coder: spying, blobs })()).toEqual([{ template: 'coder/gpu', workflowIds: ['wsmigrate-fleet/coder/gpu'] }]);
    expect(asked).toEqual(me.organization_ids);
  });
});
