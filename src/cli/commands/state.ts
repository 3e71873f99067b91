import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { ImportPlanError, planImports, type ImportStep } from '../../domain/import-plan';
import { renameStateTypes, StateRenameError, type RenameReport } from '../../domain/state-rename';
import { fileProblem } from '../file-problem';
import { CliError, EXIT, type CliIo } from '../io';

const REWRITE_HELP = `
Renames the deprecated kubernetes types whose versioned twin is the same implementation
(kubernetes_deployment -> kubernetes_deployment_v1, kubernetes_daemonset -> kubernetes_daemon_set_v1,
...) in a Terraform v4 state file, offline: resource types, dependencies and check results.
Lineage is kept, serial goes up by one, and every other byte (attributes, identity, private data,
deposed objects, formatting) stays as it was. An already migrated state comes out unchanged.

Types with a different implementation (cron_job, ingress, hpa, pdb, csr, webhooks, csi_driver)
are refused; --skip-different leaves them in place for 'wsmigrate state import-plan'.

Examples:
  coder state pull alice/dev > dev.tfstate
  wsmigrate state rewrite dev.tfstate -o dev.v1.tfstate
  wsmigrate state rewrite dev.tfstate --json > dev.v1.tfstate   (report on stderr)

Exit codes:
  ${EXIT.ok}  written (or already migrated)
  ${EXIT.failure}  IN cannot be read, or is not a Terraform v4 state; nothing written
  ${EXIT.denied}  refused: a resource needs the import strategy, or a rename would collide with its
     _v1 twin already in the state; the message names each address; nothing written`;

const IMPORT_PLAN_HELP = `
Prints the commands of the manual runbook's steps 7 and 9 for each instance of a deprecated type:
'terraform state rm' of the old address and 'terraform import' of the versioned one, with the ID
taken from the state. By default only types that cannot be renamed (see 'state rewrite'); --all
lists every deprecated type. Run them in the template directory after the HCL rewrite, with the
provider initialised and a kubeconfig for the cluster. Nothing is run or written here.

Example:
  wsmigrate state import-plan dev.tfstate --var use_kubeconfig=true --var namespace=coder

Exit codes:
  ${EXIT.ok}  printed (possibly no commands: nothing to import)
  ${EXIT.failure}  IN cannot be read, is not a v4 state, or an instance has no ID to import by`;

interface RewriteOptions {
  output?: string;
  json?: boolean;
  skipDifferent?: boolean;
}

interface ImportPlanOptions {
  all?: boolean;
  json?: boolean;
  stateFile?: string;
  var?: Record<string, string>;
}

function readState(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`${path}: cannot read the state file: ${fileProblem(error)}`, EXIT.failure);
  }
}

/**
 * Writes through a temp file in the target's directory and renames it over the target, so a
 * reader never sees half a state; 0600 because a state holds secrets.
 */
function writeFileAtomically(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new CliError(`${path}: cannot write the migrated state: ${fileProblem(error)}`, EXIT.failure);
  }
}

function describeRewrite(report: RenameReport, input: string, output: string | undefined): string[] {
  if (report.alreadyMigrated) return [`${input}: already migrated, nothing to rename (serial ${report.serial.from} unchanged)`];
  const { resources, instances, dependencies, checkResults } = report.counts;
  const lines = [
    `${input}: renamed ${resources} resource${resources === 1 ? '' : 's'} (${instances} instance${instances === 1 ? '' : 's'}), ` +
      `${dependencies} dependenc${dependencies === 1 ? 'y' : 'ies'}, ${checkResults} check result${checkResults === 1 ? '' : 's'}; ` +
      `serial ${report.serial.from} -> ${report.serial.to}, lineage ${report.lineage} kept`,
    ...report.renamed.map((c) => `  ${c.from} -> ${c.to}`),
  ];
  const inModules = report.renamed.filter((c) => c.from.startsWith('module.'));
  if (inModules.length > 0) {
    lines.push(
      `Warning: ${inModules.length} of them live in modules. Use this state only with a template whose module code declares the _v1 types ` +
        '(a local module rewritten by `wsmigrate template rewrite`); a registry or git module that still declares the old type would destroy them ' +
        'and create empty twins on the next apply. `wsmigrate migrate workspace` checks this against the target version; this offline command cannot.',
    );
  }
  if (report.refused.length > 0) {
    // The import commands edit the state they are planned from: the migrated one, never IN, or the
    // renames and the imports end up in two different files.
    const where =
      output === undefined
        ? `run 'wsmigrate state import-plan' on the migrated state this printed, not on ${input}`
        : resolve(output) === resolve(input)
          ? `run 'wsmigrate state import-plan ${output}'`
          : `run 'wsmigrate state import-plan ${output}' (the migrated state, not ${input})`;
    lines.push(`Left in place (${report.refused.length}), for the import strategy: ${where}:`);
    lines.push(...report.refused.map((r) => `  ${r.address}: ${r.reason}`));
  }
  return lines;
}

