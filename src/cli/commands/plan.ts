import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { HclParseError, parseTemplateFiles } from '../../adapters/hcl-parse';
import { HclSyntaxError } from '../../domain/hcl/lexer';
import { protectedConfigAddresses } from '../../domain/hcl/protect-annotations';
import { AddressError } from '../../domain/plan/address';
import { classifyChanges, type ClassifiedChange } from '../../domain/plan/classify';
import { planGuardVerdict, protectionKeyOf, type GuardVerdict, type Transition } from '../../domain/plan/guard';
import { PlanInputError, plannedChangesFromText } from '../../domain/plan/plan-json';
import { StateInputError, stateResourceViews } from '../../domain/plan/state-view';
import { planStructurally } from '../../domain/plan/structural-plan';
import { buildTemplateModel, TemplateModelError } from '../../domain/template-model';
import { fileProblem } from '../file-problem';
import { CliError, EXIT, type CliIo } from '../io';

const TRANSITIONS: Transition[] = ['start', 'stop', 'delete'];

const RULES = `
Guard rules (PVCs and PVs are protected under either type name; so are resources marked
"# wsmigrate:protect" in --template, the namespaces --template puts either in, and every
--protect address, instance keys ignored):
  deny      a protected resource is deleted, replaced, or type-renamed in a start or stop:
            only a workspace delete may destroy it
  approval  an unprotected resource is replaced, or type-renamed (a delete of T.name paired with
            a create of its twin T_v1.name: a state and template version that disagree on types)
  info      a forget (a removed { lifecycle { destroy = false } } guard: the object stays);
            a plain delete of an unprotected resource (in a stop, the start_count gate at work)
  A workspace delete (--transition delete) may delete protected resources.`;

const EXIT_CODES = `
Exit codes:
  ${EXIT.ok}  allow: nothing protected is destroyed
  ${EXIT.denied}  deny: a protected resource would be destroyed; do not apply this plan
  ${EXIT.changesPending}  needs approval: unprotected resources are destroyed and re-created
  ${EXIT.failure}  bad input (unreadable plan, state or template); the message names the file`;

interface GuardOptions {
  template?: string;
  transition: Transition;
  protect?: string[];
  json?: boolean;
}

function collectAddress(raw: string, previous: string[] = []): string[] {
  try {
    protectionKeyOf(raw);
  } catch (error) {
    if (error instanceof AddressError) throw new InvalidArgumentError(`${error.message}. Example: --protect kubernetes_persistent_volume_claim.home`);
    throw error;
  }
  return [...previous, raw];
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`${path}: cannot read the ${what}: ${fileProblem(error)}`, EXIT.failure);
  }
}

/** Terraform files of the template, relative to its root with '/' separators; local modules included. */
function templateFiles(dir: string): { path: string; content: string }[] {
  const out: { path: string; content: string }[] = [];
  const walk = (relative: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, relative), { withFileTypes: true });
    } catch (error) {
      throw new CliError(`${join(dir, relative)}: cannot read the template directory: ${fileProblem(error)}`);
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      // .terraform holds downloaded modules and providers, not the template.
      if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules') walk(path);
      else if (entry.isFile() && (entry.name.endsWith('.tf') || entry.name.endsWith('.tf.json'))) {
        out.push({ path, content: readText(join(dir, path), 'template file') });
      }
    }
  };
  walk('');
  if (!out.some((f) => !f.path.includes('/'))) throw new CliError(`${dir}: no .tf or .tf.json files: --template must be a Terraform template directory`);
  return out;
}

function protectedFromTemplate(dir: string | undefined, files: { path: string; content: string }[] | undefined): string[] {
  if (dir === undefined || files === undefined) return [];
  try {
    return protectedConfigAddresses(files);
  } catch (error) {
    if (error instanceof HclSyntaxError) {
      // Its message starts with the path relative to the template; name the file the user can open.
      throw new CliError(`${join(dir, error.file)}${error.message.slice(error.file.length)}`, EXIT.failure);
    }
    throw new CliError(`${dir}: cannot read protect annotations: ${(error as Error).message}`, EXIT.failure);
  }
}

/** Turns the domain's input errors into exit code 1 with their message (which already names the file). */
function asBadInput(error: unknown): never {
  if (
    error instanceof PlanInputError ||
    error instanceof StateInputError ||
    error instanceof HclParseError ||
    error instanceof TemplateModelError ||
    error instanceof AddressError
  ) {
    throw new CliError(error.message, EXIT.failure);
  }
  throw error;
}

function describeChange(c: ClassifiedChange): string {
  const target = c.twinAddress ? `${c.address} -> ${c.twinAddress}` : c.previousAddress ? `${c.address} (moved from ${c.previousAddress})` : c.address;
  const notes = [c.deposed ? `deposed ${c.deposed}` : undefined, c.reason, c.assumed ? `assumed: ${c.assumed}` : undefined].filter(Boolean);
  return `  ${c.kind.padEnd(11)} ${target}${notes.length > 0 ? `  [${notes.join('; ')}]` : ''}`;
}

