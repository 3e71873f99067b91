import type { Command } from 'commander';
import { loadConfig } from '../../config/env';
import { InputError, migrateWorkspaceInputSchema, parseInput } from '../../domain/migration-input';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, type CliIo } from '../io';
import { reportStartedRun } from '../started-run';
import { connectForCommand } from '../with-temporal';
import { ALLOW_INACTIVE_HELP, usageErrorOf } from '../input-options';

const HELP = `
Brings back a workspace that 'wsmigrate scan' reports damaged (a failed build, or a state that
forgot its volume, e.g. after a user pressed Update during the migration):
  1. reads its recent builds and picks the newest one whose state still holds every protected
     object (PVCs, PVs, resources marked # wsmigrate:protect) with its uid;
  2. backs up the current state and that good state;
  3. rewrites the good state to the _v1 types and verifies it against --version (the guard must
     show every protected object kept, no delete);
  4. waits for an approval (gate 'recover'): this command always asks (policy all). Inside
     'migrate workspace' or a fleet the gate follows the run's policy for a plain repair (the
     state only forgot its objects, the guard allows) and asks a person otherwise;
  5. one build on top of the latest: a start on --version carrying that state; then checks every
     protected object has the uid it had in the good state.
--version must be the template's active version (refused otherwise, nothing changed): on another, the
workspace shows "outdated" and its owner's Update destroys the PVC; --allow-inactive-version asks for it.
An object that was really destroyed (deleted, or now another uid) cannot come back from state:
the run ends needs-attention, naming the object, the build that destroyed it and when, and the
backups. 'wsmigrate migrate workspace' does the same when it finds a damaged workspace.

Example:
  wsmigrate recover alice/dev --template k8s-dev --version 4b1c… --approver you
  wsmigrate approve wsmigrate/k8s-dev/alice/dev --approver you`;

export function registerRecoverCommand(program: Command, io: CliIo): void {
  program
    .command('recover')
    .description('recover a damaged workspace from its newest good build (asks for approval); needs a running `wsmigrate worker`')
    .argument('<owner/workspace>', 'the workspace, as owner/name')
    .requiredOption('--template <name>', 'the template the workspace uses')
    .requiredOption('--version <id>', 'the template version (UUID) with the _v1 types, from `migrate template`')
    .option('--approver <name...>', 'who may approve (default: WSMIGRATE_APPROVERS); one is needed, or --any-approver')
    .option('--any-approver', 'accept any approver name (recorded in the memo)', false)
    .option('--approval-timeout <duration>', 'wait this long (e.g. 30m, 4h), escalate once, wait again, then abort', '4h')
    .option('--escalate-to <who>', 'who the escalation notification names')
    .option('--build-timeout <duration>', 'longest one Coder build may take', '30m')
    .option('--allow-inactive-version', ALLOW_INACTIVE_HELP, false)
    .option('--dry-run', 'back up, rewrite and verify; change nothing', false)
    .option('--wait', 'wait for the result and print it', false)
    .addHelpText('after', HELP)
    .action(async (target: string, o, cmd: Command) => {
      const [owner, workspace, extra] = target.split('/');
      if (!owner || !workspace || extra !== undefined) throw new CliError(`'${target}' is not owner/workspace (e.g. alice/dev)`, EXIT.usage);
      const cfg = loadConfig();
      const input = {
        owner,
        workspace,
        template: o.template,
        targetVersionId: o.version,
        ...(o.allowInactiveVersion ? { allowInactiveVersion: true } : {}),
        dryRun: o.dryRun,
        buildTimeout: o.buildTimeout,
        approval: { policy: 'all' as const, approvers: o.approver ?? cfg.approvers, anyApprover: o.anyApprover, timeout: o.approvalTimeout, escalateTo: o.escalateTo },
      };
      try {
        // Refused here, before a connection: a run nobody could approve must not even start.
        parseInput(migrateWorkspaceInputSchema, input);
      } catch (err) {
        if (err instanceof InputError) throw usageErrorOf(err);
        throw err;
      }
      const { refuseUnknownWorkspaceNow } = await import('../names-now');
      await refuseUnknownWorkspaceNow(cfg, owner, workspace, o.template);
      const log = await cliLogger(io, cmd);
      const { startWorkspaceRecovery } = await import('../../client/recovery');
      const { client, connection } = await connectForCommand(cfg, log);
      try {
        const handle = await startWorkspaceRecovery(client, input, { taskQueue: cfg.taskQueue });
        const { pendingApproval } = await import('../../client/approvals');
        await reportStartedRun(io, log, handle, { taskQueue: cfg.taskQueue, dryRun: Boolean(o.dryRun), wait: Boolean(o.wait), pendingApproval: () => pendingApproval(client, handle.workflowId) });
      } catch (err) {
        if (err instanceof InputError) throw usageErrorOf(err);
        throw err;
      } finally {
        await connection.close();
      }
    });
}
