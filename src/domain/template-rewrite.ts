import { lookupDeprecated } from './type-map';
import { DEFAULT_GUARD_FILE_NAME, guardAddressesIn, isGuardFile, renderGuardFile } from './hcl/guard-blocks';
import { typeOccurrencesInJson } from './hcl/json-occurrences';
import { redactModuleSource } from './hcl/module-source';
import { admitsTerraform17, DEFAULT_ZERO_TOUCH_FILE_NAME, isZeroTouchFile, renderZeroTouchFile, requiredVersions, zeroTouchTarget, type ZeroTouchTarget } from './hcl/zero-touch-blocks';
import { dirOf } from './hcl/module-tree';
import { parseHclFile, typeOccurrencesInHcl, type ParsedHcl } from './hcl/native-occurrences';
import { attributeNamed, blocksOfType, type HclAttribute } from './hcl/body-parser';
import { isTrivia } from './hcl/lexer';
import { providerWithoutV1Types } from './hcl/provider-requirements';
import { protectedDeclarations, type ProtectionReason } from './hcl/protect-annotations';
import { declaredBlock, readTemplateConfig, type ConfigFile, type TemplateConfig } from './hcl/template-config';
import type { TemplateFile } from './hcl/template-file';
import type { AddressBlock, TypeOccurrence } from './hcl/type-references';

export type { TemplateFile } from './hcl/template-file';
export { HclSyntaxError } from './hcl/lexer';

export interface TemplateRewriteOptions {
  /** Also rename DIFFERENT pairs (another implementation: the state must then be imported, not renamed). */
  renameDifferent?: boolean;
  /** Root-folder file that receives the removed{} guard blocks; default 'wsmigrate_guards.tf'. */
  guardFileName?: string;
  /**
   * Emit, instead of guard blocks, the zero-touch file: per renamed resource a removed{destroy=false}
   * and an import{} driven by a data "kubernetes_resources" lookup, so each workspace migrates at its
   * next build. Refuses (ZeroTouchRefusedError) what Terraform could not plan.
   */
  zeroTouch?: boolean;
}

export interface RenamedToken {
  file: string;
  line: number;
  from: string;
  to: string;
  context: 'label' | 'reference' | 'address';
}

export interface TemplateRewriteReport {
  renamed: RenamedToken[];
  /** DIFFERENT types left alone (unless renameDifferent). */
  refused: { file: string; line: number; type: string; reason: string }[];
  protectedResources: { file: string; line: number; address: string; why: ProtectionReason }[];
  /** Config addresses (old type) that have a removed{} guard block in the guard file. */
  guards: { from: string }[];
  changedFiles: string[];
  unchanged: boolean;
  /**
   * Module calls whose code is not in the template (registry, git, a path outside it): the rewrite
   * cannot rename the deprecated types inside them, so a template that has any must not be pushed.
   * Sources are redacted (no credentials).
   */
  externalModules: ExternalModule[];
  /** zeroTouch only: the resources the generated version adopts at each workspace's next build. */
  zeroTouch?: { from: string; to: string; kind: string }[];
}

export interface ExternalModule {
  file: string;
  line: number;
  /** `module.app`, or `module.a.module.b` for a call inside a local module. */
  module: string;
  source: string;
}

/** zeroTouch only: resources a zero-touch version cannot adopt (or a Terraform older than 1.7); nothing was written. */
export class ZeroTouchRefusedError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`A zero-touch version cannot be generated for this template:\n${problems.map((p) => `  ${p}`).join('\n')}\nFix these, or migrate the template with the runbook (template rewrite without --zero-touch)`);
    this.name = 'ZeroTouchRefusedError';
  }
}

/** A template the rewriter cannot handle as given; the message says which file and what to do. */
export class TemplateRewriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateRewriteError';
  }
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Renames deprecated kubernetes types to their versioned twins in every Terraform file of a
 * template, byte for byte except the renamed names, and writes removed{} guard blocks for the
 * protected resources it renamed. Pure: the input files are not modified.
 */
