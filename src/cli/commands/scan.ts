import type { Command } from 'commander';
import { Option } from 'commander';
import { CoderClient, isCoderApiError } from '../../adapters/coder';
import { UnknownNameError, formatScanReport, scanFleet } from '../../client/fleet-scan';
import { loadConfig, requireCoder } from '../../config/env';
import { cliLogger } from '../cli-logger';
import { CliError, EXIT, type CliIo } from '../io';

const HELP = `
Reads every workspace of a template and classifies it from its recent builds and their states:
  unmigrated  deprecated kubernetes_* types still in its state
  migrated    latest build succeeded on a _v1 version, every protected object present
  damaged     the latest build failed, or a build lost a protected object (PVC, PV, or a resource
              marked # wsmigrate:protect): "forgotten" (the state lost the entry, the object is
              still there: 'wsmigrate recover' brings it back) or "destroyed" (deleted, or a new
              uid: its data is gone; restore it from your storage backups)
  busy        a build is running
  unreadable  its state cannot be read or parsed (the row says why)
A dormant workspace (Coder's dormant_at set) is marked DORMANT whatever its health, with what to do:
Coder lets nobody start it until its owner or an admin makes it active, so a migration or recovery
that must start it refuses it.
A migrated workspace is marked AT RISK, whatever its health, when the template's active version is
not its own and would destroy its _v1 volumes (an old version promoted again, a version pushed by
hand): its owner's Update, or an autostart on the active version (automatic updates "always",
require_active_version), builds that version on its state. The lines after the table say who would
fire it and the 'coder templates versions promote' command that puts the migrated version back.
Run scan after any promotion.

It only reads (GET): run it before and after each batch. Talks to Coder directly (CODER_URL,
CODER_SESSION_TOKEN of a template admin: reading state needs it); no Temporal needed.

Examples:
  wsmigrate scan --template k8s-dev
  wsmigrate scan --org coder          # every template: does its active version use deprecated types, its workspaces by health
  wsmigrate scan --template k8s-dev --org coder --json | jq '.workspaces[] | select(.health=="damaged")'

Exit codes: 0 nothing damaged, unreadable or at risk, 1 failure, 2 usage (e.g. an unknown template), 4 something is damaged, unreadable or AT RISK.`;

export function registerScanCommand(program: Command, io: CliIo): void {
  program
    .command('scan')
    .description("read-only fleet report: each workspace's health (unmigrated, migrated, damaged, busy, unreadable)")
    .option('--template <name>', 'the template whose workspaces to read (without it, with --org: every template of the organization)')
    .option('--org <organization>', 'only workspaces in this organization; without --template, every template of it')
    .option('--json', 'print {"counts": {...}, "workspaces": [...]} for scripts', false)
    .addOption(new Option('--concurrency <n>', 'workspaces read at a time').default('8').argParser(positiveInt('--concurrency')))
    .addOption(new Option('--depth <n>', 'recent builds read per workspace (a loss older than this is not seen)').default('10').argParser(positiveInt('--depth')))
    .addHelpText('after', HELP)
    .action(async (o: { template?: string; org?: string; json: boolean; concurrency: number | string; depth: number | string }, cmd: Command) => {
      if (!o.template && !o.org) throw new CliError('scan needs --template <name>, or --org <organization> for every template of it', EXIT.usage);
      if (!o.template) return scanOrganizationCommand(io, cmd, { org: o.org as string, json: o.json, concurrency: Number(o.concurrency), depth: Number(o.depth) });
      const c = requireCoder(loadConfig());
      const log = await cliLogger(io, cmd);
      log.info({ coderUrl: c.url, ...(o.org ? { organization: o.org } : {}), concurrency: Number(o.concurrency), depth: Number(o.depth) }, 'reading workspaces from Coder');
      const coder = new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli' });
      const tty = process.stderr.isTTY === true;
      const report = await scanFleet(coder, {
        template: o.template,
        ...(o.org ? { organization: o.org } : {}),
        concurrency: Number(o.concurrency),
        depth: Number(o.depth),
        ...(tty ? { onProgress: (done: number, total: number) => process.stderr.write(`\rscanned ${done}/${total}${done === total ? '\n' : ''}`) } : {}),
      }).catch((err: unknown) => {
        throw err instanceof UnknownNameError ? new CliError(err.message, EXIT.usage) : err;
      });
      log.info({ counts: report.counts }, 'scan done');
      for (const row of report.workspaces) {
        if (row.health === 'damaged' || row.health === 'unreadable') log.warn({ workspace: row.workspace, health: row.health, reason: row.reason }, `workspace ${row.health}`);
      }
      if (o.json) io.out(JSON.stringify(report, null, 2));
      else for (const line of formatScanReport(report)) io.out(line);
      for (const row of report.workspaces) {
        if (row.atRisk) log.warn({ workspace: row.workspace, activeVersion: row.atRisk.activeVersion }, 'workspace at risk: the active version would destroy its migrated volumes');
      }
      needsAttention(report.counts, report.atRisk);
    });
}

async function scanOrganizationCommand(io: CliIo, cmd: Command, o: { org: string; json: boolean; concurrency: number; depth: number }): Promise<void> {
  const c = requireCoder(loadConfig());
  const log = await cliLogger(io, cmd);
  log.info({ coderUrl: c.url, organization: o.org }, 'reading every template of the organization from Coder');
  const { scanOrganization, formatOrganizationScan } = await import('../../client/org-scan');
  const coder = new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli' });
  const report = await scanOrganization(coder, { organization: o.org, concurrency: o.concurrency, depth: o.depth }).catch((err: unknown) => {
    // As an unknown --template: a usage error (2), not a failure (1).
    if (isCoderApiError(err, 'not-found')) throw new CliError(`no organization '${o.org}' in Coder that this token can read: check --org (the organization's name, e.g. 'coder', or its id; Coder answers 404 when the token's user is not a member)`, EXIT.usage);
    throw err;
  });
  log.info({ counts: report.counts, templates: report.templates.length }, 'scan done');
  if (o.json) io.out(JSON.stringify(report, null, 2));
  else for (const line of formatOrganizationScan(report)) io.out(line);
  needsAttention(report.counts, report.atRisk);
}

/** Exit 4 when a workspace is damaged, unreadable or at risk; the message names each count and where to look. */
function needsAttention(counts: { damaged: number; unreadable: number }, atRisk: number): void {
  const parts = [
    ...(counts.damaged + counts.unreadable > 0 ? [`${counts.damaged} damaged and ${counts.unreadable} unreadable workspace(s); see 'wsmigrate recover --help'`] : []),
    ...(atRisk > 0 ? [`${atRisk} workspace(s) AT RISK: the template's active version would destroy their migrated volumes; promote the migrated version again (the command is under the table)`] : []),
  ];
  if (parts.length > 0) throw new CliError(parts.join('; '), EXIT.changesPending);
}

function positiveInt(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a positive integer, got '${value}'`, EXIT.usage);
    return n;
  };
}
