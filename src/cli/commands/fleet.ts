import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { addFleetOptions, fleetInputFromOptions, isOrganizationRun, templatesOf } from '../fleet-options';
import { ORGANIZATION_RUN_PREFIX, startOrganizationRun, waitForOrganization } from './organization-run';
import { endedRunText, fitToWidth, newGateLines, progressBar, progressLine, statusText, summaryTable } from '../fleet-render';
import { ranCountsOf, rollbacksNote } from '../../domain/fleet-rollbacks';
import { notMigratedCount } from '../../domain/fleet-summary';
import type { Logger } from '../../adapters/logging/logger';
import { cliLogger } from '../cli-logger';
import { explainInterrupt } from '../interrupt';
import { refuseUnknownNamesNow } from '../names-now';
import { waitForFleetNameCheck } from '../fleet-name-check';
import { waitLines } from '../../domain/fleet-waits';
import { withTemporal, type Client } from '../with-temporal';
import { CliError, EXIT, asCliRefusal, exitCodeOfFailureType, processIo, type CliIo } from '../io';
import { startFleetRun } from '../start-fleet-run';
import { approvalCommands } from '../../domain/run-details';
import { whoMayApprove } from '../../domain/approval-policy';

/** Coder, when the shell has its URL and a token (as for `wsmigrate status`): `fleet status` then reads the daemons now. */
async function coderFromShell(): Promise<import('../../client/provisioners-now').DaemonsCoder | undefined> {
  const { loadConfig, requireCoder } = await import('../../config/env');
  const cfg = loadConfig();
  if (!cfg.coderUrl || !cfg.coderSessionToken) return undefined;
  const { CoderClient } = await import('../../adapters/coder');
  const c = requireCoder(cfg);
  return new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli', retry: { maxAttempts: 1 } });
}