export function rewriteTemplate(files: TemplateFile[], opts: TemplateRewriteOptions = {}): { files: TemplateFile[]; report: TemplateRewriteReport } {
  const guardFileName = opts.guardFileName ?? DEFAULT_GUARD_FILE_NAME;
  checkGuardFileName(guardFileName, files);

  const model = readTemplateConfig(files);
  const renamed: RenamedToken[] = [];
  const refused = new Map<string, TemplateRewriteReport['refused'][number]>();
  const editsByFile = new Map<string, Edit[]>();
  const renamedLabelStarts = new Map<string, Set<number>>();

  for (const file of model.configFiles) {
    const edits: Edit[] = [];
    for (const occ of occurrencesIn(file, model.modules.isRewritten.bind(model.modules))) {
      const mapping = lookupDeprecated(occ.mode, occ.type);
      if (!mapping) continue;
      if (occ.fromOf && keepsOldFrom(occ, occ.fromOf, mapping.replacement, file.path, model)) continue;
      if (mapping.compat === 'DIFFERENT' && !opts.renameDifferent) {
        refused.set(`${file.path}\0${occ.line}\0${occ.type}`, { file: file.path, line: occ.line, type: occ.type, reason: refusalReason(occ, mapping.replacement, mapping.note) });
        continue;
      }
      edits.push({ start: occ.start, end: occ.end, text: mapping.replacement });
      renamed.push({ file: file.path, line: occ.line, from: occ.type, to: mapping.replacement, context: occ.context });
      if (occ.context === 'label') {
        const starts = renamedLabelStarts.get(file.path) ?? new Set<number>();
        starts.add(occ.start);
        renamedLabelStarts.set(file.path, starts);
      }
    }
    if (edits.length > 0) editsByFile.set(file.path, edits);
  }

  refuseCollisions(model.configFiles, renamedLabelStarts);
  const noV1Types = renamed.length > 0 ? providerWithoutV1Types(model.configFiles, files) : undefined;
  if (noV1Types) throw new TemplateRewriteError(noV1Types);

  const protectedResources: TemplateRewriteReport['protectedResources'] = [];
  const newGuards: string[] = [];
  for (const { resource: r, why } of protectedDeclarations(model)) {
    // A folder no module call reaches (docs/, an old copy of the template) is never planned: nothing there to protect.
    if (model.modules.prefixesOf(dirOf(r.file)).length === 0) continue;
    protectedResources.push({ file: r.file, line: r.line, address: `${r.type}.${r.name}`, why });
    if (renamedLabelStarts.get(r.file)?.has(r.typeStart)) {
      for (const prefix of model.modules.prefixesOf(dirOf(r.file))) newGuards.push(`${prefix}${r.type}.${r.name}`);
    }
  }

  const out: TemplateFile[] = files.map((f) => {
    const edits = editsByFile.get(f.path);
    return edits ? { path: f.path, content: applyEdits(f.content, edits) } : { path: f.path, content: f.content };
  });

  let zeroTouch: ZeroTouchTarget[] | undefined;
  if (opts.zeroTouch) {
    zeroTouch = zeroTouchTargets(model.configFiles, renamedLabelStarts);
    // The zero-touch file of an earlier run is regenerated: its removed blocks are not another file's.
    const guardFiles = model.guardFiles.filter((p) => p !== DEFAULT_ZERO_TOUCH_FILE_NAME);
    const guarded = new Set(guardFiles.flatMap((p) => guardAddressesIn(p, files.find((f) => f.path === p)!.content)));
    writeZeroTouchFile(out, zeroTouch, guarded);
  }
  const guards = opts.zeroTouch ? [] : updateGuardFile(out, model.guardFiles, guardFileName, newGuards);
  const changedFiles = out.filter((f) => files.find((g) => g.path === f.path)?.content !== f.content).map((f) => f.path);

  return {
    files: out,
    report: {
      renamed,
      refused: [...refused.values()],
      protectedResources,
      guards: guards.map((from) => ({ from })),
      changedFiles,
      unchanged: changedFiles.length === 0,
      externalModules: model.modules.externalCalls().map(({ call, address }) => ({ file: call.file, line: call.line, module: address, source: redactModuleSource(call.source) })),
      ...(zeroTouch ? { zeroTouch: zeroTouch.map((t) => ({ from: t.from, to: t.to, kind: t.kind })) } : {}),
    },
  };
}

