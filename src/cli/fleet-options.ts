import { Option, type Command } from 'commander';
import type { MigrateFleetInput } from '../domain/fleet-input';
import { organizationOption } from './organization-option';

/** The options `fleet start` and `schedule create` share: what a fleet run migrates and how. */
export function addFleetOptions(cmd: Command): Command {
  return cmd
    .addOption(organizationOption())
    .option('--template <name>', 'the template whose workspaces to migrate; repeat it for several (one run for the organization, one canary gate)', collectTemplates, [])
    .option('--all-templates', "every template of --org whose active version still declares deprecated types (the others are listed as nothing to do)", false)
    .option('--version <id>', 'the _v1 template version (UUID) to migrate to; without it the template is migrated first')
    .option('--concurrency <n>', 'migrations running at once after the canary (1..200)', '10')
    .option('--provisioner-share <x>', "the share of Coder's online provisioner daemons the fleet may keep busy (0.05..1; 1 takes them all), never more than --concurrency", '0.5')
    .option('--no-pacing', "run --concurrency migrations whatever Coder's daemons can take (default: paced by them, users' queued builds first)")
    .option('--canary <k>', 'workspaces migrated first, before the fleet-continue gate (0 = none)', '3')
    .addOption(new Option('--option <A|B>', 'A: stop first (safe default); B: stay running, start pinned to the new version').choices(['A', 'B']).default('A'))
    .addOption(new Option('--strategy <s>', 'rename (offline, lossless) or import (terraform import; needs cluster access)').choices(['rename', 'import']).default('rename'))
    .option('--owner <name...>', 'only workspaces of these owners')
    .option('--name <glob>', "only workspaces whose name matches (e.g. 'dev-*')")
    .addOption(new Option('--status <s>', 'only running or only stopped workspaces').choices(['any', 'running', 'stopped']).default('any'))
    .option('--exclude <owner/workspace...>', 'never touch these')
    .option('--limit <n>', 'start at most n migrations in this run (a batch); a later run continues')
    .option('--budget-percent <p>', 'failures (failed + needs-attention) tolerated, in percent of finished', '10')
    .option('--budget-min <n>', '…but at least this many', '2')
    .addOption(new Option('--approval <policy>', "the fleet's own gates (fleet-continue, fleet-archive): none | destructive | all").choices(['none', 'destructive', 'all']).default('destructive'))
    .addOption(new Option('--workspace-approval <policy>', "each workspace's gates (the guard still asks when a plan needs it)").choices(['none', 'destructive', 'all']).default('none'))
    .option('--approver <name...>', 'who may approve, pause, resume and cancel (default: WSMIGRATE_APPROVERS); gates that ask need one, or --any-approver')
    .option('--any-approver', 'accept any approver name (when no --approver is given); recorded in the memo, passed to every workspace', false)
    .option('--strict-modules', 'refuse a template that calls modules whose code is not in it (registry, git::); by default the rest is rewritten and each workspace holding deprecated types inside one is refused', false)
    .addOption(new Option('--allow-remote-modules', 'deprecated: the default now; does nothing').hideHelp())
    .option('--approval-timeout <duration>', 'a gate waits this long, escalates once, waits again, then cancels the fleet', '4h')
    .option('--escalate-to <who>', 'who the escalation notification names')
    .option('--no-require-active-version', "leave the template's 'require active version' as it is (default: on while a fleet run runs, given back as it ends however it ends, by the worker's lock keeper after a terminate: with Coder Premium it holds members' starts to the active version, not owners' or admins', nor explicit old-version builds by them; ignored without Premium, which 'fleet status' says; an old version promoted again while a fleet runs switches it off and pauses it (between runs and a schedule's windows it is off))")
    .option('--no-archive', 'keep the old template versions (default: archive the unused ones at the end, after approval)')
    .option('--build-timeout <duration>', 'longest one Coder build may take', '30m')
    .option('--zero-touch', 'push a self-migrating version (Terraform >= 1.7); then only a pinned start per running workspace, stopped ones migrate at their next start', false)
    .option('--dry-run', 'dry-run every workspace: read, rewrite, verify; change nothing', false);
}

const int = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

function collectTemplates(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The templates named on the command line (commander collects repeated --template). */
export function templatesOf(o: Record<string, unknown>): string[] {
  return Array.isArray(o.template) ? (o.template as string[]) : typeof o.template === 'string' ? [o.template] : [];
}

/** More than one --template, or --all-templates: the organization's run (migrateOrganization), not one fleet. */
export function isOrganizationRun(o: Record<string, unknown>): boolean {
  return o.allTemplates === true || templatesOf(o).length > 1;
}

/** Options → the workflow's plain JSON input (validated by its schema, which names each bad field). */
export function fleetInputFromOptions(o: Record<string, unknown>, defaultApprovers: readonly string[]): MigrateFleetInput {
  return {
    organization: o.org as string,
    template: templatesOf(o)[0] as string,
    // An empty value (an unset shell variable) is refused by the input's rules, never read as absent:
    // no --version migrates the template first, no --name takes every workspace.
    ...(o.version !== undefined ? { targetVersionId: o.version as string } : {}),
    concurrency: int(o.concurrency as string),
    canary: int(o.canary as string),
    provisionerShare: Number(o.provisionerShare),
    pacing: o.pacing === false ? 'off' : 'provisioners',
    option: o.option as 'A' | 'B',
    strategy: o.strategy as 'rename' | 'import',
    filters: {
      ...(o.owner ? { owners: o.owner as string[] } : {}),
      ...(o.name !== undefined ? { name: o.name as string } : {}),
      status: o.status as 'any' | 'running' | 'stopped',
      ...(o.exclude ? { exclude: o.exclude as string[] } : {}),
      ...(o.limit !== undefined ? { limit: int(o.limit as string) } : {}),
    },
    failureBudget: { percent: Number(o.budgetPercent), min: int(o.budgetMin as string) },
    approval: {
      policy: o.approval as 'none' | 'destructive' | 'all',
      approvers: (o.approver as string[] | undefined) ?? [...defaultApprovers],
      ...(o.anyApprover ? { anyApprover: true } : {}),
      timeout: o.approvalTimeout as string,
      ...(o.escalateTo ? { escalateTo: o.escalateTo as string } : {}),
    },
    workspaceApproval: { policy: o.workspaceApproval as 'none' | 'destructive' | 'all' },
    archiveOldVersions: o.archive !== false,
    requireActiveVersion: o.requireActiveVersion !== false,
    buildTimeout: o.buildTimeout as string,
    dryRun: Boolean(o.dryRun),
    ...(o.strictModules ? { allowRemoteModules: false } : {}),
    ...(o.zeroTouch ? { zeroTouch: true } : {}),
  };
}
