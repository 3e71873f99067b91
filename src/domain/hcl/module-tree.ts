import type { ModuleCall } from './config-outline';

/** Module nesting deeper than this is treated as a cycle (a module that calls itself). */
const MAX_DEPTH = 16;

/** The folder part of a template-relative path ('' for the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `./x` or `../x` resolved against `dir`; undefined for registry/git sources or paths leaving the template. */
export function resolveLocalSource(dir: string, source: string | undefined): string | undefined {
  if (source === undefined || !(source.startsWith('./') || source.startsWith('../'))) return undefined;
  const parts = dir === '' ? [] : dir.split('/');
  for (const part of source.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/** Where a module path leads: a folder of this template, a call whose code is elsewhere, or no call at all. */
export type ModuleResolution =
  | { readonly kind: 'local'; readonly dir: string }
  | { readonly kind: 'external'; readonly call: ModuleCall; readonly address: string }
  | { readonly kind: 'not-called'; readonly address: string };

/** A module call, reached from the root folder, whose code is not in the template (registry, git, a path outside it). */
export interface ExternalModuleCall {
  readonly call: ModuleCall;
  /** `module.a` or `module.a.module.b`. */
  readonly address: string;
}

/**
 * Which folders of a template are local modules, reached from the root folder through which
 * `module` calls. A resource inside such a module is addressed `module.a.module.b.T.name`.
 */
export class ModuleTree {
  private readonly callsByDir = new Map<string, ModuleCall[]>();

  constructor(
    calls: readonly ModuleCall[],
    private readonly configDirs: ReadonlySet<string>,
  ) {
    for (const call of calls) {
      const dir = dirOf(call.file);
      this.callsByDir.set(dir, [...(this.callsByDir.get(dir) ?? []), call]);
    }
  }

  /** True when following `callPath` from `fromDir` lands in a folder of this template (so it is rewritten too). */
  isRewritten(fromDir: string, callPath: readonly string[]): boolean {
    let dir: string | undefined = fromDir;
    for (const name of callPath) {
      const call: ModuleCall | undefined = this.callsByDir.get(dir)?.find((c) => c.name === name);
      dir = call ? resolveLocalSource(dir, call.source) : undefined;
      if (dir === undefined || !this.configDirs.has(dir)) return false;
    }
    return true;
  }

  /** Address prefixes ('' at the root, 'module.a.' …) under which the resources of `dir` live. */
  prefixesOf(dir: string): string[] {
    const found: string[] = [];
    const visit = (at: string, prefix: string, depth: number): void => {
      if (at === dir) found.push(prefix);
      if (depth >= MAX_DEPTH) return;
      for (const call of this.callsByDir.get(at) ?? []) {
        const target = resolveLocalSource(at, call.source);
        if (target !== undefined && this.configDirs.has(target)) visit(target, `${prefix}module.${call.name}.`, depth + 1);
      }
    };
    visit('', '', 0);
    return [...new Set(found)].sort();
  }

  /** Follows `callPath` (module names, outermost first) from the root folder, or from `fromDir`. */
  resolve(callPath: readonly string[], fromDir = ''): ModuleResolution {
    let dir = fromDir;
    let address = '';
    for (const name of callPath) {
      address = `${address}${address ? '.' : ''}module.${name}`;
      const call = this.callsByDir.get(dir)?.find((c) => c.name === name);
      if (!call) return { kind: 'not-called', address };
      const target = resolveLocalSource(dir, call.source);
      if (target === undefined || !this.configDirs.has(target)) return { kind: 'external', call, address };
      dir = target;
    }
    return { kind: 'local', dir };
  }

  /** Every module call reached from the root whose code is not in the template, outermost first. */
  externalCalls(): ExternalModuleCall[] {
    const found: ExternalModuleCall[] = [];
    const visit = (at: string, prefix: string, depth: number): void => {
      if (depth >= MAX_DEPTH) return;
      for (const call of this.callsByDir.get(at) ?? []) {
        const address = `${prefix}module.${call.name}`;
        const target = resolveLocalSource(at, call.source);
        if (target !== undefined && this.configDirs.has(target)) visit(target, `${address}.`, depth + 1);
        else found.push({ call, address });
      }
    };
    visit('', '', 0);
    return found;
  }
}
