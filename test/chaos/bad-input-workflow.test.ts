import { randomUUID } from 'node:crypto';
import { registerFleetCommands } from '../../src/cli/commands/fleet';
import { registerStateRestoreCommand } from '../../src/cli/commands/state-restore';
import { EXIT } from '../../src/cli/io';
import { migrationStatus, startTemplateMigration, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import type { MigrateWorkspaceInput } from '../../src/domain/migration-input';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { statePutsOf, isWrite } from '../harness/coder-requests';
import { runCommand } from '../harness/cli';
import { failureOf, waitFor } from '../harness/wait';
import { createMigratedEnv, createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';

// Bad workflow inputs, as the CLI sends them (validated by the client before anything starts) and
// as `temporal workflow start` or the Web UI send them (raw JSON, validated by the workflow itself),
// and inputs that name things Coder does not have. Each is refused naming the field or the thing,
// and Coder sees no write at all.
describe('bad input: workflow inputs', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 8 }));
  });
  afterAll(async () => env?.close());

  const ws = (i = 0) => env.sim.workspaces()[i];
  const good = (): MigrateWorkspaceInput => ({ owner: ws().owner, workspace: ws().name, template: env.sim.template.name, targetVersionId, approval: { policy: 'none' } });
  const writes = (since: number) => env.sim.requestLog().slice(since).filter(isWrite);

  /** The CLI's path: the client validates and nothing reaches Temporal or Coder. */
  async function expectClientRefuses(input: unknown, ...messages: RegExp[]) {
    const before = env.sim.requestLog().length;
    const err = await startWorkspaceMigration(env.t.client, input as MigrateWorkspaceInput, { taskQueue: env.taskQueue }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    for (const m of messages) expect(String(err)).toMatch(m);
    expect(env.sim.requestLog().length).toBe(before);
  }

  /** `temporal workflow start --input '…'` or the Web UI: raw JSON straight to the workflow. */
  async function expectWorkflowRefuses(input: unknown, ...messages: RegExp[]) {
    const before = env.sim.requestLog().length;
    const handle = await env.t.client.workflow.start('migrateWorkspace', { taskQueue: env.taskQueue, workflowId: `raw-${randomUUID()}`, args: [input] });
    const msg = await failureOf(handle.result());
    for (const m of messages) expect(msg).toMatch(m);
    expect(env.sim.requestLog().length).toBe(before); // refused before any Coder call
  }

  /** Valid shape, but names something Coder does not have: refused in preflight, nothing written. */
  async function expectPreflightRefuses(input: MigrateWorkspaceInput, ...messages: RegExp[]) {
    const before = env.sim.requestLog().length;
    const msg = await failureOf((await startWorkspaceMigration(env.t.client, input, { taskQueue: env.taskQueue })).result());
    for (const m of messages) expect(msg).toMatch(m);
    expect(writes(before)).toEqual([]);
  }

  it('CLI: a missing owner', async () => {
    const { owner: _, ...rest } = good();
    await expectClientRefuses(rest, /owner: owner is required/);
  });

  it('CLI: a missing template version', async () => {
    const { targetVersionId: _, ...rest } = good();
    await expectClientRefuses(rest, /targetVersionId: targetVersionId must be a template version UUID/);
  });

  it('CLI: a wrong type (option 5, dryRun "yes")', async () => {
    await expectClientRefuses({ ...good(), option: 5, dryRun: 'yes' }, /option: /, /dryRun: /);
  });

  it('CLI: a template version that is not a UUID', async () => {
    await expectClientRefuses({ ...good(), targetVersionId: 'latest' }, /targetVersionId: targetVersionId must be a template version UUID/);
  });

  it('CLI: a build timeout of "soon"', async () => {
    await expectClientRefuses({ ...good(), buildTimeout: 'soon' }, /buildTimeout: use a duration such as '90s', '30m', '2h' or '1d'/);
  });

  it('CLI: an approval timeout of "soon"', async () => {
    await expectClientRefuses({ ...good(), approval: { policy: 'all', timeout: 'soon' } }, /approval\.timeout: use a duration such as/);
  });

  it('CLI: an owner name with a search-query smuggled in', async () => {
    await expectClientRefuses({ ...good(), owner: 'alice template:other' }, /owner: owner may hold letters, digits/);
  });

  it('temporal workflow start: an empty input', async () => {
    await expectWorkflowRefuses({}, /owner: owner is required/, /workspace: workspace is required/, /template: template is required/, /targetVersionId/);
  });

  it('temporal workflow start: wrong types (owner 42, option "C")', async () => {
    await expectWorkflowRefuses({ ...good(), owner: 42, option: 'C' }, /owner: /, /option: /);
  });

  it('temporal workflow start: a heartbeat timeout of "soon"', async () => {
    await expectWorkflowRefuses({ ...good(), heartbeatTimeout: 'soon' }, /heartbeatTimeout: use a duration such as/);
  });

  it('temporal workflow start: a mistyped "dryRun" is refused, not run as a real migration', async () => {
    await expectWorkflowRefuses({ ...good(), dryrun: true }, /dryrun: unknown field: did you mean dryRun\?/);
  });

  it('temporal workflow start: a mistyped nested field (approval.approver)', async () => {
    await expectWorkflowRefuses({ ...good(), approval: { policy: 'all', approver: ['sre'] } }, /approval\.approver: unknown field: did you mean approvers\?/);
  });

  it('CLI: an unknown field', async () => {
    await expectClientRefuses({ ...good(), colour: 'red' }, /colour: unknown field/);
  });

  it('temporal workflow start: no input at all', async () => {
    await expectWorkflowRefuses(null, /input: /);
  });

  it('an unknown template', async () => {
    await expectPreflightRefuses({ ...good(), template: 'no-such-template' }, /uses template '.*', not 'no-such-template'; check the template name/);
  });

  it('an unknown owner', async () => {
    await expectPreflightRefuses({ ...good(), owner: 'nobody-here' }, /nobody-here/, /404|not found|does not exist/i);
  });

  it('an unknown workspace', async () => {
    await expectPreflightRefuses({ ...good(), workspace: 'no-such-ws' }, /no-such-ws/, /404|not found|does not exist/i);
  });

  it('an unknown template version', async () => {
    await expectPreflightRefuses({ ...good(), targetVersionId: randomUUID() }, /preflight failed|preflight refused/, /404|not found|does not exist/i);
  });

  it('a template migration of an unknown template', async () => {
    const before = env.sim.requestLog().length;
    const msg = await failureOf((await startTemplateMigration(env.t.client, { organization: 'coder', template: 'no-such-template', approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result());
    expect(msg).toMatch(/no-such-template/);
    expect(writes(before)).toEqual([]);
  });

  describe('bad input: states (held by Coder)', () => {
    it('Coder holds a state that is not JSON: refused in preflight, nothing pushed or built', async () => {
      const w = ws(1);
      await env.coder.putWorkspaceBuildState((await env.coder.workspace(w.id)).latest_build.id, Buffer.from('{"version": 4, "resources": ['));
      await expectPreflightRefuses({ ...good(), owner: w.owner, workspace: w.name }, /preflight refused for .*: the state of build #\d+ cannot be migrated: The state is not valid JSON/);
    });

    it('restoring a backup of another workspace (another lineage) is refused', async () => {
      const [a, b] = [ws(0), ws(2)];
      const backupOfA = await env.blobs.put(Buffer.from(env.sim.stateOf(a.id)), { kind: 'state-backup' });
      const saved = { ...process.env };
      Object.assign(process.env, { CODER_URL: env.sim.url, CODER_SESSION_TOKEN: env.sim.token, WSMIGRATE_BLOB_DIR: env.blobDir });
      delete process.env.WSMIGRATE_ENCRYPTION_KEY;
      try {
        const before = env.sim.requestLog().length;
        const r = await runCommand(registerStateRestoreCommand, 'state', 'restore', `${b.owner}/${b.name}`, '--backup', backupOfA.ref, '--yes');
        expect(r.exitCode).toBe(EXIT.denied);
        expect(r.err).toMatch(/another workspace's state.*Check the backup ref/);
        expect(writes(before)).toEqual([]);
      } finally {
        process.env = saved;
      }
    });
  });

  describe('bad input: approvals', () => {
    /** A migration of workspace i waiting at its 'apply' gate (approver alice); the test's bad approval must change nothing. */
    async function waitingForApproval(i: number) {
      const w = ws(i);
      const handle = await startWorkspaceMigration(env.t.client, { ...good(), owner: w.owner, workspace: w.name, option: 'B', approval: { policy: 'all', approvers: ['alice'] } }, { taskQueue: env.taskQueue });
      await waitFor(async () => ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId === 'apply');
      const pending = ((await migrationStatus(env.t.client, handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval!;
      return { w, handle, pending };
    }
    async function expectUnchangedThenReject(run: Awaited<ReturnType<typeof waitingForApproval>>) {
      expect(((await migrationStatus(env.t.client, run.handle.workflowId)) as WorkspaceMigrationStatus).pendingApproval?.gateId).toBe('apply');
      expect(await statePutsOf(env.sim, env.coder, run.w.id)).toEqual([]);
      await decide(env.t.client, run.handle.workflowId, 'reject', { approver: 'alice' });
      expect(await failureOf(run.handle.result())).toMatch(/: rejected by alice at the apply gate: nothing built on \S+; restored: state and transition as before$/);
      expect(await statePutsOf(env.sim, env.coder, run.w.id)).toEqual([]);
    }

    it('an approver who is not on the run\'s list', async () => {
      const run = await waitingForApproval(3);
      await expect(decide(env.t.client, run.handle.workflowId, 'approve', { approver: 'mallory' })).rejects.toThrow(/approve refused: 'mallory' is not an approver for this run \(allowed: alice\)/);
      await expectUnchangedThenReject(run);
    });

    it('an approval for a gate that is not pending', async () => {
      const run = await waitingForApproval(4);
      await expect(decide(env.t.client, run.handle.workflowId, 'approve', { approver: 'alice', gateId: 'start', planHash: run.pending.planHash })).rejects.toThrow(/gate 'start' is not the pending gate 'apply'/);
      await expectUnchangedThenReject(run);
    });

    it('an approval of a stale plan hash', async () => {
      const run = await waitingForApproval(5);
      await expect(decide(env.t.client, run.handle.workflowId, 'approve', { approver: 'alice', gateId: 'apply', planHash: `sha256:${'0'.repeat(64)}` })).rejects.toThrow(/does not match the pending plan.*re-read the status/);
      await expectUnchangedThenReject(run);
    });

    it('an approval with an empty approver name', async () => {
      const run = await waitingForApproval(6);
      await expect(decide(env.t.client, run.handle.workflowId, 'approve', { approver: ' ' })).rejects.toThrow(/approver is required/);
      await expectUnchangedThenReject(run);
    });

    it('an approval replayed after the run ended', async () => {
      const run = await waitingForApproval(7);
      await expectUnchangedThenReject(run);
      await expect(decide(env.t.client, run.handle.workflowId, 'approve', { approver: 'alice', gateId: 'apply', planHash: run.pending.planHash })).rejects.toThrow(/approve refused: .* has already finished, so nothing is waiting for an approval/);
      expect(await statePutsOf(env.sim, env.coder, run.w.id)).toEqual([]);
    });
  });

  /** `wsmigrate fleet start`: refused before anything reaches Temporal or Coder. */
  async function expectFleetRefuses(concurrency: string) {
    const before = env.sim.requestLog().length;
    const r = await runCommand(registerFleetCommands, 'fleet', 'start', '--org', 'coder', '--template', env.sim.template.name, '--version', targetVersionId, '--approver', 'sre', '--concurrency', concurrency);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/concurrency must be 1\.\.200/);
    expect(env.sim.requestLog().length).toBe(before);
    await expect(env.t.client.workflow.getHandle(`wsmigrate-fleet/coder/${env.sim.template.name}`).describe()).rejects.toThrow(/not found/i);
  }

  it('fleet: concurrency 0 is refused naming the field', async () => expectFleetRefuses('0'));
  it('fleet: concurrency 10,000 is refused naming the limit', async () => expectFleetRefuses('10000'));
});

describe('bad input: Coder answers (a buildinfo version that does not parse)', () => {
  let env: MigrationEnv;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, version: 'banana-build' });
    await env.startWorker();
  });
  afterAll(async () => env?.close());

  it('an unparsable buildinfo version is refused in preflight at once (no retries), saying what was expected, nothing written', async () => {
    const w = env.sim.workspaces()[0];
    const before = env.sim.requestLog().length;
    const started = Date.now();
    const msg = await failureOf(
      (await startWorkspaceMigration(env.t.client, { owner: w.owner, workspace: w.name, template: env.sim.template.name, targetVersionId: env.sim.template.activeVersionId, approval: { policy: 'none' } }, { taskQueue: env.taskQueue })).result(),
    );
    expect(msg).toMatch(/preflight refused .*Cannot read the Coder version "banana-build": expected vMAJOR\.MINOR\.PATCH/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  });
});
