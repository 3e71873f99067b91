import { randomUUID } from 'node:crypto';
import { EXIT } from '../../src/cli/io';
import { api } from '../sim/helpers';
import { runMain } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

/**
 * The workspace run's preflight when Coder answers 500 to it: Temporal retries the step, and
 * `wsmigrate status` says so (attempt, last error, next attempt) instead of showing a bare
 * "preflight" for minutes. It used to be a local activity, whose retries describe() never lists.
 */
describe('status of a migration whose preflight Temporal is retrying', () => {
  let env: MigrationEnv;
  let version: string;
  const saved = { ...process.env };
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4 });
    await env.startWorker();
    version = (await env.migrateTemplate()).versionId;
    Object.assign(process.env, { WSMIGRATE_TASK_QUEUE: env.taskQueue });
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await env?.close();
  });

  it('Coder answering 500: status names the step, its attempt, the last error (no token) and when the next attempt is; the run goes on once Coder answers', async () => {
    const ws = env.sim.workspaces()[0];
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    // The preflight's first request is /buildinfo: every answer to it fails until the faults are lifted.
    env.sim.setFaults({ error500Rate: 1, includeBuildInfo: true, only: ['/buildinfo'] });
    let out = '';
    try {
      expect((await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', env.sim.template.name, '--version', version, '--approval', 'none')).exitCode).toBe(EXIT.ok);
      await waitFor(async () => {
        out = (await runMain('status', id)).out;
        return /preflightAndAssess is being retried \(attempt [2-9]/.test(out);
      }, 90_000);
    } finally {
      env.sim.setFaults(undefined);
    }
    expect(out).toMatch(new RegExp(`^${id}: preflight\\n`));
    expect(out).toMatch(
      /waiting on: step preflightAndAssess is being retried \(attempt \d+ of 10\): last error: preflight failed for .+: .*500.*; next attempt at \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ s\)/,
    );
    expect(out).not.toContain(env.sim.token);
    await env.t.client.workflow.getHandle(id).result();
    const end = (await runMain('status', id)).out;
    expect(end).toMatch(new RegExp(`^${id}: migrated\\n`));
    expect(end).not.toMatch(/waiting on/);
    // The failed local attempt, then the retries as an activity: both in the history.
    const events = (await env.t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'preflightAndAssess')).toBe(true);
  }, 180_000);

  it('a preflight that succeeds at once stays one local-activity marker: no activity events in the history (the cost of a fleet)', async () => {
    const ws = env.sim.workspaces()[1];
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    expect((await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', env.sim.template.name, '--version', version, '--approval', 'none')).exitCode).toBe(EXIT.ok);
    await env.t.client.workflow.getHandle(id).result();
    const events = (await env.t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'preflightAndAssess')).toEqual([]);
    const markerText = (e: (typeof events)[number]) =>
      Object.values(e.markerRecordedEventAttributes?.details ?? {}).flatMap((p) => p.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join(' ');
    expect(events.filter((e) => e.markerRecordedEventAttributes && markerText(e).includes('"preflightAndAssess"'))).toHaveLength(1);
  }, 120_000);

  it('a preflight refused for good (a running dormant workspace) is asked once: the run fails with the refusal, no retries as an activity', async () => {
    const ws = env.sim.workspaces()[2];
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    expect((await api(env.sim, 'PUT', `/workspaces/${ws.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    expect((await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', env.sim.template.name, '--version', version, '--approval', 'none')).exitCode).toBe(EXIT.ok);
    await expect(env.t.client.workflow.getHandle(id).result()).rejects.toMatchObject({ cause: { type: 'WsmigrateDormant' } });
    const events = (await env.t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    // Retried as a regular activity, the same refusal would come back after one more read of Coder and the state.
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'preflightAndAssess')).toEqual([]);
    expect((await env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', job: { status: 'succeeded' } });
  }, 120_000);

  it('a version Coder does not know (404, final but no refusal of ours) is asked once too: the run fails naming it, no retries as an activity, nothing stopped', async () => {
    const ws = env.sim.workspaces()[3];
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    const unknown = randomUUID();
    const buildsBefore = (await env.coder.workspaceBuilds(ws.id)).length;
    expect((await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', env.sim.template.name, '--version', unknown, '--approval', 'none')).exitCode).toBe(EXIT.ok);
    const failure = await env.t.client.workflow.getHandle(id).result().then(
      () => undefined,
      (err: unknown) => err as { cause?: { type?: string; message?: string; nonRetryable?: boolean } },
    );
    // Coder's 404 is final (marked non-retryable) without being one of wsmigrate's refusal types.
    expect(failure?.cause).toMatchObject({ type: expect.stringMatching(/^CoderApi\./), nonRetryable: true });
    expect(failure?.cause?.message).toContain(unknown);
    const events = (await env.t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'preflightAndAssess')).toEqual([]);
    expect(await env.coder.workspaceBuilds(ws.id)).toHaveLength(buildsBefore);
  }, 120_000);
});
