import { randomUUID } from 'node:crypto';
import { registerScheduleCommands } from '../../src/cli/commands/schedule';
import type { FleetResult } from '../../src/contracts/migrate-fleet';
import { runCommand } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

describe('wsmigrate schedule (Temporal Schedules on the dev server)', () => {
  let env: MigrationEnv;
  let version: string;
  const name = `nightly-${randomUUID().slice(0, 8)}`;
  const savedQueue = process.env.WSMIGRATE_TASK_QUEUE;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 4 });
    await env.startWorker();
    version = (await env.migrateTemplate()).versionId;
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
  });
  afterAll(async () => {
    await runCommand(registerScheduleCommands, 'schedule', 'delete', name).catch(() => undefined);
    process.env.WSMIGRATE_TASK_QUEUE = savedQueue;
    await env?.close();
  });

  const schedule = (...args: string[]) => runCommand(registerScheduleCommands, 'schedule', ...args);
  const describeIt = async () => JSON.parse((await schedule('describe', name, '--json')).out) as { cron: string[]; timezone: string; paused: boolean; recentRuns: { workflowId: string }[]; input: { filters: { limit: number } } };
  const runOf = async (workflowId: string) => (await env.t.client.workflow.getHandle(workflowId).result()) as FleetResult;

  it('--limit is refused on schedule create (a window takes --batch), before connecting', async () => {
    const r = await schedule('create', 'x', '--org', 'coder', '--template', 't', '--version', version, '--cron', '0 2 * * 6', '--batch', '2', '--limit', '5');
    expect(r.exitCode).toBe(2);
    expect(r.err).toMatch(/takes --batch <n> \(migrations per window\), not --limit/);
  });

  it("with Coder's URL and token in the shell, a template, owner or excluded workspace Coder does not know is refused at create (exit 2), no schedule made", async () => {
    const saved = { url: process.env.CODER_URL, token: process.env.CODER_SESSION_TOKEN };
    process.env.CODER_URL = env.sim.url;
    process.env.CODER_SESSION_TOKEN = env.sim.token;
    try {
      const owner = env.sim.workspaces()[0].owner;
      const typo = `typo-${randomUUID().slice(0, 8)}`;
      const r = await schedule('create', typo, '--org', 'coder', '--template', 'no-such-template', '--owner', owner, 'nobody', '--exclude', `${owner}/no-such-ws`, '--cron', '0 2 * * 6', '--batch', '2', '--approval', 'none');
      expect(r.exitCode).toBe(2);
      expect(r.err).toMatch(/has no template 'no-such-template' in organization 'coder' \(--template, --org\), no user 'nobody' \(--owner\), no workspace '\S+\/no-such-ws' \(--exclude\); check the spelling/);
      await expect(schedule('describe', typo)).rejects.toThrow(/no schedule/);
      // The names right: created, and nothing said about names.
      const ok = await schedule('create', typo, '--org', 'coder', '--template', env.sim.template.name, '--version', version, '--owner', owner, '--cron', '0 2 * * 6', '--batch', '2', '--approval', 'none', '--paused');
      expect(ok.exitCode).toBe(0);
      expect(ok.err).not.toMatch(/not checked/);
      await schedule('delete', typo);
    } finally {
      process.env.CODER_URL = saved.url;
      process.env.CODER_SESSION_TOKEN = saved.token;
      if (saved.url === undefined) delete process.env.CODER_URL;
      if (saved.token === undefined) delete process.env.CODER_SESSION_TOKEN;
    }
  }, 60_000);

  it('a triggered window migrates one batch; a trigger while it runs is skipped; the next window continues; no workspace is migrated twice', async () => {
    const created = await schedule(
      'create', name, '--org', 'coder', '--template', env.sim.template.name, '--version', version,
      '--cron', '0 2 * * 6', '--timezone', 'Europe/Berlin', '--batch', '2', '--canary', '0', '--approval', 'none', '--json',
    );
    expect(created.exitCode).toBe(0);
    expect(JSON.parse(created.out)).toEqual({ scheduleId: `wsmigrate-${name}` });
    // Without Coder's URL and token here, it says the names were not checked, and by whom they will be.
    expect(created.err).toMatch(/^note: names not checked \(CODER_URL and CODER_SESSION_TOKEN are not set here\): each window's fleet refuses/);
    const d = await describeIt();
    expect(d).toMatchObject({ cron: ['0 2 * * 6'], timezone: 'Europe/Berlin', paused: false, input: { filters: { limit: 2 } } });
    expect((await schedule('list')).out).toMatch(new RegExp(`wsmigrate-${name}\\s+active\\s+0 2 \\* \\* 6 Europe/Berlin`));

    // Each trigger says what Temporal made of it: the window it started, or the running window it was skipped beside.
    expect((await schedule('trigger', name)).out).toMatch(new RegExp(`^triggered wsmigrate-${name}: window wsmigrate-fleet/coder/${env.sim.template.name}\\S* started$`));
    const second = await schedule('trigger', name);
    expect(second.out).toMatch(new RegExp(`^skipped wsmigrate-${name}: its window wsmigrate-fleet/coder/${env.sim.template.name}\\S* is still running, so this trigger started nothing \\(one window at a time\\); watch it: wsmigrate fleet status wsmigrate-fleet/`));
    expect(second.exitCode).toBe(0);
    await waitFor(async () => (await describeIt()).recentRuns.length >= 1, 30_000);
    const firstId = (await describeIt()).recentRuns[0].workflowId;
    expect(firstId.startsWith(`wsmigrate-fleet/coder/${env.sim.template.name}`)).toBe(true);
    const first = await runOf(firstId);
    expect(first.summary).toMatchObject({ migrated: 2, failed: 0 });
    expect(first.moreRemaining).toBe(true);
    const afterFirst = JSON.parse((await schedule('describe', name, '--json')).out) as { recentRuns: unknown[]; skippedOverlap: number };
    expect(afterFirst.recentRuns).toHaveLength(1); // the second trigger came while the first window ran: skipped
    expect(afterFirst.skippedOverlap).toBe(1);

    await schedule('trigger', name);
    await waitFor(async () => (await describeIt()).recentRuns.some((r) => r.workflowId !== firstId), 30_000);
    const runs = (await describeIt()).recentRuns;
    const last = await runOf(runs[runs.length - 1].workflowId);
    expect(last.summary.migrated + first.summary.migrated + (runs.length === 3 ? (await runOf(runs[1].workflowId)).summary.migrated : 0)).toBe(4);

    // Each workspace's migration ran exactly once across all windows.
    const ids: string[] = [];
    for await (const wf of env.t.client.workflow.list({ query: `WorkflowType = 'migrateWorkspace' AND WsmigrateTemplate = '${env.sim.template.name}'` })) ids.push(wf.workflowId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(env.sim.cluster.pvcLosses()).toEqual([]);

    expect((await schedule('pause', name, '--note', 'freeze')).out).toBe(`paused wsmigrate-${name}`);
    expect((await describeIt()).paused).toBe(true);
    // Paused, no window comes: the cron's next times are not shown as if they would run.
    expect((await schedule('list')).out).toMatch(new RegExp(`wsmigrate-${name}\\s+paused\\s+0 2 \\* \\* 6 Europe/Berlin  next - \\(paused: wsmigrate schedule unpause ${name}\\)$`, 'm'));
    expect((await schedule('describe', name)).out).toMatch(new RegExp(`^  next: none while paused \\(the cron's windows are skipped until 'wsmigrate schedule unpause ${name}'; then \\S+`, 'm'));
    // A second pause keeps the operator's earlier note; a trigger of a paused schedule says it is paused.
    await schedule('pause', name, '--note', 'still frozen');
    expect((JSON.parse((await schedule('describe', name, '--json')).out) as { note: string }).note).toMatch(/^still frozen · earlier: freeze · earlier: wsmigrate fleet coder\//);
    const triggered = await schedule('trigger', name);
    expect(triggered.err).toBe(`note: wsmigrate-${name} is paused; this window runs anyway, the cron's windows stay skipped until 'wsmigrate schedule unpause ${name}'`);
    expect((await schedule('unpause', name)).exitCode).toBe(0);
    expect((await schedule('delete', name)).out).toBe(`deleted wsmigrate-${name}`);
    await expect(schedule('describe', name)).rejects.toThrow(`no schedule 'wsmigrate-${name}'; see 'wsmigrate schedule list'`);
  }, 180_000);
});