async function rewrite(io: CliIo, input: string, o: RewriteOptions): Promise<void> {
  const text = readState(input);
  let result: ReturnType<typeof renameStateTypes>;
  try {
    result = renameStateTypes(text, { skipDifferent: o.skipDifferent === true });
  } catch (error) {
    if (error instanceof StateRenameError) {
      throw new CliError(`${input}: ${error.message}\nNothing was written.`, error.kind === 'refused' ? EXIT.denied : EXIT.failure);
    }
    throw error;
  }
  const { stateText, report } = result;
  const toStdout = o.output === undefined;
  const say = (line: string) => (toStdout ? io.err(line) : io.out(line));

  if (!toStdout) {
    const sameFile = resolve(o.output as string) === resolve(input);
    // Rewriting IN in place is only done when asked by name, and skipped when there is no change.
    if (!(sameFile && stateText === text)) writeFileAtomically(o.output as string, stateText);
  }
  if (o.json) say(JSON.stringify({ input, output: o.output ?? '-', ...report }, null, 2));
  else {
    for (const line of describeRewrite(report, input, o.output)) say(line);
    if (!toStdout) say(`wrote ${o.output}`);
  }
  if (toStdout) io.out(stateText);
}

function collectVar(raw: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected NAME=VALUE, e.g. --var namespace=coder`);
  return { ...previous, [raw.slice(0, eq)]: raw.slice(eq + 1) };
}

function printImportPlan(io: CliIo, input: string, steps: ImportStep[], o: ImportPlanOptions): void {
  if (o.json) return io.out(JSON.stringify({ input, steps }, null, 2));
  if (steps.length === 0) {
    return io.out(`# ${input}: nothing to import (${o.all ? 'no deprecated kubernetes types' : 'no type that needs the import strategy; see --all'})`);
  }
  io.out(`# ${input}: ${steps.length} instance${steps.length === 1 ? '' : 's'} to re-import. Run in the template directory after the HCL rewrite,`);
  io.out('# with the kubernetes provider initialised and a kubeconfig; keep a copy of the state first.');
  for (const step of steps) {
    io.out(`\n# ${step.oldAddress} -> ${step.newAddress}`);
    for (const line of step.shell) io.out(line);
  }
}

export function registerStateCommands(program: Command, io: CliIo): void {
  const state = program.command('state').description('offline tools for Terraform state files: rename deprecated kubernetes types, plan imports');

  state
    .command('rewrite')
    .description('rename deprecated kubernetes types to their _v1 twins in a state file, losslessly and offline')
    .argument('<in>', 'the state file, e.g. from `coder state pull WORKSPACE > dev.tfstate`')
    .option('-o, --output <out>', 'write the migrated state here (atomically, mode 0600); default: stdout, report on stderr')
    .option('--json', 'print the report as JSON', false)
    .option('--skip-different', 'leave types that need the import strategy in place instead of refusing', false)
    .addHelpText('after', REWRITE_HELP)
    .action(async (input: string, o: RewriteOptions) => rewrite(io, input, o));

  state
    .command('import-plan')
    .description('print the terraform state rm + import commands for types a rename cannot handle')
    .argument('<in>', 'the state file')
    .option('--all', 'every deprecated type, not only those that cannot be renamed', false)
    .option('--state-file <path>', 'the -state= path the commands use (default: IN)')
    .option('--var <name=value>', 'a template variable for terraform import (repeatable)', collectVar)
    .option('--json', 'print the steps as JSON (args arrays included)', false)
    .addHelpText('after', IMPORT_PLAN_HELP)
    .action(async (input: string, o: ImportPlanOptions) => {
      const text = readState(input);
      let steps: ImportStep[];
      try {
        steps = planImports(text, { which: o.all ? 'all' : 'different', stateFile: o.stateFile ?? input, vars: o.var ?? {} });
      } catch (error) {
        if (error instanceof ImportPlanError) throw new CliError(`${input}: ${error.message}`, EXIT.failure);
        throw error;
      }
      printImportPlan(io, input, steps, o);
    });
}
