import type { HclBlock, HclItem } from './body-parser';
import type { ResourceDeclaration } from './config-outline';
import { resourceBodiesInJson } from './json-occurrences';
import type { JsonNode, JsonString } from './json-tree';
import { lexHcl, type Token } from './lexer';
import { dirOf, resolveLocalSource } from './module-tree';
import { declaredBlock, type ConfigFile, type TemplateConfig } from './template-config';

const NAMESPACE_TYPES = new Set(['kubernetes_namespace', 'kubernetes_namespace_v1']);

/**
 * The template's own namespaces that hold a protected resource. Deleting a namespace deletes every
 * object in it (Kubernetes' namespace controller), its claims included: a template that makes one
 * namespace per workspace and puts the home claim in it loses the claim with the namespace, so the
 * namespace must be guarded like the claim. A namespace holds a resource when that resource's block
 * refers to it (`kubernetes_namespace.ws.metadata[0].name`), directly or through `local.*` values,
 * or names its namespace with the very expression the namespace's name is (`local.ns` in both), in
 * the same module, or hands it to a local module whose protected resource reads that input (at any
 * depth of local modules). A claim in a `.tf.json` file is read for references in its strings
 * (`"${kubernetes_namespace.ws.metadata[0].name}"`); module calls are read in native files only.
 */
export function namespacesHoldingProtected(model: TemplateConfig, protectedResources: ReadonlySet<ResourceDeclaration>): ResourceDeclaration[] {
  const held: ResourceDeclaration[] = [];
  const byDir = new Map<string, ConfigFile[]>();
  for (const f of model.configFiles) byDir.set(dirOf(f.path), [...(byDir.get(dirOf(f.path)) ?? []), f]);
  for (const files of byDir.values()) {
    const namespaces = files.flatMap((f) => f.outline.resources).filter((r) => r.mode === 'managed' && NAMESPACE_TYPES.has(r.type));
    if (namespaces.length === 0) continue;
    const locals = localsOf(files);
    const referenced = new Set<string>();
    const namespaceTexts = new Set<string>();
    for (const f of files) {
      if (f.syntax === 'json') {
        for (const r of f.outline.resources) if (protectedResources.has(r)) namespaceRefs(jsonExpressions(f, r), locals, referenced, new Set());
        continue;
      }
      for (const r of f.outline.resources) {
        if (!protectedResources.has(r)) continue;
        const block = declaredBlock(f, r);
        if (!block) continue;
        namespaceRefs(expressionsOf(block.body, f.parsed.tokens), locals, referenced, new Set());
        const text = metadataText(block, 'namespace', f.parsed.tokens);
        if (text) namespaceTexts.add(text);
      }
    }
    // Also a namespace named by the very expression the claim's namespace is (`local.ns` in both, or the same text).
    const sameName = (n: ResourceDeclaration): boolean => {
      const f = files.find((c) => c.path === n.file);
      const block = f?.syntax === 'native' ? declaredBlock(f, n) : undefined;
      const text = block && f?.syntax === 'native' ? metadataText(block, 'name', f.parsed.tokens) : undefined;
      return text !== undefined && namespaceTexts.has(text);
    };
    for (const name of namespacesPassedToProtected(files, byDir, locals, protectedResources)) referenced.add(name);
    held.push(...namespaces.filter((n) => referenced.has(`${n.type}.${n.name}`) || sameName(n)));
  }
  return held;
}

/**
 * Namespaces handed to a local module (`namespace = kubernetes_namespace.ws.metadata[0].name` in the
 * call) whose protected resource uses that input (`var.namespace`), directly or through the module's
 * own calls to deeper local modules.
 */
function namespacesPassedToProtected(
  files: readonly ConfigFile[],
  byDir: ReadonlyMap<string, readonly ConfigFile[]>,
  locals: ReadonlyMap<string, Expression>,
  protectedResources: ReadonlySet<ResourceDeclaration>,
): Set<string> {
  const out = new Set<string>();
  const inputs = new Map<string, Set<string>>();
  for (const { call, file, childDir } of localModuleCalls(files)) {
    const childUses = protectedInputs(childDir, byDir, protectedResources, inputs);
    for (const arg of call.body) {
      if (arg.kind !== 'attribute' || !childUses.has(arg.name.text)) continue;
      namespaceRefs([file.parsed.tokens.slice(arg.exprStart, arg.exprEnd)], locals, out, new Set());
    }
  }
  return out;
}

interface LocalModuleCall {
  readonly call: HclBlock;
  readonly file: ConfigFile & { syntax: 'native' };
  readonly childDir: string;
}

/** The `module` blocks of `files` whose source is a folder of the template. */
function localModuleCalls(files: readonly ConfigFile[]): LocalModuleCall[] {
  const calls: LocalModuleCall[] = [];
  for (const f of files) {
    if (f.syntax !== 'native') continue;
    for (const call of f.parsed.items) {
      if (call.kind !== 'block' || call.type.text !== 'module') continue;
      const source = call.body.find((it) => it.kind === 'attribute' && it.name.text === 'source');
      const sourceText = source?.kind === 'attribute' ? f.parsed.tokens.slice(source.exprStart, source.exprEnd).find((t) => t.kind === 'literal')?.text : undefined;
      const childDir = resolveLocalSource(dirOf(f.path), sourceText);
      if (childDir !== undefined) calls.push({ call, file: f, childDir });
    }
  }
  return calls;
}

