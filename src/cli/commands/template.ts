import { join } from 'node:path';
import type { Command } from 'commander';
import { readTemplateDir, writeTemplateFiles } from '../../adapters/template-dir';
import { DEFAULT_GUARD_FILE_NAME } from '../../domain/hcl/guard-blocks';
import type { ProtectionReason } from '../../domain/hcl/protect-annotations';
import { DEFAULT_ZERO_TOUCH_FILE_NAME } from '../../domain/hcl/zero-touch-blocks';
import { externalModuleRefusal, HclSyntaxError, rewriteTemplate, TemplateRewriteError, ZeroTouchRefusedError, type TemplateFile, type TemplateRewriteReport } from '../../domain/template-rewrite';
import { addModuleOptions, remoteModulesAllowed, remoteModulesWarning } from '../module-options';
import { CliError, EXIT, type CliIo } from '../io';

const PROTECTION_WORDS: Record<ProtectionReason, string> = {
  annotation: '# wsmigrate:protect',
  'persistent-kind': 'persistent kind',
  'deletes-its-claims': 'stateful set whose claims Kubernetes deletes with it: when_deleted = "Delete"',
  'holds-protected': "namespace holding a protected resource or a stateful set's claims: deleting it deletes them",
};

const REWRITE_HELP = `
What it does:
  Renames every deprecated hashicorp/kubernetes type in the template's .tf, .tf.json, .tftest.hcl
  and .tfmock.hcl files to its versioned twin (kubernetes_deployment -> kubernetes_deployment_v1,
  kubernetes_daemonset -> kubernetes_daemon_set_v1, ...): block labels, references, depends_on,
  moved/import/removed addresses, interpolations in strings and heredocs. Everything else stays
  byte for byte: comments, plain strings, formatting, line endings. Other files (.tfvars, .tpl,
  scripts, READMEs) are never touched.

  For each protected resource it renames, it adds a removed { lifecycle { destroy = false } } block
  on the OLD address to ${DEFAULT_GUARD_FILE_NAME}, so a workspace whose state was not migrated yet
  forgets the old volume and fails its build instead of destroying the volume.
  Protected: PVCs and PVs (a kubernetes_manifest of either kind or a CDI DataVolume too, when its
  manifest is written out with a plain kind), and any resource whose header has, on the line directly above it,
    # wsmigrate:protect        (or  // wsmigrate:protect)
  A blank line between that comment and the resource block does NOT count. A stateful set with a
  volume_claim_template whose persistent_volume_claim_retention_policy sets when_deleted to
  "Delete" (or to an expression) is protected: Kubernetes deletes its claims with it. A namespace the
  template creates and puts a protected resource or a stateful set's claims in (a manifest StatefulSet
  or KubeVirt VirtualMachine, or a helm_release, too) is protected too (deleting it deletes them).

  DIFFERENT pairs (ingress, cron_job, hpa, pdb, csr, webhooks, csi_driver) are other
  implementations: they are refused and left alone (rewrite them by hand, import their state),
  unless --rename-different.

  A module whose code is not in the template (registry, git::, a path outside the folder) cannot
  be renamed from here, yet workspaces may hold its deprecated types in their state
  (module.NAME.kubernetes_...). Registry modules (code-server, jetbrains, …) are the common case and
  hold no Kubernetes resources: the rest is rewritten, those modules are left as they are and listed
  as a warning, and every workspace migration refuses, before pushing anything, a state holding
  deprecated types inside one. --strict-modules refuses such a template instead (exit ${EXIT.denied}),
  naming each module and its source: migrate the module itself or vendor it as a local folder.

  --zero-touch writes, instead of the guard file, wsmigrate_zero_touch.tf: per renamed resource a
  removed { destroy = false } on the old address and an import{} into the _v1 address that fires
  when a data "kubernetes_resources" lookup finds the live object during plan (with a
  start_count > 0 guard and [0] for counted resources). Pushed as a new version, it migrates each
  workspace at its next build, same object uids, no state push. Refused (exit 3, naming the
  resource) when an object's name or namespace is only known after apply, or when the template's
  required_version rules out Terraform 1.7. Never build a migrated workspace with an older version:
  that destroys its volume.

Examples:
  wsmigrate template rewrite ./k8s-template --zero-touch --write   # self-migrating version
  wsmigrate template rewrite ./k8s-template            # report and diff, change nothing
  wsmigrate template rewrite ./k8s-template --check    # same, exit 4 if a rewrite is pending (CI)
  wsmigrate template rewrite ./k8s-template --write    # rewrite in place, add the guard file

Exit codes:
  ${EXIT.ok}  nothing to change (or, without --check, the report was printed; with --write, written)
  ${EXIT.denied}  DIFFERENT types were refused and left as they are, remote modules were refused (--strict-modules), or --zero-touch was refused (nothing written; precedes 4)
  ${EXIT.changesPending}  --check only: the template still needs rewriting
  ${EXIT.failure}  the template cannot be read or parsed; the message names file:line
  ${EXIT.usage}  bad usage (for example --check together with --write)`;

