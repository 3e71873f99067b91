import { MockActivityEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import { makeDiscoverFleetPage, type DiscoverFleetPageInput, type FleetPage } from '../../src/activities/discover-fleet';
import type { ActivityDeps } from '../../src/activities/ports';
import { CoderClient } from '../../src/adapters/coder';
import { WsmigratePhase } from '../../src/contracts/search-attributes';
import { FailureType } from '../../src/domain/failure-types';
import { workspaceWorkflowId } from '../../src/domain/migration-input';
import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, migrateStateByHand, pushTemplateVersion, startBuild } from '../sim/helpers';

/**
 * The fleet's discovery, page by page (test/activities/discover-fleet.test.ts has workspaces moving
 * in Coder's listing meanwhile): what each page offers to migrate, counts as done or filtered out,
 * holds back for a human, and where the next page starts.
 */
describe('fleet discovery, one page at a time', () => {
  let sim: CoderSimulator;
  let target: string;
  /** A version with the _v1 types (the last two tests move workspaces onto it). */
  let v1Target: string;
  /** Every workspace's owner/name, in the order discovery lists them (owner, then name, lower-case). */
  let sorted: string[];
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 7, buildLatencyMs: 5 });
    target = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF)).id;
    sorted = sim
      .workspaces()
      .map((w) => `${w.owner}/${w.name}`)
      .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  });
  afterAll(async () => sim?.close());

  const discoverWith = (coder: CoderClient) => makeDiscoverFleetPage({ coder, blobs: undefined, notifier: { notify: async () => undefined } } as unknown as ActivityDeps);
  const discover = (input: Partial<DiscoverFleetPageInput> = {}, token = sim.token) =>
    discoverWith(new CoderClient({ url: sim.url, token, retry: { maxAttempts: 1 } }))({
      organization: 'coder',
      template: sim.template.name,
      targetVersionId: target,
      filters: { status: 'any', owners: [], exclude: [] },
      offset: 0,
      pageSize: 3,
      ...input,
    });
  const names = (p: FleetPage) => p.items.map((i) => `${i.owner}/${i.workspace}`);

  it('pages through the fleet in owner/name order, each page starting after the last one seen, to an exhausted end', async () => {
    const first = await discover();
    expect(first).toMatchObject({ alreadyDone: 0, filteredOut: 0, heldForAttention: [], nextOffset: 3, cursor: sorted[2].toLowerCase(), total: 7, exhausted: false });
    expect(names(first)).toEqual(sorted.slice(0, 3));
    const second = await discover({ offset: first.nextOffset, after: first.cursor });
    expect(names(second)).toEqual(sorted.slice(3, 6));
    expect(second).toMatchObject({ nextOffset: 6, cursor: sorted[5].toLowerCase(), exhausted: false });
    const third = await discover({ offset: second.nextOffset, after: second.cursor });
    expect(names(third)).toEqual(sorted.slice(6));
    expect(third).toMatchObject({ nextOffset: 7, cursor: sorted[6].toLowerCase(), total: 7, exhausted: true });
    // Asked again after the last one (a workflow that retried its last page): nothing, the same cursor, exhausted.
    const past = await discover({ offset: third.nextOffset, after: third.cursor });
    expect(past).toMatchObject({ items: [], nextOffset: 7, cursor: third.cursor, exhausted: true });
    // Without a cursor (the first run of a page), the offset says where it starts; with one, the cursor does.
    expect(names(await discover({ offset: 5 }))).toEqual(sorted.slice(5));
    expect(names(await discover({ offset: 0, after: first.cursor }))).toEqual(sorted.slice(3, 6));
    const end = await discover({ offset: 7 });
    expect(end).toMatchObject({ items: [], exhausted: true });
    expect('cursor' in end).toBe(false);
    // Seven workspaces fit in one page of Coder's listing: one request a page.
    const before = sim.requestLog().length;
    await discover({ offset: 3 });
    expect(sim.requestLog().slice(before).filter((r) => r.method === 'GET' && r.path === '/api/v2/workspaces')).toHaveLength(1);
  });

  it("checks the token on the first page only, before listing: a Template Admin's is refused there", async () => {
    const templateAdmin = sim.tokenFor('template-admin');
    await expect(discover({}, templateAdmin)).rejects.toThrow(new RegExp(`^preflight refused for template coder/${sim.template.name}: the worker's token \\(CODER_SESSION_TOKEN\\) may not start the template's workspaces.*for template ${sim.template.name}$`));
    expect(names(await discover({ offset: 3 }, templateAdmin))).toEqual(sorted.slice(3, 6));
    await expect(discover({ template: 'no-such-template' })).rejects.toMatchObject({ type: 'CoderApi.not-found', message: expect.stringMatching(/^discovery failed for template coder\/no-such-template: /) });
  });

  it("a listing that never shows as many workspaces as Coder counts (they keep moving) is read five times over, then the step fails for a retry", async () => {
    // A Coder whose count is always one more than it lists.
    const countingOneMore: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      if ((init?.method ?? 'GET') !== 'GET' || !/\/api\/v2\/workspaces\?/.test(String(url))) return res;
      const body = (await res.json()) as { workspaces: unknown[]; count: number };
      return new Response(JSON.stringify({ ...body, count: body.count + 1 }), { status: res.status, headers: res.headers });
    };
    const before = sim.requestLog().length;
    await expect(discoverWith(new CoderClient({ url: sim.url, token: sim.token, fetchImpl: countingOneMore }))({ organization: 'coder', template: sim.template.name, targetVersionId: target, filters: { status: 'any', owners: [], exclude: [] }, offset: 3, pageSize: 3 })).rejects.toMatchObject({
      type: FailureType.busy,
      nonRetryable: false,
      message: `discovery: template coder/${sim.template.name}: saw 7 of 8 workspaces after 5 passes (workspaces keep moving in Coder's listing); trying again`,
    });
    // Each pass: the 7 workspaces, then an empty page past them.
    expect(sim.requestLog().slice(before).filter((r) => r.method === 'GET' && r.path === '/api/v2/workspaces')).toHaveLength(10);
    // A listing Coder fails (500 after the retries) names the step.
    sim.setFaults({ error500Rate: 1, only: ['/api/v2/workspaces'] });
    try {
      await expect(discover({ offset: 3 })).rejects.toMatchObject({ nonRetryable: false, message: expect.stringMatching(new RegExp(`^discovery failed for template coder/${sim.template.name}: `)) });
    } finally {
      sim.setFaults(undefined);
    }
  });

  it("holds back, for a human, a workspace whose latest migration ended needs-attention; one retried since by hand is offered again", async () => {
    const [held, retried] = [sorted[0], sorted[2]];
    const idOf = (k: string) => workspaceWorkflowId(sim.template.name, k.split('/')[0], k.split('/')[1]);
    // Temporal's visibility lists both runs of `held` and the old run of `retried`; its latest run migrated it.
    const phases = new Map([
      [idOf(held), 'needs-attention'],
      [idOf(retried), 'migrated'],
    ]);
    const queries: string[] = [];
    const client = {
      // The activity context runs the step under its cancellation signal (ignored here).
      withAbortSignal: <T>(_signal: AbortSignal, fn: () => T) => fn(),
      workflow: {
        list: async function* ({ query }: { query: string }) {
          queries.push(query);
          for (const k of [held, held, retried]) yield { workflowId: idOf(k) };
        },
        getHandle: (workflowId: string) => ({ describe: async () => ({ typedSearchAttributes: { get: (key: unknown) => (key === WsmigratePhase ? phases.get(workflowId) : undefined) } }) }),
      },
    } as unknown as Client;
    const page: FleetPage = await new MockActivityEnvironment({}, { client }).run(discover, {});
    expect(page.heldForAttention).toEqual([{ owner: held.split('/')[0], workspace: held.split('/')[1] }]);
    expect(names(page)).toEqual(sorted.slice(0, 3).filter((k) => k !== held));
    expect(queries).toEqual([`WorkflowType = 'migrateWorkspace' AND WsmigrateTemplate = '${sim.template.name}' AND WsmigratePhase = 'needs-attention'`]);
  });
  it('says which held workspace ended needs-attention because Coder made it dormant after its stop (its memo), so the fleet can say what to do', async () => {
    const [dormantHeld, plainHeld] = [sorted[0], sorted[1]];
    const idOf = (k: string) => workspaceWorkflowId(sim.template.name, k.split('/')[0], k.split('/')[1]);
    const memos = new Map<string, Record<string, unknown>>([
      [idOf(dormantHeld), { outcome: 'needs-attention', cause: 'dormant' }],
      [idOf(plainHeld), { outcome: 'needs-attention' }],
    ]);
    const client = {
      withAbortSignal: <T>(_signal: AbortSignal, fn: () => T) => fn(),
      workflow: {
        list: async function* () {
          for (const k of [dormantHeld, plainHeld]) yield { workflowId: idOf(k) };
        },
        getHandle: (workflowId: string) => ({
          describe: async () => ({ memo: memos.get(workflowId), typedSearchAttributes: { get: (key: unknown) => (key === WsmigratePhase ? 'needs-attention' : undefined) } }),
        }),
      },
    } as unknown as Client;
    const page: FleetPage = await new MockActivityEnvironment({}, { client }).run(discover, {});
    expect(page.heldForAttention).toEqual([
      { owner: dormantHeld.split('/')[0], workspace: dormantHeld.split('/')[1], dormant: true },
      { owner: plainHeld.split('/')[0], workspace: plainHeld.split('/')[1] },
    ]);
  });
  // Last: it moves workspaces onto the target version.
  it('counts a workspace already migrated (on the target version, healthy) as done and one the filters leave out as filtered, listing neither', async () => {
    const [done, excluded, alsoExcluded] = [sorted[1], sorted[4], sorted[5]];
    const doneWs = sim.workspaces().find((w) => `${w.owner}/${w.name}` === done)!;
    v1Target = (await pushTemplateVersion(sim, fixtureSource('template-v1'))).id;
    // Migrated as wsmigrate does it: the renamed state travels in the build that pins the target version.
    const migrated = Buffer.from(migrateStateByHand(sim.stateOf(doneWs.id))).toString('base64');
    expect((await startBuild(sim, doneWs.id, { transition: 'start', template_version_id: v1Target, state: migrated })).job.status).toBe('succeeded');
    const page = await discover({ pageSize: 10, targetVersionId: v1Target, filters: { status: 'any', owners: [], exclude: [excluded, alsoExcluded] } });
    expect(names(page)).toEqual(sorted.filter((k) => k !== done && k !== excluded && k !== alsoExcluded));
    expect(page).toMatchObject({ alreadyDone: 1, filteredOut: 2, total: 7, exhausted: true });
  });

  it('queues, first, a workspace on the target version whose state lost its home volume: only a healthy one counts as done', async () => {
    const lost = sorted[3];
    const lostWs = sim.workspaces().find((w) => `${w.owner}/${w.name}` === lost)!;
    // A start on the _v1 version with the old state (no guard in this version): the build succeeds and destroys the PVC.
    expect((await startBuild(sim, lostWs.id, { transition: 'start', template_version_id: v1Target })).job.status).toBe('succeeded');
    const page = await discover({ pageSize: 10, targetVersionId: v1Target });
    expect(names(page)[0]).toBe(lost);
    expect(page).toMatchObject({ alreadyDone: 1, filteredOut: 0, total: 7 });
  });
});