/**
 * Why a template that calls modules from outside itself must not be migrated as it is, or
 * undefined when it calls none. The rewrite cannot see inside such a module, so workspaces'
 * states may hold `module.x.kubernetes_*` instances that the new version would destroy and re-create.
 */
export function externalModuleRefusal(modules: readonly ExternalModule[]): string | undefined {
  if (modules.length === 0) return undefined;
  const list = modules.map((m) => `${m.module} (${m.file}:${m.line}, source = "${m.source}")`).join('; ');
  return (
    `the template calls ${modules.length} module(s) whose code is not in the template: ${list}. ` +
    'wsmigrate cannot rename the deprecated kubernetes_* types inside such a module, and workspaces may hold them in their state ' +
    '(module.NAME.kubernetes_...), which the new version would destroy and re-create. Migrate the module itself to the _v1 types ' +
    '(a new module release, pinned here) or vendor it into the template as a local folder (source = "./modules/NAME"), then run again'
  );
}

function zeroTouchTargets(configFiles: readonly ConfigFile[], renamedLabelStarts: ReadonlyMap<string, ReadonlySet<number>>): ZeroTouchTarget[] {
  const problems: string[] = [];
  const versions = configFiles.flatMap((f) => (f.syntax === 'native' && f.parsed.dialect === 'config' && dirOf(f.path) === '' ? requiredVersions(f.parsed).map((v) => ({ ...v, file: f.path })) : []));
  for (const v of versions) {
    if (!admitsTerraform17(v.value)) problems.push(`${v.file}:${v.line}: required_version = "${v.value}" rules out Terraform 1.7, which import for_each and removed blocks need. Raise it to allow >= 1.7 (and upgrade the provisioners' Terraform).`);
  }
  const targets: ZeroTouchTarget[] = [];
  for (const file of configFiles) {
    for (const r of file.outline.resources) {
      if (r.mode !== 'managed' || !renamedLabelStarts.get(file.path)?.has(r.typeStart)) continue;
      const where = `${r.file}:${r.line}: ${r.type}.${r.name}`;
      const newType = lookupDeprecated(r.mode, r.type)?.replacement ?? r.type;
      if (file.syntax !== 'native' || r.headerIndex === undefined) {
        problems.push(`${where}: zero-touch reads native .tf files only; rewrite this .tf.json resource with the runbook`);
        continue;
      }
      if (dirOf(file.path) !== '') {
        problems.push(`${where}: it sits in a child module; zero-touch adopts resources of the root module only`);
        continue;
      }
      // outlineHcl took r from this file's top-level blocks, so the lookup always finds its block.
      const block = declaredBlock(file, r)!;
      const target = zeroTouchTarget(file.parsed, block, r.type, newType, r.name);
      if ('reason' in target) problems.push(`${where}: ${target.reason}`);
      else targets.push(target);
    }
  }
  if (problems.length > 0) throw new ZeroTouchRefusedError(problems);
  return targets;
}

