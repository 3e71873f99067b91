import { randomUUID } from 'node:crypto';
import { registerScheduleCommands } from '../../src/cli/commands/schedule';
import type { OrganizationResult } from '../../src/contracts/migrate-organization';
import { runCommand } from '../harness/cli';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { exclusiveFile, ORG_CODER_LOCK } from '../harness/exclusive';

// The organization run wsmigrate-org/coder and schedules of organization coder: one such file at a time.
exclusiveFile(ORG_CODER_LOCK);

describe('wsmigrate schedule create --all-templates: windows for a whole organization', () => {
  let env: MigrationEnv;
  const name = `org-nightly-${randomUUID().slice(0, 8)}`;
  const gpu = uniqueTaskQueue('gpu');
  const savedQueue = process.env.WSMIGRATE_TASK_QUEUE;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2, moreTemplates: [{ name: gpu, workspaces: 2 }, { name: 'team-tools', workspaces: 1, versioned: true }] });
    await env.startWorker();
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
  });
  afterAll(async () => {
    await runCommand(registerScheduleCommands, 'schedule', 'delete', name).catch(() => undefined);
    process.env.WSMIGRATE_TASK_QUEUE = savedQueue;
    await env?.close();
  });
  const schedule = (...args: string[]) => runCommand(registerScheduleCommands, 'schedule', ...args);

  it('a window runs migrateOrganization: --batch migrations per template, the _v1 template left alone', async () => {
    const created = await schedule('create', name, '--org', 'coder', '--all-templates', '--cron', '0 2 * * 6', '--batch', '1', '--canary', '0', '--approval', 'none', '--json');
    expect(created.exitCode).toBe(0);
    expect((await schedule('trigger', name)).exitCode).toBe(0);
    let runId = '';
    await waitFor(async () => {
      const d = JSON.parse((await schedule('describe', name, '--json')).out) as { recentRuns: { workflowId: string }[] };
      runId = d.recentRuns[0]?.workflowId ?? '';
      return runId !== '';
    }, 30_000);
    expect(runId.startsWith('wsmigrate-org/coder')).toBe(true);
    const result = (await env.t.client.workflow.getHandle(runId).result()) as OrganizationResult;
    expect(result.nothingToDo).toEqual(['team-tools']);
    expect(result.templates.filter((t) => t.state === 'done').map((t) => [t.template, t.summary?.migrated]).sort()).toEqual(
      [
        [env.sim.template.name, 1],
        [gpu, 1],
      ].sort(),
    );
  }, 180_000);

  it('refuses --version with --all-templates, saying why', async () => {
    const r = await schedule('create', `${name}-x`, '--org', 'coder', '--all-templates', '--version', randomUUID(), '--cron', '0 2 * * 6', '--batch', '1');
    expect(r.exitCode).toBe(2);
    expect(r.err).toMatch(/--version names one template's _v1 version/);
  });
});
