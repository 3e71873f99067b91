import type { Command } from 'commander';
import { loadConfig, requireCoder } from '../../config/env';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, asCliRefusal, type CliIo } from '../io';
import { withTemporal } from '../with-temporal';
import { lastPhaseNote } from '../../domain/phase-note';
import { templateVersionLines } from '../template-version-line';
import { approvalCommands } from '../../domain/run-details';
import { whoMayApprove } from '../../domain/approval-policy';

const STATUS_HELP = `
Workflow ids:
  wsmigrate/<template>/<owner>/<workspace>   a workspace's migration or recovery
  wsmigrate-template/<org>/<template>        a template's migration
  (a fleet's: wsmigrate fleet status wsmigrate-fleet/<org>/<template>)

Examples:
  wsmigrate status wsmigrate/k8s-dev/alice/dev
  wsmigrate status wsmigrate-template/coder/k8s-dev   # the version it pushed and the command that takes it
  wsmigrate approvals                                 # every run waiting for a human, with its approvers

Exit codes: 0 shown (whatever the run's phase: a failed or declined run too; --json's phase says how it ended),
1 no run with that id, or Temporal unreachable.`;

function decisionHelp(decision: 'approve' | 'reject'): string {
  return `
Examples:
  wsmigrate ${decision} wsmigrate/k8s-dev/alice/dev --approver alice
  wsmigrate ${decision} wsmigrate-fleet/coder/k8s-dev --approver alice --gate fleet-continue --comment 'canary looks right'
'wsmigrate approvals' lists every gate waiting and who may decide it; 'wsmigrate status <id>' gives the exact command for one.
Exit codes: 0 ${decision === 'approve' ? 'approved' : 'rejected'}, 2 no --approver (nor WSMIGRATE_APPROVER), 3 refused (not an approver, not the
pending gate or plan, the run has ended), 1 no run with that id.
`;
}

