import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus-metrics';
import { dashboardQueries, exportedNames, metricNamesIn } from './dashboard-queries';

describe('Grafana dashboard (deploy/grafana/wsmigrate-dashboard.json)', () => {
  const queries = dashboardQueries();

  it('has panels for every part of the service, each query naming a metric', () => {
    expect(queries.length).toBeGreaterThanOrEqual(12);
    for (const q of queries) expect({ panel: q.panel, names: metricNamesIn(q.expr).length > 0 }).toEqual({ panel: q.panel, names: true });
  });

  it("names only wsmigrate_ metrics the worker's registry exports (temporal_ ones are checked against a live worker in test/worker/metrics-endpoint.test.ts)", async () => {
    const exported = exportedNames(await new PrometheusMetrics().registry.metrics());
    const unknown = queries.flatMap((q) => metricNamesIn(q.expr).filter((n) => n.startsWith('wsmigrate_') && !exported.has(n)).map((n) => `${q.panel}: ${n}`));
    expect(unknown).toEqual([]);
    // The replacement, in-flight, approval and Coder panels all read real metrics.
    const named = new Set(queries.flatMap((q) => metricNamesIn(q.expr)));
    for (const m of ['wsmigrate_resource_replacements_total', 'wsmigrate_workspaces_in_flight', 'wsmigrate_approvals_pending', 'wsmigrate_coder_api_request_duration_seconds_bucket']) {
      expect(named.has(m)).toBe(true);
    }
  });

  it('catches a misspelt metric (the check can fail)', () => {
    expect(exportedNames('# TYPE wsmigrate_x counter\nwsmigrate_x_total 1\n').has('wsmigrate_y_total')).toBe(false);
  });
});
