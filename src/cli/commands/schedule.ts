import type { Command } from 'commander';
import { InputError } from '../../domain/migration-input';
import { addFleetOptions, fleetInputFromOptions, isOrganizationRun, templatesOf } from '../fleet-options';
import { organizationInputFromOptions } from '../organization-options';
import { cliLogger } from '../cli-logger';
import { withTemporal, type Client } from '../with-temporal';
import { CliError, EXIT, describeError, type CliIo } from '../io';
import { refuseUnknownNamesNow } from '../names-now';
import { usageErrorOf } from '../input-options';
import { RefusedError } from '../../client/refused-error';

/** gRPC INVALID_ARGUMENT anywhere in the chain (the SDK sometimes passes on only the server's text, hence the words too). */
function isInvalidArgument(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) if (e.code === 3) return true;
  return false;
}

/** A schedule about to take windows (created unpaused, unpaused, triggered): refused beside a run or schedule sharing a template. */
async function refuseWindowsBesideRuns(
  client: Client,
  name: string,
  workflowType: string | undefined,
  input: unknown,
  taskQueue: string | undefined,
  opts: { ownWindows: boolean; otherSchedules?: boolean },
): Promise<void> {
  const { coverageOf } = await import('../../domain/fleet-coverage');
  const { refuseScheduleBesideRuns } = await import('../../client/fleet-conflicts');
  const { fleetScheduleId } = await import('../../client/schedules');
  const claim = coverageOf(workflowType, input, taskQueue);
  if (!claim || !workflowType) return;
  await refuseScheduleBesideRuns(client, { ...claim, workflowType }, fleetScheduleId(name), { ownWindows: opts.ownWindows, otherSchedules: opts.otherSchedules ?? !opts.ownWindows });
}

/** The name an operator typed (`nightly`), from the schedule's id (`wsmigrate-nightly`). */
function shortName(scheduleId: string): string {
  return scheduleId.replace(/^wsmigrate-/, '');
}

