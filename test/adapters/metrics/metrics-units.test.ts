import { ApplicationFailure } from '@temporalio/common';
import { meterActivities } from '../../../src/activities/metered';
import { routeOf, statusClass } from '../../../src/adapters/coder/call-observer';
import { PrometheusMetrics } from '../../../src/adapters/metrics/prometheus-metrics';
import { ReadinessProbe } from '../../../src/adapters/metrics/readiness';
import { FailureType } from '../../../src/domain/failure-types';

describe('Coder call labels', () => {
  it.each([
    ['/buildinfo', '/buildinfo'],
    ['/users/alice/workspace/dev', '/users/:id/workspace/:id'],
    ['/workspaces/0b1c2d3e-0000-4000-8000-000000000000/builds', '/workspaces/:id/builds'],
    ['/workspacebuilds/b1/state', '/workspacebuilds/:id/state'],
    ['/organizations/coder/templates/k8s-dev', '/organizations/:id/templates/:id'],
    ['/templates/t1/versions/v2', '/templates/:id/versions/:id'],
  ])('%s is labelled %s (no names or ids)', (path, route) => expect(routeOf(path)).toBe(route));

  it('classes statuses, with network failures apart', () => {
    expect([200, 204, 404, 503, 0].map(statusClass)).toEqual(['2xx', '2xx', '4xx', '5xx', 'network']);
  });
});

describe('readiness', () => {
  it('is ready only while every check succeeded within the last minute, and says which one is stale', async () => {
    let now = 1_000_000;
    let coderUp = true;
    const probe = new ReadinessProbe(
      [
        { name: 'temporal', check: async () => undefined },
        {
          name: 'coder',
          check: async () => {
            if (!coderUp) throw new Error('ECONNREFUSED\nstack');
          },
        },
      ],
      { now: () => now, maxAgeMs: 60_000 },
    );
    expect(probe.report().ready).toBe(false); // nothing answered yet
    await probe.runOnce();
    expect(probe.report()).toMatchObject({ ready: true, checks: { temporal: { ok: true }, coder: { ok: true } } });
    coderUp = false;
    now += 30_000;
    await probe.runOnce();
    expect(probe.report().ready).toBe(true); // 30s old is still recent
    now += 31_000;
    await probe.runOnce();
    expect(probe.report()).toMatchObject({ ready: false, checks: { temporal: { ok: true }, coder: { ok: false, error: 'ECONNREFUSED', lastSuccessAgoSeconds: 61 } } });
  });
});

