#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/env';
import { registerApprovalCommands } from './commands/approvals';
import { registerBackupCommands } from './commands/backups';
import { registerChatopsCommand } from './commands/chatops';
import { registerCodecServerCommand } from './commands/codec-server';
import { registerDemoCommands } from './commands/demo';
import { registerFleetCommands } from './commands/fleet';
import { registerMigrateCommands } from './commands/migrate';
import { registerPlanCommands } from './commands/plan';
import { registerRecoverCommand } from './commands/recover';
import { registerScanCommand } from './commands/scan';
import { registerScheduleCommands } from './commands/schedule';
import { registerSetupCommand } from './commands/setup';
import { registerSimCommands } from './commands/sim';
import { registerStateCommands } from './commands/state';
import { registerStateRestoreCommand } from './commands/state-restore';
import { registerTemplateCommands } from './commands/template';
import { registerWorkerCommands } from './commands/worker';
import { reportFailure, reportWarning } from './cli-logger';
import { unknownOptionMessage } from './option-typos';
import { unsupportedNodeWarning, versionText } from './version';
import { missingNamespaceMessage } from './missing-namespace';
import { CliError, EXIT, describeError, exitCodeOf, endQuietlyWhenOutputCloses, processIo, type CliIo } from './io';

export function buildProgram(io: CliIo, nodeVersion: string = process.versions.node): Command {
  const program = new Command('wsmigrate')
    .version(versionText(nodeVersion), '-V, --version', "print wsmigrate's version, the Node.js running it and the Temporal SDK's")
    // The root's options only before a command's name: `--version <id>` after one is that command's (a template version).
    .enablePositionalOptions()
    .description(
      "Migrates Coder workspaces' Terraform state from deprecated kubernetes_* types to their _v1 twins,\n" +
        'durably (Temporal), with backups, approvals, compensation, and a guard that never lets a build destroy a volume.',
    )
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nTypical run:\n  wsmigrate setup                                       # once per namespace: search attributes\n  wsmigrate worker &                                    # executes the steps\n  wsmigrate fleet start --org coder --template k8s-dev --approver you --wait   # template, canary, approval, the rest\n  wsmigrate approvals                                   # every gate waiting on a human\n  wsmigrate approve wsmigrate-fleet/coder/k8s-dev --approver you\n  wsmigrate scan --template k8s-dev                     # health of every workspace, before and after\n\nOne at a time: migrate template, migrate workspace, status, recover.  Offline tools: state rewrite, template rewrite, plan check.\nExit codes: 0 ok, 1 failure, 2 usage, 3 denied/refused, 4 changes pending.',
    );
  for (const register of [registerSetupCommand, registerFleetCommands, registerMigrateCommands, registerApprovalCommands, registerWorkerCommands, registerChatopsCommand, registerCodecServerCommand, registerDemoCommands, registerPlanCommands, registerScheduleCommands, registerSimCommands, registerStateCommands, registerStateRestoreCommand, registerTemplateCommands, registerScanCommand, registerRecoverCommand, registerBackupCommands]) {
    register(program, io);
  }
  program
    .command('version')
    .description("print wsmigrate's version, the Node.js running it and the Temporal SDK's (as --version)")
    .action(() => io.out(versionText(nodeVersion)));
  return program;
}

/** The command `argv` names (`fleet start`) and the words after its name. */
function commandNamedBy(program: Command, argv: string[]): { cmd: Command; rest: string[] } {
  let cmd = program;
  let i = 0;
  for (; i < argv.length; i++) {
    const word = argv[i];
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    cmd = sub;
  }
  return { cmd, rest: argv.slice(i) };
}

/**
 * Commander's own errors (unknown option, missing option, bad value) must exit 2 like every other
 * usage error, and its text must go where the command's does: each subcommand copied the root's
 * settings when it was made, so each gets them again here.
 */
function routeCommanderErrors(cmd: Command, io: CliIo, path = 'wsmigrate'): void {
  cmd.exitOverride();
  cmd.configureOutput({ writeOut: (t) => io.out(t), writeErr: (t) => io.err(t.replace(/\n$/, '')) });
  // One line that says what is wrong and where the options are, as for an unknown option: the whole
  // help after it (50 lines for `fleet start`) scrolled the error itself out of sight.
  cmd.showHelpAfterError(`('${path} --help' lists the options)`);
  for (const sub of cmd.commands) routeCommanderErrors(sub, io, `${path} ${sub.name()}`);
}

export async function main(argv: string[], io: CliIo = processIo, nodeVersion: string = process.versions.node): Promise<number> {
  const program = buildProgram(io, nodeVersion);
  routeCommanderErrors(program, io);
  const named = commandNamedBy(program, argv);
  const nodeWarning = unsupportedNodeWarning(nodeVersion);
  if (nodeWarning) await reportWarning(io, named.cmd, nodeWarning);
  // `fleet strat --template x`: the word is a command typo; commander names it (and the one meant), not --template.
  const unknownCommand = named.cmd.commands.length > 0 && named.rest.length > 0 && !named.rest[0].startsWith('-');
  const typo = unknownCommand ? undefined : unknownOptionMessage(named.cmd, named.rest);
  if (typo) {
    await reportFailure(io, named.cmd, typo, EXIT.usage);
    return EXIT.usage;
  }
  let running: Command | undefined;
  program.hook('preAction', (_program, action) => {
    running = action;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const noNamespace = missingNamespaceMessage(err);
    if (noNamespace) {
      await reportFailure(io, running ?? named.cmd, noNamespace, EXIT.usage);
      return EXIT.usage;
    }
    const [message, exitCode] =
      err instanceof CliError ? [err.message, err.exitCode] : err instanceof ConfigError ? [err.message, EXIT.usage] : [describeError(err), exitCodeOf(err)];
    await reportFailure(io, running ?? named.cmd, message, exitCode);
    return exitCode;
  }
}

if (require.main === module) {
  endQuietlyWhenOutputCloses(process.stdout);
  endQuietlyWhenOutputCloses(process.stderr);
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // A command that failed ends now: a worker whose start failed leaves the Temporal runtime's
    // native threads, which would hold the process open after its error line.
    if (code !== EXIT.ok) exitOnceFlushed(code);
  });
}

function exitOnceFlushed(code: number): void {
  let pending = 2;
  const flushed = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}