/** Writes the zero-touch file into `out` when there is something to adopt; a file of ours is regenerated. */
function writeZeroTouchFile(out: TemplateFile[], targets: readonly ZeroTouchTarget[], guarded: ReadonlySet<string>): void {
  if (targets.length === 0) return;
  const at = out.findIndex((f) => f.path === DEFAULT_ZERO_TOUCH_FILE_NAME);
  if (at >= 0 && !isZeroTouchFile(out[at].content)) {
    throw new TemplateRewriteError(`${DEFAULT_ZERO_TOUCH_FILE_NAME} already exists in the template and was not generated by wsmigrate. Rename that file, then run again.`);
  }
  if (at >= 0) refuseDroppedAdoptions(out[at].content, targets);
  const content = renderZeroTouchFile(targets, guarded);
  if (at >= 0) out[at] = { path: DEFAULT_ZERO_TOUCH_FILE_NAME, content };
  else out.push({ path: DEFAULT_ZERO_TOUCH_FILE_NAME, content });
}

/**
 * A zero-touch file of an earlier run may still adopt resources this run no longer renames (the
 * template declares them as _v1 already): regenerating it would drop their removed and import
 * blocks, and a workspace not yet built with that version would then destroy them.
 */
function refuseDroppedAdoptions(previous: string, targets: readonly ZeroTouchTarget[]): void {
  const withoutKey = (address: string): string => address.replace(/\[[^\]]*\]$/, '');
  const kept = new Set(targets.map((t) => withoutKey(t.to)));
  const parsed = parseHclFile(DEFAULT_ZERO_TOUCH_FILE_NAME, previous, 'config');
  const dropped = blocksOfType(parsed.items, 'import')
    .map((b) => attributeNamed(b.body, 'to'))
    .map((to) => (to ? withoutKey(expressionText(parsed, to)) : ''))
    .filter((to) => to !== '' && !kept.has(to));
  if (dropped.length === 0) return;
  throw new TemplateRewriteError(
    `${DEFAULT_ZERO_TOUCH_FILE_NAME} still adopts ${dropped.join(', ')} for the workspaces not yet built with its version. Regenerating it for this run ` +
      'would drop those removed and import blocks, and such a workspace would then destroy what they adopt. Keep the file and declare the new ' +
      'resources with their _v1 types by hand, or delete it once every workspace has been built with its version, then run again.',
  );
}

function expressionText(parsed: ParsedHcl, attr: HclAttribute): string {
  return parsed.tokens
    .slice(attr.exprStart, attr.exprEnd)
    .filter((t) => !isTrivia(t))
    .map((t) => t.text)
    .join('');
}

function occurrencesIn(file: ConfigFile, isRewritten: (fromDir: string, callPath: readonly string[]) => boolean): TypeOccurrence[] {
  // `terraform test` runs test and mock files against the root module, wherever the files sit.
  const fromDir = file.syntax === 'native' && file.parsed.dialect !== 'config' ? '' : dirOf(file.path);
  const moduleIsRewritten = (callPath: readonly string[]): boolean => isRewritten(fromDir, callPath);
  return file.syntax === 'native' ? typeOccurrencesInHcl(file.parsed, moduleIsRewritten) : typeOccurrencesInJson(file.tree, file.path, moduleIsRewritten);
}

/** Renaming `T.x` onto a `T_v1.x` that the same module already declares would make Terraform reject the template. */
function refuseCollisions(configFiles: readonly ConfigFile[], renamedLabelStarts: ReadonlyMap<string, ReadonlySet<number>>): void {
  const declared = new Map<string, { file: string; line: number }>();
  const key = (file: string, mode: string, type: string, name: string): string => [dirOf(file), mode, type, name].join('\0');
  const resources = configFiles.flatMap((f) => f.outline.resources);
  for (const r of resources) declared.set(key(r.file, r.mode, r.type, r.name), r);
  for (const r of resources) {
    if (!renamedLabelStarts.get(r.file)?.has(r.typeStart)) continue;
    const replacement = lookupDeprecated(r.mode, r.type)?.replacement ?? r.type;
    const twin = declared.get(key(r.file, r.mode, replacement, r.name));
    if (twin) {
      const what = `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`;
      throw new TemplateRewriteError(
        `${r.file}:${r.line}: renaming ${what} would collide with ${r.mode === 'data' ? 'data.' : ''}${replacement}.${r.name} ` +
          `declared at ${twin.file}:${twin.line}. Rename or remove one of the two blocks, then run the rewrite again.`,
      );
    }
  }
}

