import { ApplicationFailure } from '@temporalio/common';
import { describeError, EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { isWrite } from '../harness/coder-requests';
import { cliAgainstWorker } from '../harness/cli-env';
import { createMigrationEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { unpackTar } from '../../src/sim';
import { pushTemplateVersion } from '../sim/helpers';
import { exclusiveFile, ORG_CODER_LOCK } from '../harness/exclusive';

// The organization run wsmigrate-org/coder and schedules of organization coder: one such file at a time.
exclusiveFile(ORG_CODER_LOCK);

describe('the final message of a failed command is the reason, never a stack trace', () => {
  it('says every message of the chain and each detail an ApplicationFailure carries (details is an array)', () => {
    const inner = ApplicationFailure.create({ message: 'backup unreadable: sha256 mismatch', type: 'WsmigrateBlobUnreadable', details: [{ store: 'file:/b', key: 'k1' }, 'retry after fixing the store'] });
    const wrapped = new Error('Workflow execution failed', { cause: inner });
    expect(describeError(wrapped)).toBe('backup unreadable: sha256 mismatch: store=file:/b, key=k1: retry after fixing the store');
    // An empty details array (what ApplicationFailure.create leaves) is no reason to crash.
    expect(describeError(ApplicationFailure.create({ message: 'refused' }))).toBe('refused');
    expect(describeError('plain text')).toBe('plain text');
  });
});

describe('a failed run through the CLI, as an SRE meets it', () => {
  const cli = cliAgainstWorker(2);

  it('recover --wait of an unmigrated workspace ends with the run\'s refusal (exit 3), and status says failed and why', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    const r = await runMain('recover', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--any-approver', '--wait');
    expect(r.err).not.toMatch(/TypeError|\n\s+at /);
    expect(r.err).toMatch(new RegExp(`^wsmigrate: ${id} failed: recover refused for ${ws.owner}/${ws.name}: it is unmigrated .*use 'wsmigrate migrate workspace'`));
    expect(r.err).toContain(`wsmigrate status ${id}`);
    expect(r.exitCode).toBe(EXIT.denied);

    const shown = await runMain('status', id);
    expect(shown.exitCode).toBe(EXIT.ok);
    expect(shown.out).toMatch(new RegExp(`^${id}: failed \\(during preflight\\)\\n  reason: recover refused for .*it is unmigrated`));
    const json = JSON.parse((await runMain('status', id, '--json')).out) as { phase: string; run: { state: string; reason: string; failureType: string } };
    expect(json.phase).toBe('failed');
    expect(json.run).toMatchObject({ state: 'failed', failureType: 'WsmigrateRefused' });
    expect(json.run.reason).toMatch(/it is unmigrated/);
  }, 120_000);

  it('migrate workspace --version <a version with the old types> is refused in preflight, naming the version, before any build', async () => {
    const ws = cli.env.sim.workspaces()[1];
    const before = cli.env.sim.requestLog().length;
    const r = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.env.sim.template.originalVersionId, '--approval', 'none', '--wait');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(/failed: preflight refused for .*: template version \S+ still declares kubernetes_\w+\.\w+ \(main\.tf:\d+\).* with the deprecated type, so it is not a migrated version; pass --version the id 'wsmigrate migrate template' printed/);
    // No downtime for nothing: no build was started, no state written.
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  }, 120_000);

  it('an unknown workspace or owner is a usage error naming it (exit 2, like an unknown template in scan), not retried', async () => {
    const r = await runMain('migrate', 'workspace', 'nobody/nothing', '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'none', '--wait');
    expect(r.err).toMatch(/^wsmigrate: wsmigrate\/.*\/nobody\/nothing failed: .*nobody\/nothing/);
    expect(r.err).toMatch(/not found|no workspace|does not exist/i);
    expect(r.exitCode).toBe(EXIT.usage);
  }, 120_000);

  it('a fleet given an owner or an excluded workspace Coder does not know fails before any change, naming each (exit 2)', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const before = cli.env.sim.requestLog().length;
    const r = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--owner', ws.owner, 'nobody', '--exclude', `${ws.owner}/no-such-ws`, '--canary', '0', '--approval', 'none', '--wait');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.out).toMatch(/failed: fleet of template coder\/\S+ refused before any change: Coder has no user 'nobody' \(--owner\), no workspace '\S+\/no-such-ws' \(--exclude\); check the spelling/);
    // The last line says why, not that the fleet "did not migrate everything".
    expect(r.err).toMatch(/wsmigrate: wsmigrate-fleet\/coder\/\S+ failed: fleet of template coder\/\S+ refused before any change: Coder has no user 'nobody' \(--owner\)[^\n]*\n?$/);
    expect(r.err).not.toMatch(/did not migrate everything/);
    // The known owner is not named: only what is wrong.
    expect(r.out).not.toContain(`user '${ws.owner}'`);
    // Before any change: not even the template's require-active-version switch.
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
    const id = `wsmigrate-fleet/coder/${cli.env.sim.template.name}`;
    expect((await runMain('fleet', 'status', id)).out).toMatch(/: failed: .*no user 'nobody'/);
    // The Web UI's details say failed and why, not the phase it failed in.
    const meta = (await cli.env.t.client.workflow.getHandle(id).query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(meta.currentDetails).toMatch(/^### Fleet coder\/\S+ · FAILED \(during template\)\n\n\*\*Failed:\*\* `fleet of template coder\/\S+ refused before any change: Coder has no user 'nobody' \(--owner\), .*--template <name>.*`\n/);
    expect((await cli.env.t.client.workflow.getHandle(id).describe()).searchAttributes.WsmigratePhase).toEqual(['failed']);

    // The organization's run checks them once, up front, the same way.
    const org = await runMain('fleet', 'start', '--org', 'coder', '--all-templates', '--owner', 'nobody', '--canary', '0', '--approval', 'none', '--wait');
    expect(org.exitCode).toBe(EXIT.usage);
    expect(org.out).toMatch(/failed: fleet of organization coder refused before any change: Coder has no user 'nobody' \(--owner\)/);
    const orgMeta = (await cli.env.t.client.workflow.getHandle('wsmigrate-org/coder').query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(orgMeta.currentDetails).toMatch(/^### Organization coder · FAILED\n\n\*\*Failed:\*\* `fleet of organization coder refused before any change: Coder has no user 'nobody'/);
    expect((await cli.env.t.client.workflow.getHandle('wsmigrate-org/coder').describe()).searchAttributes.WsmigratePhase).toEqual(['failed']);
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  }, 120_000);

  it("without Coder's URL in the shell and without --wait, fleet start waits for the fleet's own check of the names: an unknown owner is exit 2 naming it, known ones exit 0", async () => {
    expect(process.env.CODER_URL).toBeUndefined();
    const ws = cli.env.sim.workspaces()[0];
    const before = cli.env.sim.requestLog().length;
    const r = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--owner', 'nobody', '--canary', '0', '--approval', 'none');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/refused before any change: Coder has no user 'nobody' \(--owner\); check the spelling/);
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);

    const ok = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--owner', ws.owner, '--canary', '0', '--approval', 'none', '--dry-run');
    expect(ok.exitCode).toBe(EXIT.ok);
    expect(ok.out).toMatch(/^wsmigrate-fleet\/coder\//);
    expect(ok.err).not.toMatch(/has not yet/);
    await cli.env.t.client.workflow.getHandle(`wsmigrate-fleet/coder/${cli.env.sim.template.name}`).result();
  }, 120_000);

  it("with Coder's URL and token in the shell, fleet start refuses an unknown template or owner itself, without --wait (exit 2, no run started)", async () => {
    process.env.CODER_URL = cli.env.sim.url;
    process.env.CODER_SESSION_TOKEN = cli.env.sim.token;
    try {
      const r = await runMain('fleet', 'start', '--org', 'coder', '--template', 'no-such-template', '--owner', 'nobody', '--any-approver');
      expect(r.exitCode).toBe(EXIT.usage);
      expect(r.err).toMatch(/has no template 'no-such-template' in organization 'coder' \(--template, --org\), no user 'nobody' \(--owner\); check the spelling.*then start again/);
      await expect(cli.env.t.client.workflow.getHandle('wsmigrate-fleet/coder/no-such-template').describe()).rejects.toThrow(/not found/i);
    } finally {
      delete process.env.CODER_URL;
      delete process.env.CODER_SESSION_TOKEN;
    }
  }, 60_000);

  it("a fleet given --version of the template's old version, or of nothing, is refused before any change instead of ending 'done' with every workspace skipped", async () => {
    const template = cli.env.sim.template;
    const id = `wsmigrate-fleet/coder/${template.name}`;
    const before = cli.env.sim.requestLog().length;
    const old = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', template.originalVersionId, '--canary', '0', '--approval', 'none', '--wait');
    expect(old.exitCode).toBe(EXIT.denied);
    expect(old.out).toMatch(
      new RegExp(`failed: fleet of template coder/${template.name} refused before any change: template version \\S+ \\(${template.originalVersionId}\\) still declares kubernetes_deployment, kubernetes_persistent_volume_claim: it is not a migrated version.*pass the _v1 version 'wsmigrate migrate template' printed`),
    );
    expect((await runMain('fleet', 'status', id)).out).toMatch(/: failed: .*still declares kubernetes_deployment/);
    // Not even the template's require-active-version switch.
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);

    // With Coder at hand the CLI says it itself, and no run starts: a version of nothing is a typo (exit 2).
    process.env.CODER_URL = cli.env.sim.url;
    process.env.CODER_SESSION_TOKEN = cli.env.sim.token;
    try {
      const runsBefore = (await cli.env.t.client.workflow.getHandle(id).describe()).runId;
      const none = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', '00000000-0000-4000-8000-000000000000', '--any-approver');
      expect(none.exitCode).toBe(EXIT.usage);
      expect(none.err).toMatch(/^wsmigrate: --version 00000000-0000-4000-8000-000000000000: Coder has no template version 00000000-0000-4000-8000-000000000000 .*leave --version out to migrate the template first/);
      const again = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', template.originalVersionId, '--any-approver');
      expect(again.exitCode).toBe(EXIT.denied);
      expect(again.err).toMatch(/still declares kubernetes_deployment, kubernetes_persistent_volume_claim: it is not a migrated version/);
      expect((await cli.env.t.client.workflow.getHandle(id).describe()).runId).toBe(runsBefore);
    } finally {
      delete process.env.CODER_URL;
      delete process.env.CODER_SESSION_TOKEN;
    }
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  }, 120_000);

  it("with Coder's URL and token in the shell, fleet start refuses a migrated --version that is not the template's active one itself (exit 3, no run, nothing written); --dry-run may name it", async () => {
    const template = cli.env.sim.template;
    const id = `wsmigrate-fleet/coder/${template.name}`;
    const migrated = await cli.env.coder.templateVersion(cli.version);
    const source = (await unpackTar(await cli.env.coder.downloadFile(migrated.job.file_id))).find((f) => f.name === 'main.tf')?.content.toString() ?? '';
    const pushed = await pushTemplateVersion(cli.env.sim, source, { name: 'v1-pushed-not-promoted' });
    expect(pushed.job.status).toBe('succeeded');
    const before = cli.env.sim.requestLog().length;
    process.env.CODER_URL = cli.env.sim.url;
    process.env.CODER_SESSION_TOKEN = cli.env.sim.token;
    try {
      const runsBefore = await cli.env.t.client.workflow.getHandle(id).describe().then((d) => d.runId, () => undefined);
      const r = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', pushed.id, '--any-approver');
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toMatch(/^wsmigrate: --version \S+: template version v1-pushed-not-promoted \(\S+\) is not the template's active version .*Promote the version first/m);
      expect(await cli.env.t.client.workflow.getHandle(id).describe().then((d) => d.runId, () => undefined)).toBe(runsBefore);
      const unlocked = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', pushed.id, '--no-require-active-version', '--any-approver');
      expect(unlocked.exitCode).toBe(EXIT.denied);
      expect(unlocked.err).toMatch(/is not the template's active version .*owner's one click on Update would build the old active version on its _v1 state and destroy its PVC/);
      expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
      const dry = await runMain('fleet', 'start', '--org', 'coder', '--template', template.name, '--version', pushed.id, '--canary', '0', '--approval', 'none', '--dry-run');
      expect(dry.exitCode).toBe(EXIT.ok);
      await cli.env.t.client.workflow.getHandle(id).result();
    } finally {
      delete process.env.CODER_URL;
      delete process.env.CODER_SESSION_TOKEN;
    }
  }, 120_000);

  it("an empty --name or --version (an unset shell variable) is refused naming the option, never read as 'every workspace' or 'migrate the template first'; nothing starts", async () => {
    const template = cli.env.sim.template.name;
    const before = cli.env.sim.requestLog().length;
    const runs = async () => {
      const ids: string[] = [];
      for await (const wf of cli.env.t.client.workflow.list({ query: `WorkflowId = 'wsmigrate-fleet/coder/${template}'` })) ids.push(wf.runId);
      return ids.sort().join(',');
    };
    const runBefore = await runs();
    const name = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', cli.version, '--name', '', '--any-approver');
    expect(name.exitCode).toBe(EXIT.usage);
    expect(name.err).toMatch(/^wsmigrate: invalid input: --name glob is empty: leave it out to take every workspace$/m);
    const version = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', '', '--any-approver');
    expect(version.exitCode).toBe(EXIT.usage);
    expect(version.err).toMatch(/^wsmigrate: invalid input: --version must be a template version UUID \(or leave it out to migrate the template first\)$/m);
    // Every refusal names the option as typed, not the workflow's field (buildTimeout, approval.timeout).
    const timeout = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', cli.version, '--build-timeout', '10', '--approval-timeout', '3x', '--any-approver');
    expect(timeout.exitCode).toBe(EXIT.usage);
    expect(timeout.err).toMatch(/^wsmigrate: invalid input: --approval-timeout: use a duration such as '90s', '30m', '2h' or '1d'; --build-timeout: use a duration such as/m);
    expect(await runs()).toBe(runBefore);
    expect(cli.env.sim.requestLog().slice(before).filter(isWrite)).toEqual([]);
  }, 60_000);

  it('status of an id with no run says so, exit 1', async () => {
    const r = await runMain('status', 'wsmigrate/nope/a/b');
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.err).toMatch(/^wsmigrate: no run with workflow id 'wsmigrate\/nope\/a\/b'/);
  }, 60_000);

  it('a migration whose restore builds all fail ends needs-attention saying what failed them and the state restore command that puts it right', async () => {
    const ws = cli.env.sim.workspaces()[1];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    cli.env.sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'start', rate: 1, message: 'pod quota exceeded' } });
    try {
      const r = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'none', '--wait');
      expect(r.exitCode).toBe(EXIT.failure);
      const ref = (JSON.parse((await runMain('status', id, '--json')).out) as { detail?: { backup?: { ref: string } } }).detail?.backup?.ref;
      expect(ref).toMatch(/^file:\/\/.*\/sha256\/[0-9a-f]{64}$/);
      expect(r.err).toMatch(/the restore did not finish: restore build #\d+ of .* ended failed: pod quota exceeded\. The restore build was tried 3 times and failed each time\. Fix what fails the build \(above\), then, once the workspace is idle, put the backed-up state back: /);
      expect(r.err).toContain(`wsmigrate state restore ${ws.owner}/${ws.name} --backup ${ref} --yes`);
    } finally {
      cli.env.sim.setFaults(undefined);
    }
  }, 120_000);

  it("a fleet id or run id typed wrong says so and where the right one is, not Temporal's 'workflow not found for ID'", async () => {
    const fleetId = 'wsmigrate-fleet/coder/k8s-devv';
    for (const args of [['fleet', 'status', fleetId], ['fleet', 'pause', fleetId, '--by', 'alice'], ['fleet', 'cancel', fleetId, '--by', 'alice']]) {
      const r = await runMain(...args);
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).not.toMatch(/workflow not found for ID/);
      expect(r.err).toMatch(/^wsmigrate: no run with workflow id 'wsmigrate-fleet\/coder\/k8s-devv' in this namespace \(TEMPORAL_NAMESPACE\); check the id: a fleet's id is wsmigrate-fleet\/<org>\/<template>/m);
    }
    const org = await runMain('fleet', 'status', 'wsmigrate-org/coderr');
    expect(org.err).toMatch(/^wsmigrate: no run with workflow id 'wsmigrate-org\/coderr'.*an organization's run is wsmigrate-org\/<org>/m);
    for (const decision of ['approve', 'reject']) {
      const r = await runMain(decision, 'wsmigrate/k8s-dev/alice/nope', '--approver', 'alice');
      expect(r.exitCode).toBe(EXIT.failure);
      expect(r.err).toMatch(/^wsmigrate: no run with workflow id 'wsmigrate\/k8s-dev\/alice\/nope'.*'wsmigrate approvals' lists the runs waiting for a human/m);
    }
  }, 60_000);

  it("fleet status or pause of a workspace's run, and status of an organization's run, name the command that fits (exit 2), not a TypeError or 'handler not found'", async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--dry-run', '--any-approver', '--wait');
    const r = await runMain('fleet', 'status', id);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toBe(`wsmigrate: ${id} is a migrateWorkspace run, not a fleet: read it with 'wsmigrate status ${id}'`);
    const approved = await runMain('approve', id, '--approver', 'alice');
    expect(approved.exitCode).toBe(EXIT.denied);
    expect(approved.err).toBe(`wsmigrate: approve refused: ${id} is not waiting for an approval now (already decided, timed out, ended, or not at a gate yet); see 'wsmigrate status ${id}'`);
    const paused = await runMain('fleet', 'pause', id, '--by', 'alice');
    expect(paused.exitCode).toBe(EXIT.usage);
    expect(paused.err).toMatch(new RegExp(`^wsmigrate: ${id} is a migrateWorkspace run, not a fleet: pause is for a fleet .*'wsmigrate reject ${id} --approver <you>'`));
    const org = await runMain('status', 'wsmigrate-org/coder');
    expect(org.exitCode).toBe(EXIT.usage);
    expect(org.err).toBe("wsmigrate: wsmigrate-org/coder is an organization's run: read it with 'wsmigrate fleet status wsmigrate-org/coder'");
  }, 120_000);

  it('pause, resume or cancel of a fleet that has ended is refused saying it ended (exit 3), not "workflow execution already completed"', async () => {
    const template = cli.env.sim.template.name;
    const started = await runMain('fleet', 'start', '--org', 'coder', '--template', template, '--version', cli.version, '--dry-run', '--canary', '0', '--approval', 'none', '--no-require-active-version', '--no-archive', '--wait');
    expect(started.err).not.toMatch(/\n\s+at /);
    const id = `wsmigrate-fleet/coder/${template}`;
    // `status` of a fleet says its phase only; it points at the command with the counts.
    expect((await runMain('status', id)).out).toContain(`  counts, running migrations and failures: wsmigrate fleet status ${id}`);
    for (const action of ['pause', 'resume', 'cancel']) {
      const r = await runMain('fleet', action, id, '--by', 'alice');
      expect(r.exitCode).toBe(EXIT.denied);
      expect(r.err).toMatch(new RegExp(`^wsmigrate: ${action} refused: ${id} has already ended, so there is nothing to ${action}; 'wsmigrate fleet status ${id}' says how it ended$`, 'm'));
    }
  }, 120_000);
});

describe('migrate template --wait on a Coder older than 2 (#22 item 1)', () => {
  // Not cliAgainstWorker: it migrates the template first, which this Coder refuses.
  let env: MigrationEnv;
  const saved = { ...process.env };
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 1, version: 'v1.9.3+abc1234' });
    await env.startWorker();
    process.env.WSMIGRATE_TASK_QUEUE = env.taskQueue;
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await env?.close();
  });

  it("ends with the run's refusal, naming the version and what to do (exit 3), never a stack trace", async () => {
    const r = await runMain('migrate', 'template', env.sim.template.name, '--org', 'coder', '--any-approver', '--wait');
    expect(r.err).not.toMatch(/TypeError|\n\s+at /);
    expect(r.err).toMatch(/failed: .*Coder v1\.9\.3 predates Coder 2 \(builds that carry a state\); upgrade to any 2\.x release first/);
    expect(r.exitCode).toBe(EXIT.denied);
  }, 120_000);
});
