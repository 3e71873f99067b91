import { startWorkspaceMigration } from '../../src/client/migrations';
import { decide, pendingApproval } from '../../src/client/approvals';
import type { WorkspaceMigrationResult } from '../../src/contracts/migrate-workspace';
import { dashboardQueries, exportedNames, metricNamesIn } from '../deploy/dashboard-queries';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { freePort, spawnCliWorker, workerEnvFor, type CliWorker } from './fixtures/cli-worker';

/** The value of one sample line, e.g. sample(text, 'wsmigrate_workspaces_finished_total{outcome="migrated"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the worker process serves /metrics, /healthz and /readyz', () => {
  let env: MigrationEnv;
  let worker: CliWorker;
  let base: string;

  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, buildLatencyMs: 20 });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    worker = await spawnCliWorker({
      ...workerEnvFor(env),
      WSMIGRATE_METRICS_PORT: String(port),
      WSMIGRATE_METRICS_HOST: '127.0.0.1',
    });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await env?.close();
  });

  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, text: await res.text() };
  };

  it('answers /healthz at once and /readyz once Temporal and Coder answered', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, text: 'ok\n' });
    await waitFor(async () => (await get('/readyz')).status === 200, 60_000);
    const report = JSON.parse((await get('/readyz')).text) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(report).toMatchObject({ ready: true, checks: { temporal: { ok: true }, coder: { ok: true } } });
    expect((await get('/nope')).status).toBe(404);
  });

  it('counts a migration end to end: outcome, pending approval, decision time, Coder calls, plus Temporal runtime metrics', async () => {
    const versionId = (await env.migrateTemplate()).versionId;
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: versionId, approval: { policy: 'destructive', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    // Ours waits at its gate first: the gauges count the whole namespace, which other test files share.
    await waitFor(async () => (await pendingApproval(env.t.client, handle.workflowId))?.gateId === 'apply', 90_000);
    // Visibility is read at scrape time (cached for 15s), so poll.
    await waitFor(async () => (sample((await get('/metrics')).text, 'wsmigrate_approvals_pending{gate="apply"}') ?? 0) >= 1, 90_000);
    expect(sample((await get('/metrics')).text, 'wsmigrate_workspaces_in_flight{phase="awaiting-approval"}')).toBeGreaterThanOrEqual(1);
    await decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' });
    expect(((await handle.result()) as WorkspaceMigrationResult).outcome).toBe('migrated');

    const text = (await get('/metrics')).text;
    expect(sample(text, 'wsmigrate_workspaces_finished_total{outcome="migrated"}')).toBe(1);
    expect(sample(text, 'wsmigrate_approval_decision_seconds_count{gate="apply",decision="approve"}')).toBe(1);
    expect(sample(text, 'wsmigrate_coder_api_requests_total{method="POST",route="/workspaces/:id/builds",status_class="2xx"}')).toBeGreaterThanOrEqual(2);
    // The migrated state travels in a build: no state PUT at all.
    expect(text).not.toMatch(/wsmigrate_coder_api_requests_total\{method="PUT",route="\/workspacebuilds\/:id\/state"/);
    expect(text).toMatch(/^wsmigrate_coder_api_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/buildinfo",status_class="2xx"\} \d+/m);
    // No workspace or user name ever becomes a label value.
    expect(text).not.toContain(ws.name);
    expect(text).not.toContain(ws.owner);
    // The Temporal runtime's own metrics come on the same endpoint.
    expect(text).toMatch(/^temporal_\w+/m);
    expect(text).toMatch(/^wsmigrate_process_cpu_seconds_total /m);

    // Every query of the Grafana dashboard names a metric this running worker exports.
    const exported = exportedNames(text);
    const missing = dashboardQueries().flatMap((q) => metricNamesIn(q.expr).filter((n) => !exported.has(n)).map((n) => `${q.panel}: ${n}`));
    expect({ missing, temporal: missing.length ? [...exported].filter((n) => n.startsWith('temporal_')) : [] }).toEqual({ missing: [], temporal: [] });
  }, 180_000);
});