export function registerApprovalCommands(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('show a migration: phase, steps done, the guard verdict and any pending approval')
    .argument('<workflow-id>', 'e.g. wsmigrate/k8s-dev/alice/dev')
    .option('--json', 'print JSON', false)
    .addHelpText('after', STATUS_HELP)
    .action(async (id: string, o, cmd: Command) => {
      const log = await cliLogger(io, cmd);
      if (id.startsWith('wsmigrate-org/')) throw new CliError(`${id} is an organization's run: read it with 'wsmigrate fleet status ${id}'`, EXIT.usage);
      const { runStatus } = await import('../../client/run-status');
      // With Coder's URL and token in the shell, status also says when a build waits in Coder's provisioner queue.
      const cfg = loadConfig();
      let coder: import('../../client/run-status').StatusCoder | undefined;
      if (cfg.coderUrl && cfg.coderSessionToken) {
        const { CoderClient } = await import('../../adapters/coder');
        const c = requireCoder(cfg);
        coder = new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli', retry: { maxAttempts: 1 } });
      }
      const s = await withTemporal((c) => runStatus(c, id, coder), log);
      log.debug({ phase: s.phase, state: s.run.state, gate: s.pendingApproval?.gateId }, 'status read');
      if (o.json) return io.out(JSON.stringify(s, null, 2));
      io.out(`${id}: ${s.phase}${lastPhaseNote(s.lastPhase)}`);
      if (s.run.reason) io.out(`  reason: ${s.run.reason}`);
      if (s.stepsDone) io.out(`  done: ${s.stepsDone.join(', ') || '-'}`);
      if (s.verdict) io.out(`  guard: ${s.verdict.verdict}: ${s.verdict.summary}`);
      for (const w of s.detail && 'warnings' in s.detail ? (s.detail.warnings ?? []) : []) io.out(`  warning: ${w}`);
      for (const line of templateVersionLines(id, s.detail, s.run.state !== 'running')) io.out(line);
      if (s.pendingApproval) {
        io.out(`  waiting for approval of '${s.pendingApproval.gateId}' since ${s.pendingApproval.requestedAt}${s.pendingApproval.escalated ? ' (escalated)' : ''}`);
        io.out(`    ${s.pendingApproval.summary}`);
        io.out(`    plan ${s.pendingApproval.planHash}`);
        io.out(`    approvers: ${whoMayApprove(s.pendingApproval)}`);
        io.out(`    ${approvalCommands(id, s.pendingApproval).cli}`);
      }
      for (const w of s.waitingOn ?? []) io.out(`  waiting on: ${w}`);
      for (const l of s.left ?? []) io.out(`  left: ${l}`);
      // A declined run's reason says the decision and what was undone; its status's error only said "restoring".
      if (s.error && s.error !== s.run.reason && s.phase !== 'declined' && !(s.run.state === 'cancelled' && /cancel/i.test(s.error))) io.out(`  error: ${s.error}`);
      if (id.startsWith('wsmigrate-fleet/')) io.out(`  counts, running migrations and failures: wsmigrate fleet status ${id}`);
    });

  program
    .command('approvals')
    .description('list the running migrations that wait for a human now, with gate, plan hash and summary')
    .option('--json', 'print JSON', false)
    .addHelpText(
      'after',
      '\nExample:\n  wsmigrate approvals                      # each run at a gate: its gate, since when, plan hash, summary and approvers\n' +
        '  wsmigrate approve <workflow-id> --approver <you>\n\n' +
        "A run at a gate whose worker does not answer in 5 s is named on stderr instead (its worker is gone: 'wsmigrate status <id>').\n" +
        'Exit codes: 0 listed (also when nothing waits), 1 Temporal unreachable.',
    )
    .action(async (o: { json: boolean }, cmd: Command) => {
      const log = await cliLogger(io, cmd);
      const { silentRunsText, waitingForApproval } = await import('../../client/approvals');
      const { waiting, silent } = await withTemporal((c) => waitingForApproval(c), log);
      log.debug({ waiting: waiting.length, silent: silent.length }, 'approvals listed');
      if (o.json) return io.out(JSON.stringify(waiting, null, 2));
      if (silent.length > 0) io.err(`warning: ${silentRunsText(silent)}`);
      if (waiting.length === 0) return io.out('nothing is waiting for an approval');
      for (const w of waiting) {
        io.out(`${w.workflowId}: '${w.pending.gateId}' since ${w.pending.requestedAt}${w.pending.escalated ? ' (escalated)' : ''}`);
        io.out(`    ${w.pending.summary}`);
        io.out(`    plan ${w.pending.planHash}; approvers: ${whoMayApprove(w.pending)}`);
      }
    });

  for (const decision of ['approve', 'reject'] as const) {
    program
      .command(decision)
      .description(`${decision} the step a migration is waiting on (validated: approver list, gate and plan hash must match)`)
      .argument('<workflow-id>', 'e.g. wsmigrate/k8s-dev/alice/dev')
      .option('--approver <name>', "who decides (must be in the run's approver list); default: WSMIGRATE_APPROVER")
      .option('--gate <id>', 'only if this gate is pending (default: the pending one)')
      .option('--plan <hash>', 'only if this plan hash is pending (default: the pending one)')
      .option('--comment <text>', 'recorded in the workflow history')
      .addHelpText('after', `${decisionHelp(decision)}\nThe same decision can be sent as a signal:\n  temporal workflow signal --workflow-id <id> --name approval --input '{"gateId":"apply","planHash":"sha256:…","approver":"alice","decision":"${decision}"}'`)
      .action(async (id: string, o, cmd: Command) => {
        const approver: string | undefined = o.approver ?? loadConfig().approver;
        if (!approver) throw new CliError(`say who decides: --approver <your name>, or set WSMIGRATE_APPROVER=<your name>`, EXIT.usage);
        const log = await cliLogger(io, cmd);
        const { decide } = await import('../../client/approvals');
        const { rethrowNoRun } = await import('../../client/run-not-found');
        const r = await withTemporal((c) => decide(c, id, decision, { approver, channel: 'cli', gateId: o.gate, planHash: o.plan, comment: o.comment }).catch(rethrowNoRun(id)), log).catch((err: unknown) => {
          throw asCliRefusal(err);
        });
        log.info({ gate: r.gateId, planHash: r.planHash, approver: r.approver, decision: r.decision }, 'approval sent');
        io.out(`${r.decision === 'approve' ? 'approved' : 'rejected'} '${r.gateId}' of ${id} as ${r.approver}`);
      });
  }
}