export function registerScheduleCommands(program: Command, io: CliIo): void {
  const schedule = program
    .command('schedule')
    .description('maintenance windows: Temporal Schedules that start a fleet batch (overlap skipped, catch-up 1h)');

  addFleetOptions(schedule.command('create').description('create a schedule that starts `migrateFleet` with limit = --batch at each window'))
    .argument('<name>', "the schedule's name (its id is wsmigrate-<name>)")
    .requiredOption('--cron <expr>', "when, as cron: '0 2 * * 6' = Saturdays 02:00")
    .option('--timezone <zone>', 'IANA time zone of the cron expression, e.g. Europe/Berlin (default UTC)')
    .requiredOption('--batch <n>', 'migrations started per window (the fleet\'s limit); the next window continues')
    .option('--paused', 'create it paused (unpause when ready)', false)
    .option('--json', 'print {"scheduleId": …}', false)
    .addHelpText(
      'after',
      `
Example (50 workspaces each Saturday night in Berlin, template already migrated):
  wsmigrate schedule create k8s-dev-nightly --org coder --template k8s-dev --version 4b1c… \\
    --cron "0 2 * * 6" --timezone Europe/Berlin --batch 50 --canary 0 --approval none

A window never starts while the previous one runs (overlap SKIP); one missed by more than an hour is dropped.
Each window is a fleet run: wsmigrate fleet status <its workflow id> (see 'wsmigrate schedule describe <name>').`,
    )
    .action(async (name: string, o, cmd: Command) => {
      const { loadConfig } = await import('../../config/env');
      const { createFleetSchedule, controlFleetSchedule } = await import('../../client/schedules');
      if (o.limit !== undefined) throw new CliError(`schedule create takes --batch <n> (migrations per window), not --limit; each window is a fleet run with limit = --batch`, EXIT.usage);
      if (!/^[1-9]\d*$/.test(String(o.batch))) throw new CliError(`--batch must be a whole number of at least 1 (got '${o.batch}')`, EXIT.usage);
      if (templatesOf(o).length === 0 && !o.allTemplates) throw new CliError('schedule create needs --template <name> (repeat it for several templates) or --all-templates', EXIT.usage);
      if (isOrganizationRun(o) && o.version !== undefined) throw new CliError("--version names one template's _v1 version; leave it out with --all-templates or several --template", EXIT.usage);
      const log = await cliLogger(io, cmd);
      const names = { organization: o.org as string, templates: templatesOf(o), owners: (o.owner as string[] | undefined) ?? [], exclude: (o.exclude as string[] | undefined) ?? [], ...(o.version ? { version: o.version as string } : {}) };
      const checked = await refuseUnknownNamesNow(loadConfig(), names, 'schedule');
      await withTemporal(async (client, taskQueue) => {
        let id: string;
        try {
          const spec = { cron: o.cron, timezone: o.timezone, batch: Number(o.batch), taskQueue };
          const orgRun = isOrganizationRun(o);
          const input = orgRun ? organizationInputFromOptions(o, loadConfig().approvers) : fleetInputFromOptions(o, loadConfig().approvers);
          if (!o.paused) await refuseWindowsBesideRuns(client, name, orgRun ? 'migrateOrganization' : 'migrateFleet', input, taskQueue, { ownWindows: false });
          if (orgRun) {
            const { createOrganizationSchedule } = await import('../../client/organization');
            id = await createOrganizationSchedule(client, name, input as Parameters<typeof createOrganizationSchedule>[2], spec);
          } else {
            id = await createFleetSchedule(client, name, input as Parameters<typeof createFleetSchedule>[2], spec);
          }
        } catch (err) {
          if (err instanceof InputError) throw usageErrorOf(err);
          if (err instanceof RefusedError) throw err;
          if (/already (exists|running)/i.test((err as Error).message)) throw new CliError(`a schedule named '${name}' exists; delete it first or pick another name`, EXIT.usage);
          if (isInvalidArgument(err) || /cron|calendar|time ?zone|\w+ is not in range \[/i.test(describeError(err))) {
            throw new CliError(`Temporal refused the schedule's spec: ${describeError(err)}; check --cron (e.g. '0 2 * * 6' = Saturdays 02:00) and --timezone (an IANA zone, e.g. Europe/Berlin)`, EXIT.usage);
          }
          throw err;
        }
        if (o.paused) await controlFleetSchedule(client, id, 'pause', 'created paused');
        log.info({ scheduleId: id, cron: o.cron, timezone: o.timezone, batch: Number(o.batch), paused: Boolean(o.paused), taskQueue }, 'schedule created');
        io.out(o.json ? JSON.stringify({ scheduleId: id }) : `created schedule ${id}${o.paused ? ' (paused)' : ''}\n  describe: wsmigrate schedule describe ${name}`);
        if (checked === 'not-checked') {
          io.err("note: names not checked (CODER_URL and CODER_SESSION_TOKEN are not set here): each window's fleet refuses a template, owner or workspace Coder does not know, before any change");
        }
      }, log);
    });

  schedule
    .command('list')
    .description("wsmigrate's schedules: cron, paused or not, next and recent windows")
    .option('--json', 'print JSON', false)
    .addHelpText('after', '\nExample:\n  wsmigrate schedule list\n\nExit codes: 0 listed (also when there is none), 1 Temporal unreachable.')
    .action(async (o, cmd: Command) => {
      const log = await cliLogger(io, cmd);
      const { listFleetSchedules } = await import('../../client/schedules');
      const list = await withTemporal((c) => listFleetSchedules(c), log);
      if (o.json) return io.out(JSON.stringify(list, null, 2));
      if (list.length === 0) return io.out('no wsmigrate schedules');
      for (const s of list) {
        const next = s.paused ? `- (paused: wsmigrate schedule unpause ${shortName(s.scheduleId)})` : (s.nextRuns[0] ?? '-');
        io.out(`${s.scheduleId.padEnd(32)} ${s.paused ? 'paused ' : 'active '} ${s.cron.join(' ')} ${s.timezone ?? ''}  next ${next}`);
      }
    });

  schedule
    .command('describe')
    .description('one schedule: its fleet input, windows taken and skipped, recent runs')
    .argument('<name>', "the name given to 'schedule create' (without the wsmigrate- prefix of its id)")
    .option('--json', 'print JSON', false)
    .addHelpText('after', "\nExample:\n  wsmigrate schedule describe k8s-dev-weekend   # its windows' fleet ids: wsmigrate fleet status <id>\n\nExit codes: 0 shown, 1 no such schedule or Temporal unreachable.")
    .action(async (name: string, o, cmd: Command) => {
      const log = await cliLogger(io, cmd);
      const { describeFleetSchedule } = await import('../../client/schedules');
      const d = await withTemporal((c) => describeFleetSchedule(c, name), log);
      if (o.json) return io.out(JSON.stringify(d, null, 2));
      io.out(`${d.scheduleId}: ${d.paused ? 'paused' : 'active'} · ${d.cron.join(' ')} ${d.timezone ?? ''} · ${d.actionsTaken} window(s) taken, ${d.skippedOverlap} skipped (overlap)`);
      if (d.note) io.out(`  note: ${d.note}`);
      const upcoming = d.nextRuns.slice(0, 3).join(', ') || '-';
      // Temporal still lists the cron's times while paused; none of them runs until it is unpaused.
      io.out(`  next: ${d.paused ? `none while paused (the cron's windows are skipped until 'wsmigrate schedule unpause ${shortName(d.scheduleId)}'; then ${upcoming})` : upcoming}`);
      for (const r of d.recentRuns) io.out(`  ran ${r.takenAt}: wsmigrate fleet status ${r.workflowId}`);
    });

  const actions = { pause: 'skip windows until unpaused', unpause: 'take windows again', trigger: 'start a window now (skipped if one runs)', delete: 'delete the schedule (running fleets go on)' } as const;
  for (const action of ['pause', 'unpause', 'trigger', 'delete'] as const) {
    schedule
      .command(action)
      .description(actions[action])
      .argument('<name>', "the name given to 'schedule create'")
      .option('--note <text>', 'why (pause/unpause)')
      .addHelpText(
        'after',
        `\nExample:\n  wsmigrate schedule ${action} k8s-dev-weekend${action === 'pause' || action === 'unpause' ? ' --note "change freeze"' : ''}\n\n` +
          `Exit codes: 0 done, ${action === 'unpause' || action === 'trigger' ? '3 refused (a fleet or organization run of one of its templates runs, or another unpaused schedule shares one), ' : ''}1 no such schedule or Temporal unreachable.`,
      )
      .action(async (name: string, o, cmd: Command) => {
        const log = await cliLogger(io, cmd);
        const { controlFleetSchedule, describeFleetSchedule } = await import('../../client/schedules');
        const { scheduleId: id, wasPaused, triggered, stillRunning } = await withTemporal(async (c) => {
          if (action === 'unpause' || action === 'trigger') {
            // A window beside a fleet of the same template started by hand migrates behind its gates.
            const d = await describeFleetSchedule(c, name);
            await refuseWindowsBesideRuns(c, name, d.workflowType, d.input, d.taskQueue, { ownWindows: true, otherSchedules: action === 'unpause' });
          }
          return controlFleetSchedule(c, name, action, o.note);
        }, log);
        log.info({ scheduleId: id, action, ...(o.note ? { note: o.note } : {}) }, `schedule ${action} done`);
        if (action === 'trigger' && triggered?.skippedBeside !== undefined) {
          // Temporal's overlap SKIP: the window running now goes on; this trigger started nothing.
          const running = triggered.skippedBeside ? `its window ${triggered.skippedBeside} is still running` : 'a window of it is still running';
          io.out(`skipped ${id}: ${running}, so this trigger started nothing (one window at a time)${triggered.skippedBeside ? `; watch it: wsmigrate fleet status ${triggered.skippedBeside}` : ''}`);
          return;
        }
        const started = action === 'trigger' ? (triggered?.started ? `: window ${triggered.started} started` : ': Temporal has not started it yet (wsmigrate schedule describe ' + name + ' shows when it does)') : '';
        io.out(`${{ pause: 'paused', unpause: 'unpaused', trigger: 'triggered', delete: 'deleted' }[action]} ${id}${started}`);
        for (const w of stillRunning ?? []) {
          io.err(`note: its window ${w} is still running: a ${action} stops no window that has started. Watch it (wsmigrate fleet status ${w}) or stop it (wsmigrate fleet cancel ${w} --by <you>)`);
        }
        if (action === 'trigger' && wasPaused) io.err(`note: ${id} is paused; this window runs anyway, the cron's windows stay skipped until 'wsmigrate schedule unpause ${name}'`);
      });
  }
}