interface RewriteOptions {
  check?: boolean;
  write?: boolean;
  json?: boolean;
  renameDifferent?: boolean;
  strictModules?: boolean;
  allowRemoteModules?: boolean;
  guardFile: string;
  zeroTouch?: boolean;
}

interface ChangedLine {
  file: string;
  line: number;
  old: string;
  new: string;
}

export function registerTemplateCommands(program: Command, io: CliIo): void {
  const template = program.command('template').description("Offline tools for a Coder template's Terraform source");
  const rewrite = template
    .command('rewrite')
    .description('Rename deprecated kubernetes_* types to their _v1 twins in a template folder, and add guard blocks')
    .argument('<dir>', 'template folder (the one holding main.tf)')
    .option('--check', 'report only; exit 4 when the template still needs rewriting')
    .option('--write', 'rewrite the changed files in place and write the guard file')
    .option('--json', 'print the report as JSON')
    .option('--rename-different', 'also rename DIFFERENT pairs (their state must then be imported, not renamed)')
    .option('--guard-file <name>', 'file name for the removed{} guard blocks, in the template root', DEFAULT_GUARD_FILE_NAME)
    .option('--zero-touch', 'emit removed{} + conditional import{} blocks so each workspace migrates itself at its next build')
    .addHelpText('after', REWRITE_HELP);
  addModuleOptions(rewrite).action(async (dir: string, opts: RewriteOptions) => runRewrite(dir, opts, io));
}

async function runRewrite(dir: string, opts: RewriteOptions, io: CliIo): Promise<void> {
  if (opts.check && opts.write) throw new CliError('--check and --write exclude each other: --check only reports, --write changes files.', EXIT.usage);

  let input: TemplateFile[];
  try {
    input = await readTemplateDir(dir);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.failure);
  }
  if (!input.some((f) => f.path.endsWith('.tf') || f.path.endsWith('.tf.json'))) {
    throw new CliError(`${dir}: no .tf or .tf.json files here. Pass the template's root folder.`, EXIT.failure);
  }

  let result: ReturnType<typeof rewriteTemplate>;
  try {
    result = rewriteTemplate(input, { renameDifferent: opts.renameDifferent, guardFileName: opts.guardFile, zeroTouch: opts.zeroTouch });
  } catch (error) {
    if (error instanceof HclSyntaxError) throw new CliError(`${join(dir, error.file)}${error.message.slice(error.file.length)} Fix the file (terraform validate shows the same problem), then run again.`, EXIT.failure);
    if (error instanceof ZeroTouchRefusedError) throw new CliError(`${dir}: ${error.message}`, EXIT.denied);
    if (error instanceof TemplateRewriteError) throw new CliError(`${dir}: ${error.message}`, EXIT.failure);
    throw error;
  }
  const { files, report } = result;
  const remote = externalModuleRefusal(report.externalModules);
  if (remote && !remoteModulesAllowed(opts, io)) {
    if (opts.json) io.out(JSON.stringify({ dir, mode: 'refused', report, diff: [], written: [] }, null, 2));
    throw new CliError(`${dir}: refused (--strict-modules), nothing written: ${remote}. Or run without --strict-modules to rewrite the rest and leave those modules as they are.`, EXIT.denied);
  }
  const warning = remoteModulesWarning(report.externalModules);
  if (warning) io.err(warning);
  const changed = files.filter((f) => report.changedFiles.includes(f.path));
  const diff = changedLines(input, changed, opts.guardFile);
  const written = opts.write ? await writeTemplateFiles(dir, changed, true) : [];

  if (opts.json) {
    io.out(JSON.stringify({ dir, mode: opts.write ? 'write' : opts.check ? 'check' : 'report', report, diff, written }, null, 2));
  } else {
    io.out(renderText(dir, report, diff, opts, written, files.find((f) => f.path === opts.guardFile)));
  }

  if (report.refused.length > 0) {
    throw new CliError(
      `${report.refused.length} occurrence(s) of DIFFERENT types were refused and left as they are (${[...new Set(report.refused.map((r) => r.type))].join(', ')}): ` +
        'rewrite those blocks by hand and import their state, or pass --rename-different.',
      EXIT.denied,
    );
  }
  if (opts.check && !report.unchanged) {
    // Counted as the report line counts them: the template's own files, the generated one named apart.
    const own = sourceFilesOf(report, opts);
    const generated = report.changedFiles.filter((f) => !own.includes(f));
    throw new CliError(
      `${own.length} file(s) still need rewriting${generated.length ? ` and ${generated.join(', ')} is to be written` : ''}: run wsmigrate template rewrite ${dir} --write`,
      EXIT.changesPending,
    );
  }
}