const ADDRESS = /^((?:module\.[^.[]+(?:\[[^\]]*\])?\.)*)([^.[]+)\.([^.[]+)(\[.*\])?$/;

/**
 * The `from` of a block that already moves or forgets the old type next to its declared _v1 twin
 * (the v3 upgrade's own `moved { from = T.x, to = T_v1.x }`, or `removed { from = T.x }` beside
 * an `import` into `T_v1.x`) keeps the old type: renamed, the move would be onto itself ("Redundant
 * move statement") and the removed block would name a declared resource ("Removed resource still
 * exists"), so every build of the new version would fail. The state rename does what the block meant.
 */
function keepsOldFrom(occ: TypeOccurrence, holder: AddressBlock, replacement: string, file: string, model: TemplateConfig): boolean {
  const m = ADDRESS.exec(holder.from);
  if (!m || m[2] !== occ.type) return false;
  const renamed = `${m[1]}${replacement}.${m[3]}${m[4] ?? ''}`;
  if (holder.block === 'moved') return renamed === holder.to;
  const callPath = [...m[1].matchAll(/module\.([^.[]+)/g)].map((c) => c[1]);
  const where = model.modules.resolve(callPath, dirOf(file));
  if (where.kind !== 'local') return false;
  return model.configFiles.some((f) => f.outline.resources.some((r) => r.mode === 'managed' && r.type === replacement && r.name === m[3] && dirOf(r.file) === where.dir));
}

function refusalReason(occ: TypeOccurrence, replacement: string, note: string | undefined): string {
  return (
    `${occ.type} and ${replacement} are different implementations${note ? ` (${note})` : ''}, so renaming would break the state. ` +
    `Rewrite this block for ${replacement} by hand and re-create its state with terraform import, ` +
    'or rename it anyway with --rename-different if you have checked that both schemas match.'
  );
}

/** Adds `newGuards` to the guard file in `out` (in place, or appended); returns every guard it holds. */
function updateGuardFile(out: TemplateFile[], guardFiles: readonly string[], guardFileName: string, newGuards: readonly string[]): string[] {
  const existingIndex = out.findIndex((f) => f.path === guardFileName);
  const existing = existingIndex >= 0 ? guardAddressesIn(guardFileName, out[existingIndex].content) : [];
  const elsewhere = new Set(guardFiles.filter((p) => p !== guardFileName).flatMap((p) => guardAddressesIn(p, out.find((f) => f.path === p)!.content)));
  const have = new Set(existing);
  const added = newGuards.filter((g) => !have.has(g) && !elsewhere.has(g));
  const all = [...new Set([...existing, ...added])].sort();
  if (added.length === 0) return all;
  const content = renderGuardFile(all);
  if (existingIndex >= 0) out[existingIndex] = { path: guardFileName, content };
  else out.push({ path: guardFileName, content });
  return all;
}

function checkGuardFileName(name: string, files: readonly TemplateFile[]): void {
  if (!/^[^/\\]+\.tf$/.test(name)) {
    throw new TemplateRewriteError(`Guard file name "${name}" must be a plain .tf file name in the template's root folder (for example wsmigrate_guards.tf).`);
  }
  const clash = files.find((f) => f.path === name);
  if (clash && !isGuardFile(clash.content)) {
    throw new TemplateRewriteError(
      `${name} already exists in the template and was not generated by wsmigrate (its first line is not the guard header). ` +
        'Choose another guard file name, or rename that file.',
    );
  }
}

function applyEdits(source: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) continue;
    out += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + source.slice(at);
}
