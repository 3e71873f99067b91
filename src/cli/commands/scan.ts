import type { Command } from 'commander';
import { Option } from 'commander';
import { CoderClient } from '../../adapters/coder';
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

It only reads (GET): run it before and after each batch. Talks to Coder directly (CODER_URL,
CODER_SESSION_TOKEN of a template admin: reading state needs it); no Temporal needed.

Examples:
  wsmigrate scan --template k8s-dev
  wsmigrate scan --org coder          # every template: does its active version use deprecated types, its workspaces by health
  wsmigrate scan --template k8s-dev --org coder --json | jq '.workspaces[] | select(.health=="damaged")'

Exit codes: 0 nothing damaged or unreadable, 1 failure, 2 usage (e.g. an unknown template), 4 something is damaged or unreadable.`;

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
      const bad = report.counts.damaged + report.counts.unreadable;
      if (bad > 0) {
        throw new CliError(`${report.counts.damaged} damaged and ${report.counts.unreadable} unreadable workspace(s); see 'wsmigrate recover --help'`, EXIT.changesPending);
      }
    });
}

async function scanOrganizationCommand(io: CliIo, cmd: Command, o: { org: string; json: boolean; concurrency: number; depth: number }): Promise<void> {
  const c = requireCoder(loadConfig());
  const log = await cliLogger(io, cmd);
  log.info({ coderUrl: c.url, organization: o.org }, 'reading every template of the organization from Coder');
  const { scanOrganization, formatOrganizationScan } = await import('../../client/org-scan');
  const coder = new CoderClient({ url: c.url, token: c.sessionToken, userAgent: 'wsmigrate-cli' });
  const report = await scanOrganization(coder, { organization: o.org, concurrency: o.concurrency, depth: o.depth });
  log.info({ counts: report.counts, templates: report.templates.length }, 'scan done');
  if (o.json) io.out(JSON.stringify(report, null, 2));
  else for (const line of formatOrganizationScan(report)) io.out(line);
  const bad = report.counts.damaged + report.counts.unreadable;
  if (bad > 0) throw new CliError(`${report.counts.damaged} damaged and ${report.counts.unreadable} unreadable workspace(s); see 'wsmigrate recover --help'`, EXIT.changesPending);
}

function positiveInt(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a positive integer, got '${value}'`, EXIT.usage);
    return n;
  };
}
