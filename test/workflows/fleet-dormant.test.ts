import { startFleet } from '../../src/client/fleet';
import { progressLine, summaryTable } from '../../src/cli/fleet-render';
import { fleetProgressQuery, type FleetProgress, type FleetResult } from '../../src/contracts/migrate-fleet';
import { api } from '../sim/helpers';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

/**
 * Running dormant workspaces in a fleet (Coder lets nobody start a dormant workspace: coderd/rbac
 * workspace_dormant, made so by PUT /workspaces/{id}/dormant or the lifecycle executor's
 * time_til_dormant). Its migration could not start it again after its stop, so it is no failure of the
 * migration: the fleet skips it, says who must act, and never stops or builds it. One is dormant when
 * the fleet lists the template; the other is made dormant after that, just before its own preflight.
 */
describe('a fleet over running dormant workspaces', () => {
  let env: MigrationEnv;
  let lateName = '';
  let madeLate = false;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4, buildLatencyMs: 20 });
    await env.startWorker({
      wrap: (acts) => ({
        ...acts,
        preflightAndAssess: async (i) => {
          if (i.workspace === lateName && !madeLate) {
            madeLate = true;
            const ws = env.sim.workspaces().find((w) => w.name === i.workspace)!;
            expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
          }
          return acts.preflightAndAssess(i);
        },
      }),
    });
  }, 120_000);
  afterAll(async () => env?.close());

  it('counts them skipped (not failed) with who must act, in its result, summary, details and notification; builds neither; migrates the rest, its ETA from their migrations\' time', async () => {
    const [early, late, plain, plain2] = env.sim.workspaces();
    lateName = late!.name;
    expect((await api(env.sim, 'PUT', `/workspaces/${early!.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    const buildsBefore = new Map(await Promise.all([early!, late!].map(async (w) => [w.id, (await env.coder.workspaceBuilds(w.id)).length] as const)));

    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, canary: 0, concurrency: 1, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    // One at a time: once the first migration has ended and the last one runs, the ETA is one migration's time.
    let midway: FleetProgress | undefined;
    await waitFor(async () => {
      const p = await handle.query(fleetProgressQuery);
      if (p.counts.migrated === 1 && p.running.length === 1) midway = p;
      return midway !== undefined;
    }, 180_000);
    const result = (await handle.result()) as FleetResult;
    expect(madeLate).toBe(true);
    expect(result.summary).toMatchObject({ migrated: 2, skipped: 2, dormant: 2, failed: 0, needsAttention: 0, restored: 0 });
    const tookMs = await Promise.all(
      [plain!, plain2!].map(async (w) => {
        const d = await env.t.client.workflow.getHandle(`wsmigrate/${env.sim.template.name}/${w.owner}/${w.name}`).describe();
        return { closed: d.closeTime!.getTime(), took: d.closeTime!.getTime() - d.startTime.getTime() };
      }),
    );
    const first = tookMs.sort((a, b) => a.closed - b.closed)[0]!.took;
    // The skipped ones' seconds are no migration's: they neither shorten the estimate nor leave it unknown.
    expect(midway!.etaMs).toBeGreaterThan(first / 2);
    expect(midway!.etaMs).toBeLessThan(first * 2 + 1_000);
    expect(progressLine(midway!)).toMatch(/ · ETA \S+/);
    expect(result.failures).toEqual([]);
    const skips = new Map((result.skips ?? []).map((s) => [s.subject, s.reason]));
    expect([...skips.keys()].sort()).toEqual([`${early!.owner}/${early!.name}`, `${late!.owner}/${late!.name}`].sort());
    expect(skips.get(`${early!.owner}/${early!.name}`)).toMatch(/^skipped: dormant since \S+ \(Coder starts it for nobody.*nothing was stopped or built/);
    expect(skips.get(`${late!.owner}/${late!.name}`)).toMatch(/the workspace is running but dormant \(since \S+\).*nothing was stopped/);
    for (const w of [early!, late!]) {
      expect(skips.get(`${w.owner}/${w.name}`)).toContain(`its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${w.id}/dormant {"dormant": false})`);
      // Never stopped or built: the same builds, still running.
      const builds = await env.coder.workspaceBuilds(w.id);
      expect(builds).toHaveLength(buildsBefore.get(w.id)!);
      expect((await env.coder.workspace(w.id)).latest_build).toMatchObject({ transition: 'start', job: { status: 'succeeded' } });
    }
    for (const w of [plain!, plain2!]) expect((await env.coder.workspace(w.id)).latest_build).toMatchObject({ transition: 'start', template_version_id: result.targetVersionId });

    expect(env.notes.find((n) => n.kind === 'fleet-done')?.text).toContain('2 skipped (2 dormant: for each, its owner or an admin makes it active, then run the fleet again)');
    const table = summaryTable(result);
    expect(table).toMatch(/skipped\s+2\n\s+of them dormant\s+2/);
    expect(table).toContain('skipped (a person must act first):');
    const meta = (await env.t.client.workflow.getHandle(handle.workflowId).query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(meta.currentDetails).toContain('**Skipped** (a person must act first)');
    expect(meta.currentDetails).toContain(`\`${early!.owner}/${early!.name}\``);
    expect(meta.currentDetails).toMatch(/\| 0 \| 2 \(2 dormant\) \|/);
  }, 240_000);
  it("run again once the template auto-deletes dormant workspaces and one owner is suspended: each skip says when Coder deletes it, and asks an admin, not the suspended owner", async () => {
    const [early, late] = env.sim.workspaces();
    expect(early!.owner).not.toBe(late!.owner);
    const t = (await api<Record<string, unknown>>(env.sim, 'GET', `/templates/${env.sim.template.id}`)).body;
    expect((await api(env.sim, 'PATCH', `/templates/${env.sim.template.id}`, { json: { ...t, time_til_dormant_autodelete_ms: 7 * 86_400_000 } })).status).toBe(200);
    expect((await api(env.sim, 'PUT', `/users/${early!.owner}/status/suspend`)).status).toBe(200);
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, canary: 0, concurrency: 3, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ skipped: 2, dormant: 2, failed: 0 });
    const skips = new Map((result.skips ?? []).map((s) => [s.subject, s.reason]));
    const deletingAt = async (id: string) => (await api<{ deleting_at: string }>(env.sim, 'GET', `/workspaces/${id}`)).body.deleting_at;
    const mine = skips.get(`${early!.owner}/${early!.name}`)!;
    expect(mine).toContain(`nothing was stopped or built: a Coder admin makes it active first, not its owner: ${early!.owner} is suspended and cannot sign in`);
    expect(mine).toMatch(new RegExp(`Coder deletes it, home PVC included, at ${(await deletingAt(early!.id)).replace(/\./g, '\\.')} \\(the template's time_til_dormant_autodelete\\) unless it is made active before$`));
    const theirs = skips.get(`${late!.owner}/${late!.name}`)!;
    expect(theirs).toContain('its owner or an admin makes it active first');
    expect(theirs).toContain(`Coder deletes it, home PVC included, at ${await deletingAt(late!.id)}`);
  }, 240_000);
});

/**
 * The fleet keeps the last 100 skips, as it keeps the last 100 failures: every skip's reason (~450
 * characters) lives in its state and result, which Temporal carries across continue-as-new and caps in
 * size, and an organization can hold thousands of dormant workspaces. The count stays whole.
 */
describe('a fleet over more than 100 running dormant workspaces', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 101, buildLatencyMs: 5 });
    await env.startWorker();
  }, 120_000);
  afterAll(async () => env?.close());

  it('counts all 101 skipped and dormant, and keeps the reasons of the last 100', async () => {
    const all = env.sim.workspaces();
    expect(all).toHaveLength(101);
    for (const w of all) expect((await api(env.sim, 'PUT', `/workspaces/${w.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    const handle = await startFleet(
      env.t.client,
      { organization: 'coder', template: env.sim.template.name, canary: 0, concurrency: 3, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    const result = (await handle.result()) as FleetResult;
    expect(result.summary).toMatchObject({ migrated: 0, skipped: 101, dormant: 101, failed: 0 });
    expect(result.skips).toHaveLength(100);
    expect(new Set(result.skips!.map((s) => s.subject)).size).toBe(100);
    for (const s of result.skips!) expect(s.reason).toMatch(/^skipped: dormant since /);
  }, 240_000);
});