/** Old and new text of every line a rename touched (renames never add or remove lines). */
function changedLines(input: readonly TemplateFile[], changed: readonly TemplateFile[], guardFile: string): ChangedLine[] {
  const out: ChangedLine[] = [];
  for (const file of changed) {
    if (file.path === guardFile || file.path === DEFAULT_ZERO_TOUCH_FILE_NAME) continue;
    const before = input.find((f) => f.path === file.path)?.content.split('\n') ?? [];
    const after = file.content.split('\n');
    after.forEach((line, i) => {
      if (line !== before[i]) out.push({ file: file.path, line: i + 1, old: (before[i] ?? '').replace(/\r$/, ''), new: line.replace(/\r$/, '') });
    });
  }
  return out;
}

/** The template's own changed files, without the guard or zero-touch file wsmigrate generates. */
function sourceFilesOf(report: TemplateRewriteReport, opts: RewriteOptions): string[] {
  return report.changedFiles.filter((f) => f !== opts.guardFile && f !== DEFAULT_ZERO_TOUCH_FILE_NAME);
}

function renderText(dir: string, report: TemplateRewriteReport, diff: ChangedLine[], opts: RewriteOptions, written: string[], guardFile: TemplateFile | undefined): string {
  const lines: string[] = [];
  const sourceFiles = sourceFilesOf(report, opts);
  lines.push(
    `Template ${dir}: ${report.renamed.length} rename(s) on ${diff.length} line(s) in ${sourceFiles.length} file(s), ` +
      `${report.refused.length} refused, ${report.protectedResources.length} protected resource(s), ${report.guards.length} guard(s).`,
  );
  if (report.unchanged && report.refused.length === 0) {
    lines.push(report.externalModules.length > 0 ? 'Nothing to change in the template\'s own files.' : 'Nothing to change: the template uses only versioned types.');
  }
  if (report.externalModules.length > 0) {
    lines.push('', 'Remote modules, left as they are (workspaces holding deprecated types inside them will be refused):');
    for (const m of report.externalModules) lines.push(`${m.file}:${m.line}  ${m.module}  source = "${m.source}"`);
  }

  if (diff.length > 0) {
    lines.push('', 'Changes (file:line, - old, + new):');
    for (const d of diff) lines.push(`${d.file}:${d.line}`, `  - ${d.old.trim()}`, `  + ${d.new.trim()}`);
  }
  if (report.zeroTouch && report.zeroTouch.length > 0) {
    lines.push('', 'wsmigrate_zero_touch.tf: each workspace adopts at its next build (removed + conditional import):');
    for (const z of report.zeroTouch) lines.push(`  ${z.from} -> ${z.to}  (${z.kind})`);
  }
  if (report.changedFiles.includes(opts.guardFile) && guardFile) {
    lines.push('', `${opts.guardFile}: removed { lifecycle { destroy = false } } guards on the old addresses:`);
    for (const g of report.guards) lines.push(`  ${g.from}`);
  }
  if (report.refused.length > 0) {
    lines.push('', 'Refused (DIFFERENT types, left as they are):');
    for (const r of report.refused) lines.push(`${r.file}:${r.line}  ${r.type}: ${r.reason}`);
  }
  if (report.protectedResources.length > 0) {
    lines.push('', 'Protected resources (never destroyed outside a workspace delete):');
    for (const p of report.protectedResources) lines.push(`${p.file}:${p.line}  ${p.address}  (${PROTECTION_WORDS[p.why]})`);
  }
  lines.push('');
  if (opts.write) {
    lines.push(written.length > 0 ? `Wrote ${written.join(', ')}.` : 'Wrote nothing: the files already match.');
  } else if (!report.unchanged) {
    lines.push(`Dry run: nothing written. Apply with: wsmigrate template rewrite ${dir} --write`);
  }
  return lines.join('\n');
}
