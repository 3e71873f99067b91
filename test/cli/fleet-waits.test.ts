import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { EXIT } from '../../src/cli/io';
import type { FleetStatus } from '../../src/client/fleet';
import { runMain } from '../harness/cli';
import { waitFor } from '../harness/wait';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

/** What an SRE reads in `fleet status` while a fleet waits: on whom, on what, and what ends the wait. */
describe('a fleet says what it waits on', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });
  const status = async (id: string) => JSON.parse((await runMain('fleet', 'status', id, '--json')).out) as FleetStatus;
  const startFleet = async (env: MigrationEnv, ...args: string[]) => {
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
    const r = await runMain('fleet', 'start', '--org', 'coder', '--template', env.sim.template.name, '--approver', 'sre', '--no-archive', '--json', ...args);
    expect(r.exitCode).toBe(EXIT.ok);
    return (JSON.parse(r.out) as { workflowId: string }).workflowId;
  };

  describe('Coder unreachable', () => {
    let env: MigrationEnv;
    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 1 });
      await env.startWorker();
    }, 120_000);
    afterAll(async () => env?.close());

    it('an activity retrying against a dead Coder shows with its attempt and last error, in status and in the line', async () => {
      env.sim.setFaults({ dropConnectionRate: 1 });
      const id = await startFleet(env, '--canary', '0', '--approval', 'none');
      try {
        await waitFor(async () => (await status(id)).waitingOn?.some((w) => w.kind === 'retrying' && w.attempt >= 2) ?? false, 90_000);
        const text = (await runMain('fleet', 'status', id)).out;
        expect(text).toMatch(new RegExp(`waits on \\w+ of wsmigrate-template/coder/${env.sim.template.name}, retrying: attempt \\d+( of \\d+)?, last error: .*no answer from http://127\\.0\\.0\\.1:\\d+`));
        expect(text).toMatch(/^ {2}running \(template\): .* · \w+ retrying \(attempt \d+/m);
      } finally {
        env.sim.setFaults(undefined);
        await env.t.client.workflow.getHandle(id).terminate('test over');
      }
    }, 150_000);
  });

  describe('at gates', () => {
    let env: MigrationEnv;
    let version: string;
    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 2 });
      await env.startWorker();
      version = (await env.migrateTemplate()).versionId;
    }, 120_000);
    afterAll(async () => env?.close());

    it('Ctrl-C of --wait says the fleet goes on and how to re-attach; its gate shows the id and the exact approve command, no ETA; a cancel there answers at once', async () => {
      // Started as a user would, from a shell: `wsmigrate fleet start … --wait`, then Ctrl-C at the gate.
      const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, 'fleet', 'start', '--org', 'coder', '--template', env.sim.template.name, '--approver', 'sre', '--no-archive', '--version', version, '--canary', '1', '--wait'], {
        cwd: ROOT,
        env: { ...process.env, WSMIGRATE_TASK_QUEUE: env.taskQueue, WSMIGRATE_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await waitFor(() => stdout.includes("waiting for approval of 'fleet-continue'"), 120_000);
      const id = stdout.split('\n')[0];
      // The exact command for this gate and plan, so the approval cannot land on a later gate.
      const approveCommand = new RegExp(`wsmigrate approve ${id} --approver <you> --gate fleet-continue --plan canary:[0-9a-f]{8}`);
      expect(stdout).toMatch(approveCommand);
      expect((await runMain('status', id)).out).toMatch(approveCommand);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`stopped waiting; ${id} goes on in Temporal (Ctrl-C does not cancel it).\n  re-attach: wsmigrate fleet status ${id} --wait`);
      expect((await status(id)).phase).toBe('awaiting-approval');

      const s = await status(id);
      expect(s.progress?.etaMs).toBeUndefined();
      expect(s.waitingOn).toContainEqual(expect.objectContaining({ kind: 'gate', gateId: 'fleet-continue' }));
      const text = (await runMain('fleet', 'status', id)).out;
      expect(text).toContain(`wsmigrate approve ${id} --approver <you>`);
      expect(text).not.toMatch(/ETA/);
      expect(text).toMatch(/· awaiting 'fleet-continue'/);

      const cancelled = await runMain('fleet', 'cancel', id, '--by', 'sre', '--reason', 'wrong version');
      expect(cancelled.exitCode).toBe(EXIT.ok);
      // At once: no approval needed, no approval timeout (4h) to wait out.
      // Ended, and its summary still reads (Temporal keeps no result for a cancelled run).
      await waitFor(async () => (await status(id)).result?.phase === 'cancelled', 30_000);
      expect((await status(id)).result?.summary.migrated).toBe(1);
      expect((await runMain('fleet', 'status', id)).out).toMatch(/^fleet cancelled by sre \(wrong version\) \(more workspaces remain for a later run\)$/m);
      // The Web UI says cancelled everywhere: its badge (how the run ended), search attributes, memo as fields.
      const described = await env.t.client.workflow.getHandle(id).describe();
      expect(described.status.name).toBe('CANCELLED');
      expect(described.searchAttributes.WsmigratePhase).toEqual(['cancelled']);
      expect(described.memo).toMatchObject({ outcome: 'cancelled', migrated: 1 });
      // Its current details say CANCELLED, by whom and why.
      const details = (await env.t.client.workflow.getHandle(id).query<{ currentDetails?: string }>('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(details.currentDetails).toMatch(/^### Fleet coder\/.* · CANCELLED by sre \(wrong version\)/);
      // Nothing more will start: no ETA on an ended fleet.
      expect(details.currentDetails).not.toMatch(/ETA/);
    }, 150_000);
  });

  describe('paused', () => {
    let env: MigrationEnv;
    let version: string;
    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 1, provisioners: 1 });
      await env.startWorker();
      version = (await env.migrateTemplate()).versionId;
    }, 120_000);
    afterAll(async () => env?.close());

    it('says who paused it, why and since when, and the resume command: not the daemons it waited on before', async () => {
      env.sim.setDaemonOffline('sim-provisioner-1', true);
      const id = await startFleet(env, '--version', version, '--canary', '0', '--approval', 'none');
      try {
        await waitFor(async () => Boolean((await status(id)).progress?.pacing?.waiting), 60_000);
        expect((await runMain('fleet', 'pause', id, '--by', 'sre', '--reason', 'lunch')).exitCode).toBe(EXIT.ok);
        await waitFor(async () => (await status(id)).phase === 'paused', 30_000);
        const text = (await runMain('fleet', 'status', id)).out;
        expect(text).toMatch(new RegExp(`^ {2}paused by sre \\(lunch\\) since \\S+: no new migration starts until it is resumed: wsmigrate fleet resume ${id} --by <you>$`, 'm'));
        expect(text).toMatch(/^ {2}paused \(rolling\): .* · paused by sre$/m);
        expect(text).not.toMatch(/^ {2}paused \(rolling\): .*no provisioner daemon is online/m);
        expect(text).not.toMatch(/ETA/);
      } finally {
        env.sim.setDaemonOffline('sim-provisioner-1', false);
        await env.t.client.workflow.getHandle(id).terminate('test over');
      }
    }, 150_000);
  });

  describe('a child waiting at recover', () => {
    let env: MigrationEnv;
    let version: string;
    beforeAll(async () => {
      env = await createMigrationEnv({ workspaces: 1 });
      await env.startWorker();
      version = (await env.migrateTemplate()).versionId;
    }, 120_000);
    afterAll(async () => env?.close());

    it('shows as awaiting approval with the child\'s approve command and no ETA; the outcome counts it recovered, its PVC uid kept', async () => {
      const damaged = env.sim.workspaces()[0];
      const { startBuildId } = await env.sim.updateAndRestart(damaged.id);
      expect((await env.coder.waitForBuild(startBuildId)).job.status).toBe('failed');
      const childId = `wsmigrate/${env.sim.template.name}/${damaged.owner}/${damaged.name}`;

      // Its workspaces' destructive gates asked: a plain repair under policy none would ask no one.
      const id = await startFleet(env, '--version', version, '--canary', '0', '--approval', 'none', '--workspace-approval', 'destructive', '--concurrency', '1');
      await waitFor(async () => (await status(id)).waitingOn?.some((w) => w.kind === 'child-gate' && w.gateId === 'recover') ?? false, 90_000);
      const s = await status(id);
      expect(s.phase).toBe('awaiting-approval');
      expect(s.progress?.etaMs).toBeUndefined();
      const text = (await runMain('fleet', 'status', id)).out;
      // On whom: the child's approvers (the fleet's, passed down), read from the child's own gate.
      expect(text).toContain(`${childId} waits for 'recover': wsmigrate approve ${childId} --approver <you> (approvers: sre)`);
      expect(text).not.toMatch(/ETA/);

      // `--wait` says which child waits, at which gate, with the command, before the person acts.
      const { main } = await import('../../src/cli/main');
      const lines: string[] = [];
      const waiting = main(['fleet', 'status', id, '--wait'], { out: (t) => lines.push(t), err: (t) => lines.push(t) });
      await waitFor(() => lines.some((l) => l.startsWith(`waits for ${childId} at 'recover'`) && l.endsWith(`: wsmigrate approve ${childId} --approver <you> (approvers: sre)`)), 30_000);
      expect((await runMain('approve', childId, '--approver', 'sre')).exitCode).toBe(EXIT.ok);
      expect(await waiting).toBe(EXIT.ok);
      const waited = { out: lines.join('\n') };
      expect(waited.out).toMatch(/^migrated\s+1$/m);
      expect(waited.out).toMatch(/^ {2}of them recovered\s+1$/m);
      expect(waited.out).toMatch(/^PVC uids kept\s+1$/m);
      expect(env.sim.cluster.pvcLosses()).toEqual([]);
    }, 180_000);
  });
});