/**
 * A running dormant workspace: Coder lets nobody start it (rbac workspace_dormant), so a migration could
 * not start it again after its stop. Discovery never offers it; it lists it, with since when, for the
 * fleet to count skipped and say who must act. A stopped dormant one is migrated stopped (never started).
 */
describe('fleet discovery of dormant workspaces', () => {
  let sim: CoderSimulator;
  let target: string;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, buildLatencyMs: 5 });
    target = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF)).id;
  });
  afterAll(async () => sim?.close());

  const discover = () =>
    makeDiscoverFleetPage({ coder: new CoderClient({ url: sim.url, token: sim.token, retry: { maxAttempts: 1 } }), blobs: undefined, notifier: { notify: async () => undefined } } as unknown as ActivityDeps)({
      organization: 'coder',
      template: sim.template.name,
      targetVersionId: target,
      filters: { status: 'any', owners: [], exclude: [] },
      offset: 0,
      pageSize: 10,
    });

  it('none dormant: the page has no dormant list', async () => {
    const page = await discover();
    expect(page.items).toHaveLength(3);
    expect(page).not.toHaveProperty('dormant');
  });

  it('lists a running dormant one (owner, name, id, since) and never offers it; a stopped dormant one is offered, as the rest', async () => {
    const [running, stopped, plain] = sim.workspaces();
    expect((await startBuild(sim, stopped.id, { transition: 'stop' })).job.status).toBe('succeeded');
    for (const ws of [running, stopped]) expect((await api(sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    const since = (await api<{ dormant_at: string }>(sim, 'GET', `/workspaces/${running.id}`)).body.dormant_at;
    expect(since).toMatch(/^\d{4}-/);
    const page = await discover();
    expect(page.dormant).toEqual([{ owner: running.owner, workspace: running.name, id: running.id, since }]);
    expect(page.items.map((i) => i.workspace).sort()).toEqual([stopped.name, plain.name].sort());
    expect(page).toMatchObject({ filteredOut: 0, alreadyDone: 0, prebuilt: 0 });
  });
});