function report(io: CliIo, heading: string, changes: ClassifiedChange[], verdict: GuardVerdict, json: boolean, extra: object): void {
  if (json) {
    io.out(JSON.stringify({ ...extra, changes, verdict }, null, 2));
  } else {
    const shown = changes.filter((c) => c.kind !== 'no-op');
    io.out(heading);
    io.out(shown.length === 0 ? '  no changes' : shown.map(describeChange).join('\n'));
    if (verdict.reasons.length > 0) {
      io.out('Guard:');
      io.out(verdict.reasons.map((r) => `  ${r.severity.toUpperCase().padEnd(8)} ${r.message}`).join('\n'));
    }
    // A deny or an approval summary travels in the CliError, which main prints last, on stderr.
    if (verdict.verdict === 'allow') io.out(verdict.summary);
  }
  if (verdict.verdict === 'deny') throw new CliError(verdict.summary, EXIT.denied);
  if (verdict.verdict === 'needs-approval') throw new CliError(verdict.summary, EXIT.changesPending);
}

function guardOptions(command: Command): Command {
  return command
    .addOption(new Option('--transition <transition>', 'the build this plan is for').choices(TRANSITIONS).default('start'))
    .option('--protect <address>', 'protect this config address too (T.name or module.m.T.name); repeatable', collectAddress)
    .option('--json', 'print the changes and the verdict as JSON');
}

export function registerPlanCommands(program: Command, io: CliIo): void {
  const plan = program
    .command('plan')
    .summary('check a Terraform plan (or a template against a state) for destroyed volumes')
    .description('Plan guard: classify what a workspace build would do and refuse plans that destroy protected resources.');

  guardOptions(
    plan
      .command('check')
      .argument('<plan>', "'terraform show -json PLANFILE' output, or 'terraform plan -json' lines")
      .summary('classify a plan and give the guard verdict')
      .description(
        'Reads a plan, names each change (create, update, delete, replace, forget, read, and type-rename: a delete of ' +
          'T.name paired with a create of its versioned twin, which Terraform never shows as a replacement), and says ' +
          'whether the plan may be applied for this workspace transition.',
      )
      .option('--template <dir>', 'the template the plan was made from; adds its "# wsmigrate:protect" resources'),
  )
    .addHelpText(
      'after',
      `${RULES}

Example:
  $ terraform plan -out=plan.bin && terraform show -json plan.bin > plan.json
  $ wsmigrate plan check plan.json --template ./template --transition stop --protect coder_agent.main
${EXIT_CODES}`,
    )
    .action(async (planPath: string, opts: GuardOptions) => {
      try {
        const files = opts.template === undefined ? undefined : templateFiles(opts.template);
        const protectedAddresses = [...protectedFromTemplate(opts.template, files), ...(opts.protect ?? [])];
        const changes = classifyChanges(plannedChangesFromText(readText(planPath, 'plan'), planPath));
        const verdict = planGuardVerdict(changes, { transition: opts.transition, protectedAddresses });
        report(io, `Plan ${planPath} (${opts.transition}):`, changes, verdict, opts.json === true, {
          plan: planPath,
          transition: opts.transition,
          protectedAddresses,
        });
      } catch (error) {
        asBadInput(error);
      }
    });

  guardOptions(
    plan
      .command('structural')
      .summary('plan a template against a state without provider or cluster, and give the guard verdict')
      .description(
        'Works out from structure alone which instances a build would create, delete or forget: count gated on ' +
          'start_count (1 on start, 0 on stop), for_each keys, removed and moved blocks, and -destroy for a delete. ' +
          'Attribute drift is invisible here, so an instance in both template and state shows as a no-op.',
      )
      .requiredOption('--template <dir>', 'the template directory (its root module is planned)')
      .requiredOption('--state <file>', "the workspace's state ('coder state pull WORKSPACE state.tfstate')"),
  )
    .addHelpText(
      'after',
      `${RULES}

Example:
  $ coder state pull alice/dev state.tfstate
  $ wsmigrate plan structural --template ./template-v2 --state state.tfstate --transition start
${EXIT_CODES}`,
    )
    .action(async (opts: GuardOptions & { template: string; state: string }) => {
      try {
        const files = templateFiles(opts.template);
        const protectedAddresses = [...protectedFromTemplate(opts.template, files), ...(opts.protect ?? [])];
        const rootFiles = files.filter((f) => !f.path.includes('/')).map((f) => ({ path: join(opts.template, f.path), content: f.content }));
        const model = buildTemplateModel(await parseTemplateFiles(rootFiles), protectedAddresses);
        let stateJson: unknown;
        try {
          stateJson = JSON.parse(readText(opts.state, 'state'));
        } catch (error) {
          if (error instanceof CliError) throw error;
          // The parser's message would quote the state, which may hold secrets.
          throw new CliError(`${opts.state}: not JSON: expected a Terraform state file`, EXIT.failure);
        }
        const state = stateResourceViews(stateJson, opts.state);
        const changes = classifyChanges(planStructurally(model, state, opts.transition));
        const verdict = planGuardVerdict(changes, { transition: opts.transition, protectedAddresses });
        report(io, `Structural plan of ${opts.template} against ${opts.state} (${opts.transition}):`, changes, verdict, opts.json === true, {
          template: opts.template,
          state: opts.state,
          transition: opts.transition,
          protectedAddresses,
        });
      } catch (error) {
        asBadInput(error);
      }
    });
}