describe('metrics recorded from activities', () => {
  const value = async (m: PrometheusMetrics, name: string, labels: Record<string, string>) =>
    (await m.registry.getSingleMetric(name)?.get())?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;

  it('counts outcomes from final notifications, blocked deletes from denied verifications, damage from data-loss failures', async () => {
    const m = new PrometheusMetrics({ processMetrics: false });
    const acts = meterActivities(
      {
        notify: async (_n: unknown) => ({ delivered: true }),
        verifyMigration: async () => ({ verdict: 'deny' }),
        postBuildCheck: async () => {
          throw ApplicationFailure.create({ message: 'lost', type: FailureType.dataLoss, nonRetryable: true });
        },
      },
      m,
    );
    await acts.notify({ kind: 'migration-done', workflowId: 'w', subject: 's', text: 't' });
    await acts.notify({ kind: 'restored', workflowId: 'w2', subject: 's', text: 't' });
    const requestedAt = new Date(Date.now() - 120_000).toISOString();
    await acts.notify({ kind: 'approval-closed', workflowId: 'w', gateId: 'apply', requestedAt, decision: { decision: 'reject' }, subject: 's', text: 't' });
    await acts.verifyMigration();
    await expect(acts.postBuildCheck()).rejects.toThrow('lost');
    expect(await value(m, 'wsmigrate_workspaces_finished_total', { outcome: 'migrated' })).toBe(1);
    expect(await value(m, 'wsmigrate_workspaces_finished_total', { outcome: 'restored' })).toBe(1);
    expect(await value(m, 'wsmigrate_workspaces_finished_total', { outcome: 'needs-attention' })).toBeUndefined();
    expect(await value(m, 'wsmigrate_guard_blocked_deletes_total', { step: 'verify' })).toBe(1);
    expect(await value(m, 'wsmigrate_damaged_workspaces_total', { reason: 'volume-lost' })).toBe(1);
    const text = await m.registry.metrics();
    expect(text).toMatch(/wsmigrate_approval_decision_seconds_sum\{gate="apply",decision="reject"\} 1[12]\d/);
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line.startsWith('wsmigrate_')).toBe(true);
  });

  it('the template lock gauge: 1 while require-active-version holds, back to 0 once the fleet gives it back', async () => {
    const m = new PrometheusMetrics({ processMetrics: false });
    const acts = meterActivities({ requireActiveVersion: async (_i: unknown) => ({ state: 'switched-on' }), releaseActiveVersion: async (_i: unknown) => 'switched-off' }, m);
    await acts.requireActiveVersion({ template: 'k8s-dev' });
    expect(await value(m, 'wsmigrate_template_active_version_held', { template: 'k8s-dev' })).toBe(1);
    await acts.releaseActiveVersion({ template: 'k8s-dev' });
    expect(await value(m, 'wsmigrate_template_active_version_held', { template: 'k8s-dev' })).toBe(0);
  });

  it("a fleet's paced window and whether it waits for the provisioners, per template", async () => {
    const m = new PrometheusMetrics({ processMetrics: false });
    m.fleetPacing('k8s-dev', 4, true);
    m.fleetPacing('k8s-gpu', 2, false);
    m.fleetPacing('k8s-dev', 4, false);
    expect(await value(m, 'wsmigrate_fleet_pacing_window', { template: 'k8s-dev' })).toBe(4);
    expect(await value(m, 'wsmigrate_fleet_waiting_for_provisioners', { template: 'k8s-dev' })).toBe(0);
    expect(await value(m, 'wsmigrate_fleet_pacing_window', { template: 'k8s-gpu' })).toBe(2);
  });

  it('counts only what each outcome means: a gate timed out or closed without its own timestamp, an allowed verification, a failure that is no data loss, a lock already on', async () => {
    const m = new PrometheusMetrics({ processMetrics: false });
    let verdict = 'allow';
    let failure: Error = ApplicationFailure.create({ message: 'busy', type: FailureType.busy });
    const lock = { state: 'already-on' };
    const acts = meterActivities(
      {
        notify: async (_n: unknown) => ({ delivered: true }),
        verifyMigration: async () => ({ verdict }),
        postBuildCheck: async () => Promise.reject(failure),
        requireActiveVersion: async (_i: unknown) => lock,
        releaseActiveVersion: async (_i: unknown) => 'was-off',
        startPinned: async (x: unknown) => ({ echoed: x }),
      },
      m,
    );
    // The request seen here, then a close that carries no requestedAt: timed from the request this worker saw.
    await acts.notify({ kind: 'approval-requested', workflowId: 'w', gateId: 'apply', requestedAt: new Date(Date.now() - 30_000).toISOString(), subject: 's', text: 't' });
    await acts.notify({ kind: 'approval-closed', workflowId: 'w', gateId: 'apply', subject: 's', text: 't' });
    // Another workflow's gate of the same name, timed out; and a close nobody saw open is not timed at all.
    await acts.notify({ kind: 'approval-requested', workflowId: 'w2', gateId: 'apply', subject: 's', text: 't' });
    await acts.notify({ kind: 'approval-timed-out', workflowId: 'w2', gateId: 'apply', subject: 's', text: 't' });
    await acts.notify({ kind: 'approval-closed', workflowId: 'w3', gateId: 'recover', subject: 's', text: 't' });
    await acts.verifyMigration();
    await expect(acts.postBuildCheck()).rejects.toThrow('busy');
    failure = new Error('plain');
    await expect(acts.postBuildCheck()).rejects.toThrow('plain');
    await acts.requireActiveVersion({ template: 'k8s-dev' });
    expect(await value(m, 'wsmigrate_template_active_version_held', { template: 'k8s-dev' })).toBe(1);
    await acts.releaseActiveVersion({ template: 'k8s-dev' });
    expect(await value(m, 'wsmigrate_template_active_version_held', { template: 'k8s-dev' })).toBe(0);
    lock.state = 'not-held';
    await acts.requireActiveVersion({ template: 'k8s-gpu' });
    expect(await value(m, 'wsmigrate_template_active_version_held', { template: 'k8s-gpu' })).toBe(0);
    expect(await acts.startPinned({ a: 1 })).toEqual({ echoed: { a: 1 } });
    expect(await value(m, 'wsmigrate_guard_blocked_deletes_total', { step: 'verify' })).toBeUndefined();
    expect(await value(m, 'wsmigrate_damaged_workspaces_total', { reason: 'volume-lost' })).toBeUndefined();
    expect(await value(m, 'wsmigrate_workspaces_finished_total', { outcome: 'migrated' })).toBeUndefined();
    const text = await m.registry.metrics();
    expect(text).toMatch(/wsmigrate_approval_decision_seconds_sum\{gate="apply",decision="approve"\} (29|3\d)(\.\d+)?\n/);
    expect(text).toMatch(/wsmigrate_approval_decision_seconds_count\{gate="apply",decision="timed-out"\} 1\n/);
    expect(text).toMatch(/wsmigrate_approval_decision_seconds_sum\{gate="apply",decision="timed-out"\} 0(\.\d+)?\n/);
    expect(text).not.toMatch(/gate="recover"/);
    verdict = 'deny';
    await acts.verifyMigration();
    expect(await value(m, 'wsmigrate_guard_blocked_deletes_total', { step: 'verify' })).toBe(1);
  });

  it('a metrics hook that throws never changes what the activity returns', async () => {
    const broken = {
      workspaceFinished: () => {
        throw new Error('boom');
      },
    } as never;
    const acts = meterActivities({ notify: async (_n: unknown) => ({ delivered: true }) }, broken);
    await expect(acts.notify({ kind: 'migration-done' })).resolves.toEqual({ delivered: true });
  });
});
