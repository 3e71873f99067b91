import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { uniqueTaskQueue } from '../harness/temporal';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

/**
 * `wsmigrate status` of a running migration says on whom it waits when that is no gate: no worker
 * on its task queue (the query used to hang 30 s and end with `4 DEADLINE_EXCEEDED: query timed
 * out before a worker could process it`, exit 1) (it also lists a step Temporal is
 * retrying, and a started step whose worker went quiet, from the run's pending activities).
 */
describe('status of a running migration that waits on no person', () => {
  const cli = cliAgainstWorker(2);

  it('no worker on its task queue: says so at once, naming the queue and what to start, exit 0', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    // An SRE whose WSMIGRATE_TASK_QUEUE is not the worker's: the run is accepted and nothing runs it.
    const queue = uniqueTaskQueue('no-worker');
    process.env.WSMIGRATE_TASK_QUEUE = queue;
    try {
      const started = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'none');
      expect(started.exitCode).toBe(EXIT.ok);
      const t0 = Date.now();
      const s = await runMain('status', id);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.exitCode).toBe(EXIT.ok);
      expect(s.out).toMatch(new RegExp(`^${id}: running\\n  waiting on: no worker is polling task queue '${queue}' \\(none has polled it recently\\), so the run does not move .*start one with 'wsmigrate worker' \\(same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and WSMIGRATE_TASK_QUEUE\\); the run resumes where it stopped`));
      expect(s.out).not.toMatch(/DEADLINE_EXCEEDED/);
      const json = JSON.parse((await runMain('status', id, '--json')).out) as { waitingOn: string[] };
      expect(json.waitingOn[0]).toMatch(/^no worker is polling task queue/);
    } finally {
      process.env.WSMIGRATE_TASK_QUEUE = cli.env.taskQueue;
      await cli.env.t.client.workflow.getHandle(id).terminate('test: no worker on its queue');
    }
  }, 120_000);
});

describe("status of a migration whose build waits in Coder's provisioner queue", () => {
  let env: MigrationEnv;
  let version: string;
  const saved = { ...process.env };
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, provisioners: 1 });
    await env.startWorker();
    version = (await env.migrateTemplate()).versionId;
    Object.assign(process.env, { WSMIGRATE_TASK_QUEUE: env.taskQueue, CODER_URL: env.sim.url, CODER_SESSION_TOKEN: env.sim.token });
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await env?.close();
  });

  it("the daemon offline: with Coder's URL and token in the shell, status names the pending build, its place in the queue and what to check; the run then goes on", async () => {
    const ws = env.sim.workspaces()[0];
    const id = `wsmigrate/${env.sim.template.name}/${ws.owner}/${ws.name}`;
    env.sim.setDaemonOffline('sim-provisioner-1', true);
    try {
      expect((await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', env.sim.template.name, '--version', version, '--approval', 'none')).exitCode).toBe(EXIT.ok);
      let out = '';
      await waitFor(async () => {
        out = (await runMain('status', id)).out;
        return /waiting on: Coder's build/.test(out);
      }, 60_000);
      expect(out).toMatch(
        new RegExp(`^${id}: stopping\\n(.*\\n)*  waiting on: Coder's build #\\d+ \\(stop by \\S+\\) of ${ws.owner}/${ws.name} has been pending for \\d+ s at place 1 of 1 in the queue: no provisioner daemon has taken it yet\\. Check Coder's provisioner daemons \\(Deployment → Provisioners, or 'coder provisioner list'\\)`),
      );
      // Without Coder's URL in the shell nothing is read from Coder (and nothing is guessed).
      const bare = { url: process.env.CODER_URL, token: process.env.CODER_SESSION_TOKEN };
      delete process.env.CODER_URL;
      delete process.env.CODER_SESSION_TOKEN;
      expect((await runMain('status', id)).out).not.toMatch(/Coder's build/);
      Object.assign(process.env, { CODER_URL: bare.url, CODER_SESSION_TOKEN: bare.token });
    } finally {
      env.sim.setDaemonOffline('sim-provisioner-1', false);
    }
    await env.t.client.workflow.getHandle(id).result();
    const end = (await runMain('status', id)).out;
    expect(end).toMatch(new RegExp(`^${id}: migrated\\n`));
    expect(end).not.toMatch(/waiting on/);
  }, 180_000);
});
