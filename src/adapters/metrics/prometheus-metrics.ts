import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MigrationMetrics, ObservedChangeKind } from '../../ports/metrics';
import { statusClass, type CoderCall } from '../coder/call-observer';

/** Every metric name wsmigrate itself exports starts with this. */
export const METRIC_PREFIX = 'wsmigrate_';

/** Counts of running migrations, read from Temporal's visibility at scrape time (see visibility-gauges). */
export interface InFlightCounts {
  byPhase: Record<string, number>;
  pendingByGate: Record<string, number>;
}

const CHANGE_COUNTERS: Record<ObservedChangeKind, { name: string; help: string }> = {
  replace: {
    name: 'wsmigrate_resource_replacements_total',
    help: 'Resources a build triggered by wsmigrate replaced (Terraform "must be replaced"), by template and resource type',
  },
  destroy: { name: 'wsmigrate_resource_destroys_total', help: 'Resources a build triggered by wsmigrate destroyed, by template and resource type' },
  'type-rename-delete': {
    name: 'wsmigrate_type_rename_deletes_total',
    help: 'Deletes of an old kubernetes_* type in a build triggered by wsmigrate (the rename hazard), by template and resource type',
  },
};

/**
 * wsmigrate's own Prometheus metrics, on a registry of their own (never prom-client's global one),
 * so two workers in one process or a test never share counts.
 */
export class PrometheusMetrics implements MigrationMetrics {
  readonly registry = new Registry();
  private readonly finished: Counter<'outcome'>;
  private readonly decisionSeconds: Histogram<'gate' | 'decision'>;
  private readonly changes: Record<ObservedChangeKind, Counter<'template' | 'resource_type'>>;
  private readonly blocked: Counter<'step'>;
  private readonly damaged: Counter<'reason'>;
  private readonly coderCalls: Counter<'method' | 'route' | 'status_class'>;
  private readonly lockHeld: Gauge<'template'>;
  private readonly lockKeeperGivenBack: Counter<'template'>;
  private readonly coderSeconds: Histogram<'method' | 'route' | 'status_class'>;
  private readonly pacingWindow: Gauge<'template'>;
  private readonly pacingHeld: Gauge<'template'>;
  /** Set once the worker has a Temporal connection to count running migrations with. */
  inFlight: (() => Promise<InFlightCounts | undefined>) | undefined;

  constructor(opts: { inFlight?: () => Promise<InFlightCounts | undefined>; processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.finished = new Counter({ name: 'wsmigrate_workspaces_finished_total', help: 'Workspace migrations that ended, by outcome', labelNames: ['outcome'], registers });
    this.decisionSeconds = new Histogram({
      name: 'wsmigrate_approval_decision_seconds',
      help: 'Time from an approval gate opening to its decision (or timeout)',
      labelNames: ['gate', 'decision'],
      buckets: [30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 72 * 3600],
      registers,
    });
    this.changes = Object.fromEntries(
      Object.entries(CHANGE_COUNTERS).map(([kind, c]) => [kind, new Counter({ ...c, labelNames: ['template', 'resource_type'], registers })]),
    ) as PrometheusMetrics['changes'];
    this.blocked = new Counter({ name: 'wsmigrate_guard_blocked_deletes_total', help: 'Migrations the plan guard stopped because they would delete a protected resource', labelNames: ['step'], registers });
    this.damaged = new Counter({ name: 'wsmigrate_damaged_workspaces_total', help: 'Workspaces found damaged (a volume lost or a protected resource destroyed)', labelNames: ['reason'], registers });
    this.lockHeld = new Gauge({
      name: 'wsmigrate_template_active_version_held',
      help: "1 when Coder reads the template's require_active_version back as on after the fleet set it, 0 when it does not hold (AGPL or an expired licence) or wsmigrate gave it back (as each fleet run ends)",
      labelNames: ['template'],
      registers,
    });
    this.lockKeeperGivenBack = new Counter({
      name: 'wsmigrate_lock_keeper_given_back_total',
      help: "require_active_version given back by the worker's lock keeper: left on by a run that was terminated, timed out or could not give it back",
      labelNames: ['template'],
      registers,
    });
    this.coderCalls = new Counter({ name: 'wsmigrate_coder_api_requests_total', help: 'HTTP requests to the Coder API, by route and status class', labelNames: ['method', 'route', 'status_class'], registers });
    this.coderSeconds = new Histogram({
      name: 'wsmigrate_coder_api_request_duration_seconds',
      help: 'Latency of HTTP requests to the Coder API',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.inFlight = opts.inFlight;
    const read = () => (this.inFlight ? this.inFlight() : Promise.resolve(undefined));
    new Gauge({
      name: 'wsmigrate_workspaces_in_flight',
      help: 'Workspace migrations running now, by phase (from Temporal visibility)',
      labelNames: ['phase'],
      registers,
      async collect() {
        const counts = await read();
        this.reset();
        for (const [phase, n] of Object.entries(counts?.byPhase ?? {})) this.set({ phase }, n);
      },
    });
    new Gauge({
      name: 'wsmigrate_approvals_pending',
      help: 'Approval gates waiting for a human now, by gate (from Temporal visibility)',
      labelNames: ['gate'],
      registers,
      async collect() {
        const counts = await read();
        this.reset();
        for (const [gate, n] of Object.entries(counts?.pendingByGate ?? {})) this.set({ gate }, n);
      },
    });
    this.pacingWindow = new Gauge({ name: 'wsmigrate_fleet_pacing_window', help: "Migrations a fleet may run at once, from its share of Coder's provisioner daemons", labelNames: ['template'], registers });
    this.pacingHeld = new Gauge({ name: 'wsmigrate_fleet_waiting_for_provisioners', help: "1 while a fleet starts no new migration because users' builds are queued or no daemon is online", labelNames: ['template'], registers });
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }

  workspaceFinished(outcome: 'migrated' | 'restored' | 'needs-attention'): void {
    this.finished.inc({ outcome });
  }

  approvalDecided(gate: string, decision: 'approve' | 'reject' | 'timed-out', seconds: number): void {
    this.decisionSeconds.observe({ gate, decision }, seconds);
  }

  resourceChangeSeen(kind: ObservedChangeKind, template: string, resourceType: string): void {
    this.changes[kind].inc({ template, resource_type: resourceType });
  }

  deleteBlocked(step: string): void {
    this.blocked.inc({ step });
  }

  damagedWorkspaceFound(reason: string): void {
    this.damaged.inc({ reason });
  }

  activeVersionLockRead(template: string, held: boolean): void {
    this.lockHeld.set({ template }, held ? 1 : 0);
  }

  /** The lock keeper gave back a setting no run held (organization/template). */
  lockKeeperGaveBack(template: string): void {
    this.lockKeeperGivenBack.inc({ template });
  }

  fleetPacing(template: string, width: number, holding: boolean): void {
    this.pacingWindow.set({ template }, width);
    this.pacingHeld.set({ template }, holding ? 1 : 0);
  }

  /** The Coder transport's observer: pass it as CoderClientOptions.observer. */
  readonly observeCoderCall = (call: CoderCall): void => {
    const labels = { method: call.method, route: call.route, status_class: statusClass(call.status) };
    this.coderCalls.inc(labels);
    this.coderSeconds.observe(labels, call.durationMs / 1000);
  };
}
