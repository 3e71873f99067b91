import type { Command } from 'commander';
import { Option } from 'commander';
import { loadConfig } from '../../config/env';
import { InputError, migrateTemplateInputSchema, migrateWorkspaceInputSchema, parseInput } from '../../domain/migration-input';
import type { Logger } from '../../adapters/logging/logger';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, type CliIo } from '../io';
import { addModuleOptions, remoteModulesAllowed } from '../module-options';
import { organizationOption } from '../organization-option';
import { reportStartedRun } from '../started-run';
import { connectForCommand } from '../with-temporal';
import { ALLOW_INACTIVE_HELP, usageErrorOf } from '../input-options';

function approvalOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--approval <policy>', 'which steps wait for a human: none | destructive | all').choices(['none', 'destructive', 'all']).default('destructive'))
    .option('--approver <name...>', 'who may approve (default: WSMIGRATE_APPROVERS); required when a gate asks for approval')
    .option('--any-approver', 'accept any approver name (anyone who can reach Temporal); recorded in the memo', false)
    .option('--approval-timeout <duration>', 'wait this long (e.g. 30m, 4h), escalate once, wait again, then abort and restore', '4h')
    .option('--escalate-to <who>', 'who the escalation notification names');
}

function approvalInput(o: { approval: string; approver?: string[]; anyApprover: boolean; approvalTimeout: string; escalateTo?: string }) {
  return { policy: o.approval, approvers: o.approver ?? [...loadConfig().approvers], anyApprover: o.anyApprover, timeout: o.approvalTimeout, escalateTo: o.escalateTo };
}

async function start(io: CliIo, log: Logger, what: 'workspace' | 'template', input: Record<string, unknown>, wait: boolean): Promise<void> {
  const cfg = loadConfig();
  // Refuse bad input (e.g. approvals with no approver) before connecting to anything.
  try {
    parseInput(what === 'workspace' ? migrateWorkspaceInputSchema : migrateTemplateInputSchema, input);
  } catch (err) {
    if (err instanceof InputError) throw usageErrorOf(err);
    throw err;
  }
  if (what === 'workspace') {
    const { refuseUnknownWorkspaceNow } = await import('../names-now');
    await refuseUnknownWorkspaceNow(cfg, String(input.owner), String(input.workspace), String(input.template));
  }
  const { startTemplateMigration, startWorkspaceMigration } = await import('../../client/migrations');
  const { client, connection } = await connectForCommand(cfg, log);
  try {
    const handle = what === 'workspace'
      ? await startWorkspaceMigration(client, input as never, { taskQueue: cfg.taskQueue })
      : await startTemplateMigration(client, input as never, { taskQueue: cfg.taskQueue });
    const { pendingApproval } = await import('../../client/approvals');
    await reportStartedRun(io, log, handle, { taskQueue: cfg.taskQueue, dryRun: Boolean(input.dryRun), wait, pendingApproval: () => pendingApproval(client, handle.workflowId) });
  } catch (err) {
    if (err instanceof InputError) throw usageErrorOf(err);
    throw err;
  } finally {
    await connection.close();
  }
}

export function registerMigrateCommands(program: Command, io: CliIo): void {
  const migrate = program.command('migrate').description('start durable migrations on the worker (needs a running `wsmigrate worker`)');

  approvalOptions(
    addModuleOptions(migrate
      .command('template'))
      .description('rewrite a template to _v1 types (with removed{} guards for volumes), push it as a new version and promote it after approval')
      .addOption(organizationOption())
      .argument('<template>', 'template name')
      .option('--no-promote', 'push the new version but leave the active one in place')
      .option('--rename-different', 'also rename types whose _v1 twin is another implementation (you fix their bodies by hand)', false)
      .option('--zero-touch', 'push a version that migrates each workspace itself at its next build (Terraform >= 1.7; see template rewrite --help)', false)
      .option('--dry-run', 'report what would change; push nothing', false)
      .option('--wait', 'wait for the result and print it', false),
  )
    .addHelpText('after', '\nExample:\n  wsmigrate migrate template --org coder k8s-dev --approver alice\n\nPrints the workflow id; the new version id in its result is what `migrate workspace --version` takes.')
    .action(async (template: string, o, cmd: Command) => {
      await start(io, await cliLogger(io, cmd), 'template', {
        organization: o.org,
        template,
        stopBeforePromote: !o.promote,
        renameDifferent: o.renameDifferent,
        allowRemoteModules: remoteModulesAllowed(o, io),
        ...(o.zeroTouch ? { zeroTouch: true } : {}),
        dryRun: o.dryRun,
        approval: approvalInput(o),
      }, o.wait);
    });

  approvalOptions(
    migrate
      .command('workspace')
      .description("migrate one workspace's state to the _v1 types, then start it pinned to the new template version")
      .argument('<owner/workspace>', 'the workspace, as owner/name')
      .requiredOption('--template <name>', 'the template the workspace uses')
      .requiredOption('--version <id>', 'the template version (UUID) with the _v1 types, from `migrate template`')
      .addOption(new Option('--option <A|B>', 'A: stop first (safe default); B: stay running, start pinned to the new version').choices(['A', 'B']).default('A'))
      .addOption(new Option('--strategy <s>', 'rename: offline lossless state rewrite; import: terraform import (needs cluster access)').choices(['rename', 'import']).default('rename'))
      .option('--build-timeout <duration>', 'longest one Coder build may take', '30m')
      .option('--allow-inactive-version', ALLOW_INACTIVE_HELP, false)
      .option('--dry-run', 'read, rewrite and verify; change nothing', false)
      .option('--wait', 'wait for the result and print it', false),
  )
    .addHelpText('after', '\nExample:\n  wsmigrate migrate workspace alice/dev --template k8s-dev --version 4b1c… --approver alice\n\nAny failure after the backup restores the backed-up state and the prior running/stopped state.\n' +
        '--version must be the template\'s active version (refused in preflight otherwise, nothing stopped): on any other, the\n' +
        'migrated workspace shows "outdated" and its owner\'s Update builds the active version: when that is an old one, on the\n' +
        '_v1 state, destroying the home PVC. Promote the version first; --allow-inactive-version migrates anyway (its result warns\n' +
        'until you promote).')
    .action(async (target: string, o, cmd: Command) => {
      const [owner, workspace, extra] = target.split('/');
      if (!owner || !workspace || extra !== undefined) throw new CliError(`'${target}' is not owner/workspace (e.g. alice/dev)`, EXIT.usage);
      await start(io, await cliLogger(io, cmd), 'workspace', {
        owner,
        workspace,
        template: o.template,
        targetVersionId: o.version,
        option: o.option,
        strategy: o.strategy,
        ...(o.allowInactiveVersion ? { allowInactiveVersion: true } : {}),
        dryRun: o.dryRun,
        buildTimeout: o.buildTimeout,
        approval: approvalInput(o),
      }, o.wait);
    });
}
