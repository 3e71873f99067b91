import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../config/env';
import { CliError, EXIT, type CliIo } from '../io';

async function withClient<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const { connectClient } = await import('../../client/temporal-client');
  const { client, connection } = await connectClient(loadConfig());
  try {
    return await fn(client);
  } finally {
    await connection.close();
  }
}

export function registerApprovalCommands(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('show a migration: phase, steps done, the guard verdict and any pending approval')
    .argument('<workflow-id>', 'e.g. wsmigrate/k8s-dev/alice/dev')
    .option('--json', 'print JSON', false)
    .action(async (id: string, o) => {
      const { migrationStatus } = await import('../../client/migrations');
      const s = await withClient((c) => migrationStatus(c, id));
      if (o.json) return io.out(JSON.stringify(s, null, 2));
      io.out(`${id}: ${s.phase}`);
      if ('stepsDone' in s) io.out(`  done: ${s.stepsDone.join(', ') || '-'}`);
      if ('verdict' in s && s.verdict) io.out(`  guard: ${s.verdict.verdict}: ${s.verdict.summary}`);
      if (s.pendingApproval) {
        io.out(`  waiting for approval of '${s.pendingApproval.gateId}' since ${s.pendingApproval.requestedAt}${s.pendingApproval.escalated ? ' (escalated)' : ''}`);
        io.out(`    ${s.pendingApproval.summary}`);
        io.out(`    plan ${s.pendingApproval.planHash}`);
      }
      if ('error' in s && s.error) io.out(`  error: ${s.error}`);
    });

  program
    .command('approvals')
    .description('list the running migrations that wait for a human now, with gate, plan hash and summary')
    .option('--json', 'print JSON', false)
    .action(async (o: { json: boolean }) => {
      const { waitingForApproval } = await import('../../client/approvals');
      const waiting = await withClient((c) => waitingForApproval(c));
      if (o.json) return io.out(JSON.stringify(waiting, null, 2));
      if (waiting.length === 0) return io.out('nothing is waiting for an approval');
      for (const w of waiting) {
        io.out(`${w.workflowId}: '${w.pending.gateId}' since ${w.pending.requestedAt}${w.pending.escalated ? ' (escalated)' : ''}`);
        io.out(`    ${w.pending.summary}`);
        io.out(`    plan ${w.pending.planHash}; approvers: ${w.pending.anyApprover ? 'any' : (w.pending.approvers ?? []).join(', ') || '-'}`);
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
      .addHelpText('after', `\nThe same decision can be sent as a signal:\n  temporal workflow signal --workflow-id <id> --name approval --input '{"gateId":"apply","planHash":"sha256:…","approver":"alice","decision":"${decision}"}'`)
      .action(async (id: string, o) => {
        const approver: string | undefined = o.approver ?? loadConfig().approver;
        if (!approver) throw new CliError(`say who decides: --approver <your name>, or set WSMIGRATE_APPROVER=<your name>`, EXIT.usage);
        const { decide } = await import('../../client/migrations');
        const r = await withClient((c) => decide(c, id, decision, { approver, channel: 'cli', gateId: o.gate, planHash: o.plan, comment: o.comment }));
        io.out(`${r.decision === 'approve' ? 'approved' : 'rejected'} '${r.gateId}' of ${id} as ${r.approver}`);
      });
  }
}
