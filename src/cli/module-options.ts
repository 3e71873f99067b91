import { Option, type Command } from 'commander';
import type { ExternalModule } from '../domain/template-rewrite';
import type { CliIo } from './io';

/**
 * Remote modules (registry, git::, a path outside the template) are rewritten around by default:
 * most real templates call registry.coder.com modules (code-server, jetbrains, filebrowser), which
 * hold no Kubernetes resources, and every workspace's state is checked before its push anyway.
 */
export function addModuleOptions(cmd: Command): Command {
  return cmd
    .option('--strict-modules', 'refuse a template that calls modules whose code is not in it (registry, git::, a path outside), instead of rewriting the rest', false)
    .addOption(new Option('--allow-remote-modules', 'deprecated: the default now; does nothing').hideHelp());
}

/** Whether remote modules are allowed; the old flag only earns a note, so scripts that pass it keep working. */
export function remoteModulesAllowed(o: { strictModules?: boolean; allowRemoteModules?: boolean }, io: CliIo): boolean {
  if (o.allowRemoteModules) io.err('note: --allow-remote-modules is the default now and does nothing; --strict-modules refuses such templates instead');
  return !o.strictModules;
}

/** The warning for modules left as they are: what was not inspected, and what protects the workspaces anyway. */
export function remoteModulesWarning(modules: readonly Pick<ExternalModule, 'module' | 'file' | 'line' | 'source'>[]): string | undefined {
  if (modules.length === 0) return undefined;
  return [
    `warning: ${modules.length} module(s) not inspected (their code is not in the template), left as they are:`,
    ...modules.map((m) => `  ${m.module} (${m.file}:${m.line}, source = "${m.source}")`),
    '  each workspace whose state holds a deprecated kubernetes_* type inside one is refused before its state is pushed; --strict-modules refuses the template instead',
  ].join('\n');
}
