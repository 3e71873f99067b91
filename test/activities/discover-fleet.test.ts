import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDiscoverFleetPage, type DiscoverFleetPageInput } from '../../src/activities/discover-fleet';
import { makePreflightWorkspace } from '../../src/activities/preflight-workspace';
import { cachedTemplateSourceLoader } from '../../src/activities/template-source';
import type { ActivityDeps } from '../../src/activities/ports';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, waitForBuild, type BuildJson } from '../sim/helpers';

/**
 * Coder lists running workspaces first (coderd/database/queries/workspaces.sql GetWorkspaces). While
 * a fleet pages through 300 workspaces, 50 of them start or stop: discovery still finds each once.
 */
describe('fleet discovery while workspaces start and stop', () => {
  let sim: CoderSimulator;
  let dir: string;
  /** Workspaces the next list pages will flip (stopped ones start, running ones stop), a batch after each page Coder serves. */
  let toFlip: { id: string; owner: string; transition: 'start' | 'stop' }[] = [];
  let flipped = 0;

  const flipSome = async (n: number) => {
    const batch = toFlip.splice(0, n);
    await Promise.all(
      batch.map(async (w) => {
        const res = await api<BuildJson>(sim, 'POST', `/workspaces/${w.id}/builds`, { token: sim.tokenOf(w.owner), json: { transition: w.transition } });
        if (res.status !== 201) throw new Error(`flip of ${w.id} answered ${res.status}: ${res.text}`);
        await waitForBuild(sim, res.body.id, 60_000);
        flipped++;
      }),
    );
  };
  /** After each page of GET /workspaces, some workspaces change state before the next page is asked for. */
  const flippingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if ((init?.method ?? 'GET') === 'GET' && /\/api\/v2\/workspaces\?/.test(url)) await flipSome(5);
    return res;
  };

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 300, buildLatencyMs: 5 });
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-discover-'));
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** 25 stopped beforehand to start, 25 running to stop: 50 flips, spread over the paging. */
  async function planFlips(): Promise<void> {
    const all = sim.workspaces();
    const toStop = all.filter((_, i) => i % 6 === 0).slice(0, 50);
    const stoppedFirst = toStop.slice(0, 25);
    toFlip = stoppedFirst.map((w) => ({ id: w.id, owner: w.owner, transition: 'stop' as const }));
    await flipSome(25);
    toFlip = [...stoppedFirst.map((w) => ({ id: w.id, owner: w.owner, transition: 'start' as const })), ...toStop.slice(25).map((w) => ({ id: w.id, owner: w.owner, transition: 'stop' as const }))];
    // Interleave starts and stops so both directions move workspaces across pages.
    toFlip = toFlip.flatMap((_, i) => (i % 2 === 0 ? [toFlip[i / 2]] : [toFlip[25 + (i - 1) / 2]])).filter(Boolean);
    flipped = 0;
  }

  it("Coder's offset paging alone skips some and repeats others (the hazard)", async () => {
    await planFlips();
    const coder = new CoderClient({ url: sim.url, token: sim.token, fetchImpl: flippingFetch });
    const seen: string[] = [];
    for (let offset = 0; ; ) {
      const page = await coder.workspacesOfTemplatePage(sim.template.name, { offset, limit: 25 });
      seen.push(...page.workspaces.map((w) => w.id));
      offset += page.workspaces.length;
      if (page.workspaces.length === 0 || offset >= page.count) break;
    }
    const missing = sim.workspaces().filter((w) => !seen.includes(w.id)).length;
    const twice = seen.length - new Set(seen).size;
    expect(missing + twice).toBeGreaterThan(0);
  }, 120_000);

  it('discoverFleetPage, paged as the fleet pages it, finds each of the 300 exactly once while 50 start and stop', async () => {
    await planFlips();
    const coder = new CoderClient({ url: sim.url, token: sim.token, fetchImpl: flippingFetch });
    const discover = makeDiscoverFleetPage({ coder, blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } } as unknown as ActivityDeps);
    const found: string[] = [];
    let input: DiscoverFleetPageInput = { organization: 'coder', template: sim.template.name, targetVersionId: '00000000-0000-4000-8000-000000000000', filters: { status: 'any', owners: [], exclude: [] }, offset: 0, pageSize: 40 };
    for (let pages = 0; pages < 50; pages++) {
      const page = await discover(input);
      found.push(...page.items.map((i) => `${i.owner}/${i.workspace}`));
      if (page.exhausted) break;
      input = { ...input, offset: page.nextOffset, ...(page.cursor ? { after: page.cursor } : {}) };
    }
    expect(flipped).toBe(50);
    const expected = sim.workspaces().map((w) => `${w.owner}/${w.name}`).sort();
    expect([...found].sort()).toEqual(expected);
    expect(new Set(found).size).toBe(found.length);
  }, 180_000);

  it('puts a workspace whose last build failed first on its page: its owner may be unable to start it until the fleet repairs it', async () => {
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const discover = makeDiscoverFleetPage({ coder, blobs: createFileBlobStore({ dir }), notifier: { notify: async () => undefined } } as unknown as ActivityDeps);
    const input: DiscoverFleetPageInput = { organization: 'coder', template: sim.template.name, targetVersionId: '00000000-0000-4000-8000-000000000000', filters: { status: 'any', owners: [], exclude: [] }, offset: 0, pageSize: 40 };
    const inOrder = (await discover(input)).items.map((i) => `${i.owner}/${i.workspace}`);
    const victim = sim.workspaces().find((w) => `${w.owner}/${w.name}` === inOrder[7])!;
    sim.setFaults({ failBuilds: { workspaceId: victim.id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    const res = await api<BuildJson>(sim, 'POST', `/workspaces/${victim.id}/builds`, { json: { transition: 'start' } });
    expect((await waitForBuild(sim, res.body.id)).build.job.status).toBe('failed');
    sim.setFaults(undefined);

    const page = (await discover(input)).items.map((i) => `${i.owner}/${i.workspace}`);
    expect(page[0]).toBe(inOrder[7]);
    expect(page.slice(1)).toEqual(inOrder.filter((_, i) => i !== 7)); // the rest keep their order
  }, 60_000);
});

/** enterprise/coderd/prebuilds: the reconciler replaces prebuilt workspaces of an old version itself. */
describe('fleet discovery and the preflight meet prebuilt workspaces', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, prebuilds: 2, buildLatencyMs: 5 });
  });
  afterAll(async () => sim.close());

  it("leaves them to Coder: counted as prebuilt, never queued, whatever the filters", async () => {
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const discover = makeDiscoverFleetPage({ coder } as unknown as ActivityDeps);
    const page = await discover({ organization: 'coder', template: sim.template.name, targetVersionId: '00000000-0000-4000-8000-000000000000', filters: { status: 'any', owners: [], exclude: [] }, offset: 0, pageSize: 40 });
    expect(page.prebuilt).toBe(2);
    expect(page.items.map((i) => i.owner)).not.toContain('prebuilds');
    expect(page.items).toHaveLength(3);
    expect(page.total).toBe(5);
  });

  it('a migration of one is refused before anything is built, saying why', async () => {
    const coder = new CoderClient({ url: sim.url, token: sim.token });
    const pre = sim.workspaces().find((w) => w.owner === 'prebuilds')!;
    const buildsBefore = (await coder.workspaceBuilds(pre.id)).length;
    const preflight = makePreflightWorkspace({ coder } as unknown as ActivityDeps, cachedTemplateSourceLoader(coder));
    await expect(preflight({ owner: 'prebuilds', workspace: pre.name, template: sim.template.name, targetVersionId: sim.template.activeVersionId, strategy: 'rename' })).rejects.toMatchObject({
      type: 'WsmigrateRefused',
      message: `preflight refused for prebuilds/${pre.name}: a prebuilt workspace (owned by Coder's prebuilds system user, nobody's data): Coder's prebuilds reconciler deletes those of an old version and builds new ones on the active version, so it is left to Coder; nothing was built`,
    });
    expect(await coder.workspaceBuilds(pre.id)).toHaveLength(buildsBefore);
  });
});