/**
 * The input variables of the module in `dir` that reach a protected resource: read in its block, or
 * handed on to a deeper local module's input that does. Memoized per folder; a folder met again while
 * it is being read (a module calling itself) adds nothing.
 */
function protectedInputs(
  dir: string,
  byDir: ReadonlyMap<string, readonly ConfigFile[]>,
  protectedResources: ReadonlySet<ResourceDeclaration>,
  memo: Map<string, Set<string>>,
): Set<string> {
  const known = memo.get(dir);
  if (known) return known;
  const uses = new Set<string>();
  memo.set(dir, uses);
  const files = byDir.get(dir) ?? [];
  for (const f of files) {
    if (f.syntax !== 'native') continue;
    for (const r of f.outline.resources) {
      if (!protectedResources.has(r)) continue;
      const block = declaredBlock(f, r);
      if (block) for (const v of variablesIn(expressionsOf(block.body, f.parsed.tokens))) uses.add(v);
    }
  }
  for (const { call, file, childDir } of localModuleCalls(files)) {
    const childUses = protectedInputs(childDir, byDir, protectedResources, memo);
    for (const arg of call.body) {
      if (arg.kind !== 'attribute' || !childUses.has(arg.name.text)) continue;
      for (const v of variablesIn([file.parsed.tokens.slice(arg.exprStart, arg.exprEnd)])) uses.add(v);
    }
  }
  return uses;
}

/** Names of the `var.x` an expression reads. */
function variablesIn(expressions: readonly Expression[]): string[] {
  const names: string[] = [];
  for (const expr of expressions) {
    const t = expr.filter((x) => x.kind !== 'space');
    for (let i = 0; i + 2 < t.length; i++) {
      if (t[i].kind === 'ident' && t[i].text === 'var' && t[i + 1].text === '.' && t[i + 2].kind === 'ident' && !(i > 0 && t[i - 1].text === '.')) names.push(t[i + 2].text);
    }
  }
  return names;
}

/** The source text (blanks dropped) of `metadata { <attribute> = … }`, when set. */
function metadataText(block: HclBlock, attribute: string, tokens: readonly Token[]): string | undefined {
  const metadata = block.body.find((it): it is HclBlock => it.kind === 'block' && it.type.text === 'metadata');
  const attr = metadata?.body.find((it) => it.kind === 'attribute' && it.name.text === attribute);
  if (attr?.kind !== 'attribute') return undefined;
  const text = tokens
    .slice(attr.exprStart, attr.exprEnd)
    .filter((t) => t.kind !== 'space' && t.kind !== 'comment' && t.kind !== 'newline')
    .map((t) => t.text)
    .join('');
  return text === '' ? undefined : text;
}

/** The expressions in the string values of a `.tf.json` resource's body (`"${kubernetes_namespace.ws.id}"`), lexed as templates. */
function jsonExpressions(f: ConfigFile & { syntax: 'json' }, r: ResourceDeclaration): Expression[] {
  const strings: JsonString[] = [];
  const walk = (node: JsonNode): void => {
    if (node.kind === 'string') strings.push(node);
    else if (node.kind === 'array') node.items.forEach(walk);
    else if (node.kind === 'object') for (const e of node.entries) walk(e.value);
  };
  resourceBodiesInJson(f.tree, r).forEach(walk);
  return strings.filter((s) => s.value.includes('${')).map((s) => lexHcl(s.value, f.path, { mode: 'template', firstLine: s.line }));
}

/** A run of tokens of one expression. */
type Expression = readonly Token[];

function expressionsOf(items: readonly HclItem[], tokens: readonly Token[]): Expression[] {
  return items.flatMap((it) => (it.kind === 'attribute' ? [tokens.slice(it.exprStart, it.exprEnd)] : expressionsOf(it.body, tokens)));
}

/** Each `locals` value of the module, by name. */
function localsOf(files: readonly ConfigFile[]): Map<string, Expression> {
  const out = new Map<string, Expression>();
  for (const f of files) {
    if (f.syntax !== 'native') continue;
    for (const it of f.parsed.items) {
      if (it.kind !== 'block' || it.type.text !== 'locals') continue;
      for (const a of it.body) if (a.kind === 'attribute') out.set(a.name.text, f.parsed.tokens.slice(a.exprStart, a.exprEnd));
    }
  }
  return out;
}

/** Adds `type.name` of every namespace the expressions refer to, following `local.x` once each. */
function namespaceRefs(expressions: readonly Expression[], locals: ReadonlyMap<string, Expression>, out: Set<string>, seenLocals: Set<string>): void {
  for (const expr of expressions) {
    const idents = expr.filter((t) => t.kind !== 'space');
    for (let i = 0; i + 2 < idents.length; i++) {
      const [root, dot, name] = [idents[i], idents[i + 1], idents[i + 2]];
      if (root.kind !== 'ident' || dot.kind !== 'punct' || dot.text !== '.' || name.kind !== 'ident') continue;
      if (i > 0 && idents[i - 1].kind === 'punct' && idents[i - 1].text === '.') continue; // an attribute, not a root
      if (NAMESPACE_TYPES.has(root.text)) out.add(`${root.text}.${name.text}`);
      if (root.text === 'local' && !seenLocals.has(name.text)) {
        seenLocals.add(name.text);
        const value = locals.get(name.text);
        if (value) namespaceRefs([value], locals, out, seenLocals);
      }
    }
  }
}