function me(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Follows a fleet until it ends: a redrawn bar on a terminal, a line per change otherwise. Returns its exit code; a failed fleet throws its reason. */
export async function waitForFleet(client: Client, io: CliIo, workflowId: string, opts: { json: boolean; pollMs?: number; tty?: boolean; log?: Logger }): Promise<number> {
  const stopExplaining = explainInterrupt(io, workflowId, `wsmigrate fleet status ${workflowId} --wait`);
  try {
    return await followFleet(client, io, workflowId, opts);
  } finally {
    stopExplaining();
  }
}

async function followFleet(client: Client, io: CliIo, workflowId: string, opts: { json: boolean; pollMs?: number; tty?: boolean; log?: Logger }): Promise<number> {
  const { fleetStatus } = await import('../../client/fleet');
  const log = opts.log?.child({ workflowId });
  log?.info('waiting for result');
  const tty = opts.tty ?? (io === processIo && Boolean(process.stdout.isTTY) && !opts.json);
  let lastLine = '';
  let lastGate = '';
  const announced = new Set<string>();
  let rollbacksSaid = false;
  for (;;) {
    let s = await fleetStatus(client, workflowId);
    if (s.unanswered) {
      // No worker answers it now (a restart, a killed pod): it has not ended, so say why once and keep waiting.
      const line = waitLines(s.waitingOn ?? []).join('\n  ');
      if (line !== lastLine && !opts.json) {
        if (tty) process.stdout.write('\r\x1b[2K');
        io.out(`${workflowId}: ${s.phase}: ${line}`);
      }
      lastLine = line;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
      continue;
    }
    if (!s.progress) {
      if (tty) process.stdout.write('\n');
      s = await (await import('../left-lock-sources')).withLeftLockHere(client, s);
      if (opts.json) io.out(JSON.stringify(s, null, 2));
      else io.out(s.result ? summaryTable(s.result) : endedRunText(s));
      log?.info({ phase: s.phase, ...(s.result ? { summary: s.result.summary } : {}) }, 'fleet ended');
      // The last line says why it failed (often before any change), not that it "did not migrate everything".
      if (s.phase === 'failed') {
        const how = s.endedBy === 'terminated' ? 'was terminated' : s.endedBy === 'timed-out' ? 'timed out' : 'failed';
        throw new CliError(`${workflowId} ${how}: ${s.error ?? `see 'wsmigrate fleet status ${workflowId}'`}`, exitCodeOfFailureType(s.failureType));
      }
      // A restored workspace failed its migration and was put back as it was: not migrated, as a failed one.
      const bad = s.result ? s.result.summary.failed + s.result.summary.needsAttention + s.result.summary.restored : 0;
      // A workspace a gate declined (a person's no, or no answer in time) is the person's decision: 3, as for one workspace's --wait.
      const declined = s.result?.summary.declined ?? 0;
      if (bad > 0) log?.warn({ failed: s.result!.summary.failed, needsAttention: s.result!.summary.needsAttention, restored: s.result!.summary.restored }, 'some workspaces were not migrated');
      if (declined > 0) log?.warn({ declined }, 'some migrations were declined at a gate');
      return (s.result && notMigratedCount(s.result.summary) > 0) || s.phase === 'cancelled' ? EXIT.denied : EXIT.ok;
    }
    const p = s.progress;
    const gate = p.pendingApproval ? `${p.pendingApproval.gateId}:${p.pendingApproval.planHash}` : '';
    if (gate && gate !== lastGate) log?.info({ gate: p.pendingApproval!.gateId, planHash: p.pendingApproval!.planHash }, 'waiting for approval');
    if (gate && gate !== lastGate && !opts.json) {
      if (tty) process.stdout.write('\n');
      io.out(`waiting for approval of '${p.pendingApproval!.gateId}': ${p.pendingApproval!.summary}\n  approvers: ${whoMayApprove(p.pendingApproval!)}\n  ${approvalCommands(workflowId, p.pendingApproval!).cli}`);
    }
    lastGate = gate;
    const waits = s.waitingOn ?? [];
    const gateLines = opts.json ? [] : newGateLines(waits, announced);
    if (gateLines.length) {
      if (tty) process.stdout.write('\r\x1b[2K');
      for (const line of gateLines) io.out(line);
    }
    // Said once, as it first holds: rollbacks never stop the fleet (they spend no budget), so only words can.
    const rollbacks = rollbacksSaid ? undefined : rollbacksNote(ranCountsOf(p.counts), workflowId);
    if (rollbacks) {
      rollbacksSaid = true;
      log?.warn({ restored: p.counts.restored }, rollbacks);
      if (!opts.json) {
        if (tty) process.stdout.write('\r\x1b[2K');
        io.out(rollbacks);
      }
    }
    if (tty) process.stdout.write(`\r\x1b[2K${fitToWidth(progressBar(p, undefined, waits), process.stdout.columns)}`);
    else if (!opts.json) {
      const line = progressLine(p, waits);
      if (line !== lastLine) io.out(line);
      lastLine = line;
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
  }
}

export function registerFleetCommands(program: Command, io: CliIo): void {
  const fleet = program
    .command('fleet')
    .description('migrate every workspace of a template: canary, approval, a sliding window of migrations, a failure budget, pause/resume/cancel');

  addFleetOptions(fleet.command('start').description('start a fleet migration (migrateFleet) and print its workflow id'))
    .option('--wait', 'follow it to the end: a progress bar on a terminal, plain lines otherwise, then the summary table', false)
    .option('--json', 'print {"workflowId": …} (with --wait: the final status as JSON)', false)
    .addHelpText(
      'after',
      `
Examples:
  wsmigrate fleet start --org coder --template k8s-dev --approver alice            # template first, canary of 3, then 10 at a time
  wsmigrate fleet start --org coder --template k8s-dev --version 4b1c… --limit 50  # one batch of 50 on an already migrated template
  wsmigrate fleet start --org coder --template k8s-dev --version 4b1c… --dry-run --wait
  wsmigrate fleet start --org coder --all-templates --approver alice               # every template that needs it, one canary gate
  wsmigrate fleet start --org coder --template k8s-dev --template k8s-gpu --provisioner-share 1

The canary waits at the 'fleet-continue' gate: wsmigrate approve wsmigrate-fleet/coder/k8s-dev --approver alice
Exit codes with --wait: 0 all migrated, 3 some failed or were declined at a gate (rejected, or not answered in
time), or the fleet was cancelled or refused, 2 an owner, workspace or
template Coder does not know, 1 the fleet itself failed.`,
    )
    .action(async (o, cmd: Command) => {
      if (templatesOf(o).length === 0 && !o.allTemplates) throw new CliError('fleet start needs --template <name> (repeat it for several templates) or --all-templates', EXIT.usage);
      if (o.allTemplates && templatesOf(o).length > 0) throw new CliError('pass --template or --all-templates, not both', EXIT.usage);
      const { loadConfig } = await import('../../config/env');
      // The fleet refuses unknown names itself; with Coder at hand, a typo is exit 2 even without --wait.
      const names = { organization: o.org as string, templates: templatesOf(o), owners: (o.owner as string[] | undefined) ?? [], exclude: (o.exclude as string[] | undefined) ?? [], ...(o.version ? { version: o.version as string } : {}), ...(o.dryRun ? {} : { mustBeActive: { lock: o.requireActiveVersion !== false } }) };
      const checked = await refuseUnknownNamesNow(loadConfig(), names, 'fleet');
      if (isOrganizationRun(o)) return startOrganizationRun(io, o, await cliLogger(io, cmd));
      const waitForNames = checked === 'not-checked' && !o.wait && names.owners.length + names.exclude.length > 0;
      const input = fleetInputFromOptions(o, loadConfig().approvers);
      const log = await cliLogger(io, cmd);
      const { startFleet } = await import('../../client/fleet');
      await startFleetRun(io, log, o, {
        start: (client, taskQueue) => startFleet(client, input, { taskQueue }),
        ...(waitForNames ? { afterStart: (client: Client, workflowId: string) => waitForFleetNameCheck(client, io, workflowId) } : {}),
        waitForEnd: (client, workflowId) => waitForFleet(client, io, workflowId, { json: o.json, log }),
        noun: 'fleet',
      });
    });

  fleet
    .command('status')
    .description("a fleet's phase (running, awaiting-approval, paused, done, cancelled, failed), counts, running migrations, failures and gates")
    .argument('<workflow-id>', 'e.g. wsmigrate-fleet/coder/k8s-dev')
    .option('--json', 'print JSON', false)
    .option('--wait', 'follow it to the end (progress bar on a terminal)', false)
    .addHelpText(
      'after',
      `
Examples:
  wsmigrate fleet status wsmigrate-fleet/coder/k8s-dev
  wsmigrate fleet status wsmigrate-org/coder --wait        # an organization's run (fleet start --all-templates)
  wsmigrate fleet status wsmigrate-fleet/coder/k8s-dev --json | jq .progress.counts
A schedule's windows are wsmigrate-fleet/<org>/<template>-<time>: 'wsmigrate schedule describe <name>' lists its recent runs.
Exit codes: without --wait 0 shown, whatever the run's phase (a failed or cancelled run too, as 'wsmigrate status';
--json's phase says how it ended), 1 no run with that id. With --wait as 'fleet start --wait' (0 all migrated,
3 some failed or were declined at a gate, or the fleet was cancelled, 2 an unknown name, 1 the fleet itself failed),
at once for a run that has already ended: the way to exit by a run's outcome.`,
    )
    .action(async (id: string, o, cmd: Command) => {
      const log = await cliLogger(io, cmd);
      const { fleetStatus } = await import('../../client/fleet');
      const { pacingNow } = await import('../../client/provisioners-now');
      await withTemporal(async (client) => {
        if (id.startsWith(ORGANIZATION_RUN_PREFIX)) {
          const { organizationStatus, organizationStatusText } = await import('../../client/organization');
          if (o.wait) {
            const code = await waitForOrganization(client, io, id, o.json);
            if (code !== EXIT.ok) throw new CliError(`organization run ${id} did not migrate everything`, code);
            return;
          }
          let s = await organizationStatus(client, id);
          if (s.pacing && s.progress) s = { ...s, pacing: { ...s.pacing, status: await pacingNow(await coderFromShell(), s.progress.organization, s.pacing.status) } };
          io.out(o.json ? JSON.stringify(s, null, 2) : organizationStatusText(s, Date.now()));
          return;
        }
        if (o.wait) {
          const code = await waitForFleet(client, io, id, { json: o.json, log });
          if (code !== EXIT.ok) throw new CliError(`fleet ${id} did not migrate everything`, code);
          return;
        }
        // Terminated or timed out: it gave nothing back; say what it left of require_active_version.
        const { withLeftLockHere } = await import('../left-lock-sources');
        let s = await withLeftLockHere(client, await fleetStatus(client, id));
        // Its own reading of the daemons can be minutes old (taken when it last wanted to start one): read them now too.
        if (s.progress?.pacing) s = { ...s, progress: { ...s.progress, pacing: await pacingNow(await coderFromShell(), s.progress.organization, s.progress.pacing) } };
        log.debug({ phase: s.phase }, 'status read');
        io.out(o.json ? JSON.stringify(s, null, 2) : statusText(s));
      }, log).catch((err: unknown) => {
        // The id of a workspace's or template's run: a usage error, with the command that reads it.
        if ((err as Error | undefined)?.name === 'NotAFleetError') throw new CliError((err as Error).message, EXIT.usage);
        throw err;
      });
    });

  const actions = {
    pause: 'stop starting new migrations; the running ones finish',
    resume: 'start migrations again after a pause',
    cancel: 'start no new migration; the running ones finish (or restore); then the fleet ends',
  } as const;
  for (const action of ['pause', 'resume', 'cancel'] as const) {
    fleet
      .command(action)
      .description(actions[action])
      .argument('<workflow-id>', 'e.g. wsmigrate-fleet/coder/k8s-dev')
      .option('--by <name>', "who does it (must be an approver when the fleet has a list); default: WSMIGRATE_APPROVER, else your login name")
      .option('--reason <text>', 'recorded in the fleet')
      .option('--json', 'print JSON', false)
      .addHelpText(
        'after',
        `\nExample:\n  wsmigrate fleet ${action} wsmigrate-fleet/coder/k8s-dev --by alice --reason "change freeze"   # or wsmigrate-org/<org> for an organization's run\n` +
          `\nThe same as a signal (e.g. from the Web UI):\n  temporal workflow signal --workflow-id <id> --name ${action} --input '{"by":"alice"}'\n` +
          `\nExit codes: 0 done, 3 refused (--by is not one of the fleet's approvers, the fleet is ${action === 'resume' ? 'not paused' : action === 'pause' ? 'already paused' : 'already cancelling'}, or it has ended), 1 no run with that id or Temporal unreachable.`,
      )
      .action(async (id: string, o, cmd: Command) => {
        const log = await cliLogger(io, cmd);
        const { controlFleet } = await import('../../client/fleet');
        const { loadConfig } = await import('../../config/env');
        // The same identity `approve` uses, so one setting names the operator for every decision.
        const named: string | undefined = o.by ?? loadConfig().approver;
        const by = named ?? me();
        const entry = await withTemporal((client) => controlFleet(client, id, action, by, o.reason), log).catch((err: unknown) => {
          if ((err as Error | undefined)?.name === 'NotAFleetError') throw new CliError((err as Error).message, EXIT.usage);
          const refusal = asCliRefusal(err);
          // Nobody said who acts, so the login name went: a refusal of it should say how to name someone else.
          if (!named && refusal instanceof CliError && refusal.exitCode === EXIT.denied && refusal.message.includes(`'${by}' may not`)) {
            throw new CliError(`${refusal.message}; '${by}' is your login name, used because neither --by nor WSMIGRATE_APPROVER was given: pass --by <approver>`, EXIT.denied);
          }
          throw refusal;
        });
        log.info({ action, by: entry.by, ...(o.reason ? { reason: o.reason } : {}) }, `${action} sent`);
        io.out(o.json ? JSON.stringify(entry) : `${{ pause: 'paused', resume: 'resumed', cancel: 'cancelling' }[action]} ${id} as ${entry.by}`);
      });
  }
}
