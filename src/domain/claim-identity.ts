import { attributeNamed, blocksOfType, type HclBlock, type HclItem } from './hcl/body-parser';
import { lookupDeprecated, isPersistentType } from './type-map';
import { isTrivia, type Token } from './hcl/lexer';
import { parseHclFile, type ParsedHcl } from './hcl/native-occurrences';

/**
 * What a build of a template version will name a persistent object, from its `metadata` block,
 * for the expressions whose value is certain before the plan: quoted text, `var.*`, `local.*`, the
 * workspace's and owner's names and ids, `lower`/`upper`. Anything else (other functions,
 * conditionals, a sensitive variable nobody gave) is unknown and never compared. A claim whose name
 * or namespace changes is replaced by the build: its data is gone (kubernetes provider: both force
 * a new resource).
 */
export interface IdentityContext {
  /** A version's variable values; absent or undefined: unknown. */
  readonly variables: Readonly<Record<string, string | undefined>>;
  readonly workspace: { readonly id: string; readonly name: string; readonly ownerName: string; readonly ownerId: string };
}

export interface PlannedIdentity {
  /** undefined: unknown, or named by generate_name (a prefix plus Kubernetes' random suffix). */
  readonly name?: string;
  /** undefined: unknown. A namespaced object without one is in "default". */
  readonly namespace?: string;
}

export interface IdentityChange {
  readonly address: string;
  readonly field: 'name' | 'namespace';
  readonly from: string;
  readonly to: string;
}

const MAX_LOCAL_DEPTH = 8;

interface Scope {
  readonly parsed: readonly ParsedHcl[];
  readonly ctx: IdentityContext;
}

function significant(tokens: readonly Token[], start: number, end: number): Token[] {
  return tokens.slice(start, end).filter((t) => !isTrivia(t));
}

/**
 * `ownerName` is the owner's username (the API's `owner_name`). The provider's
 * `coder_workspace.owner_name` is not: Coder fills it with the owner's full name (WorkspaceOwnerName =
 * owner.Name; the provider says "use coder_workspace_owner.full_name"), or "default" when empty, so it
 * is unknown here, as `full_name` is.
 */
function workspaceField(kind: string, field: string, ctx: IdentityContext): string | undefined {
  const ws = ctx.workspace;
  if (kind === 'coder_workspace') return ({ id: ws.id, name: ws.name, owner: ws.ownerName, owner_id: ws.ownerId } as Record<string, string>)[field];
  if (kind === 'coder_workspace_owner') return ({ name: ws.ownerName, id: ws.ownerId } as Record<string, string>)[field];
  return undefined;
}

function localValue(scope: Scope, name: string, depth: number): string | undefined {
  for (const file of scope.parsed) {
    for (const block of blocksOfType(file.items, 'locals')) {
      const attr = attributeNamed(block.body, name);
      if (attr) return evaluate(scope, significant(file.tokens, attr.exprStart, attr.exprEnd), depth + 1);
    }
  }
  return undefined;
}

/** A dotted traversal: `var.x`, `local.x`, `data.coder_workspace.me.id`; undefined for anything it cannot be sure of. */
function reference(scope: Scope, parts: readonly string[], depth: number): string | undefined {
  const [root, a, b, c] = parts;
  if (root === 'var' && a !== undefined && parts.length === 2) return Object.hasOwn(scope.ctx.variables, a) ? scope.ctx.variables[a] : undefined;
  if (root === 'local' && a !== undefined && parts.length === 2) return depth < MAX_LOCAL_DEPTH ? localValue(scope, a, depth) : undefined;
  if (root === 'data' && a !== undefined && b !== undefined && c !== undefined && parts.length === 4) return workspaceField(a, c, scope.ctx);
  return undefined;
}

/** Parses `ident (. ident)*` from `at`; returns the parts and the index after them. */
function traversal(ts: readonly Token[], at: number): { parts: string[]; next: number } | undefined {
  if (ts[at]?.kind !== 'ident') return undefined;
  const parts = [ts[at].text];
  let i = at + 1;
  while (ts[i]?.kind === 'punct' && ts[i]?.text === '.' && ts[i + 1]?.kind === 'ident') {
    parts.push(ts[i + 1]!.text);
    i += 2;
  }
  return { parts, next: i };
}

/** One expression over significant tokens `ts` (whole), or undefined. */
function evaluate(scope: Scope, ts: readonly Token[], depth: number): string | undefined {
  const result = expression(scope, ts, 0, depth);
  return result && result.next === ts.length ? result.value : undefined;
}

function expression(scope: Scope, ts: readonly Token[], at: number, depth: number): { value: string; next: number } | undefined {
  const t = ts[at];
  if (!t) return undefined;
  if (t.kind === 'quoteOpen') return template(scope, ts, at + 1, depth);
  const path = traversal(ts, at);
  if (!path) return undefined;
  const [fn] = path.parts;
  if (path.parts.length === 1 && (fn === 'lower' || fn === 'upper') && ts[path.next]?.text === '(') {
    const arg = expression(scope, ts, path.next + 1, depth);
    if (!arg || ts[arg.next]?.text !== ')') return undefined;
    return { value: fn === 'lower' ? arg.value.toLowerCase() : arg.value.toUpperCase(), next: arg.next + 1 };
  }
  // An index, a splat or a call on the traversal: not something it can be sure of.
  if (ts[path.next]?.text === '[' || ts[path.next]?.text === '(') return undefined;
  const value = reference(scope, path.parts, depth);
  return value === undefined ? undefined : { value, next: path.next };
}

function template(scope: Scope, ts: readonly Token[], at: number, depth: number): { value: string; next: number } | undefined {
  let out = '';
  let i = at;
  for (;;) {
    const t = ts[i];
    if (!t) return undefined;
    if (t.kind === 'quoteClose') return { value: out, next: i + 1 };
    if (t.kind === 'literal') {
      // Escapes and `$${`/`%%{` are left unknown rather than decoded wrong.
      if (/[\\]|\$\$\{|%%\{/.test(t.text)) return undefined;
      out += t.text;
      i++;
      continue;
    }
    if (t.kind === 'interpOpen') {
      const inner = expression(scope, ts, i + 1, depth);
      if (!inner || ts[inner.next]?.kind !== 'templateClose' || ts[inner.next]?.text !== '}') return undefined;
      out += inner.value;
      i = inner.next + 1;
      continue;
    }
    return undefined; // a directive (%{…}) or anything else
  }
}

function resourceBlock(parsed: readonly ParsedHcl[], type: string, name: string): { file: ParsedHcl; block: HclBlock } | undefined {
  for (const file of parsed) {
    const block = blocksOfType(file.items, 'resource').find((b) => b.labels[0]?.value === type && b.labels[1]?.value === name);
    if (block) return { file, block };
  }
  return undefined;
}

function valueOf(scope: Scope, file: ParsedHcl, items: readonly HclItem[], attribute: string): string | undefined {
  const attr = attributeNamed(items, attribute);
  return attr ? evaluate(scope, significant(file.tokens, attr.exprStart, attr.exprEnd), 0) : undefined;
}

/** Parses the version's native-syntax .tf files at the root (JSON and module files are not read). */
export function parseRootConfig(files: readonly { path: string; content: string }[]): ParsedHcl[] {
  return files.filter((f) => f.path.endsWith('.tf') && !f.path.includes('/')).map((f) => parseHclFile(f.path, f.content, 'config'));
}

/**
 * The name and namespace the version gives `type.name` (undefined when the version does not declare
 * it, or declares it more than once in a way this does not read).
 */
export function plannedIdentity(parsed: readonly ParsedHcl[], type: string, name: string, ctx: IdentityContext, namespaced: boolean): PlannedIdentity | undefined {
  const found = resourceBlock(parsed, type, name);
  if (!found) return undefined;
  const metadata = blocksOfType(found.block.body, 'metadata');
  if (metadata.length !== 1) return undefined;
  const items = (metadata[0] as HclBlock).body;
  const scope: Scope = { parsed, ctx };
  const generated = attributeNamed(items, 'generate_name') !== undefined;
  const nameValue = generated ? undefined : valueOf(scope, found.file, items, 'name');
  const namespace = !namespaced ? undefined : attributeNamed(items, 'namespace') ? valueOf(scope, found.file, items, 'namespace') : 'default';
  return { ...(nameValue !== undefined ? { name: nameValue } : {}), ...(namespace !== undefined ? { namespace } : {}) };
}

/** The fields whose planned value is known and differs from the object's in the state. */
export function identityChanges(address: string, planned: PlannedIdentity, current: { name?: string; namespace?: string }): IdentityChange[] {
  const changes: IdentityChange[] = [];
  if (planned.name !== undefined && current.name !== undefined && planned.name !== current.name) changes.push({ address, field: 'name', from: current.name, to: planned.name });
  if (planned.namespace !== undefined && current.namespace !== undefined && planned.namespace !== current.namespace) {
    changes.push({ address, field: 'namespace', from: current.namespace, to: planned.namespace });
  }
  return changes;
}

interface StateResourceView {
  readonly module?: string | undefined;
  readonly mode: string;
  readonly type: string;
  readonly name: string;
  readonly instances: readonly { readonly index_key?: unknown; readonly attributes?: Record<string, unknown> | null | undefined }[];
}

function metadataOf(attributes: Record<string, unknown> | null | undefined): { name?: string; namespace?: string } {
  const list = attributes?.metadata;
  const meta = Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined) : undefined;
  return {
    ...(typeof meta?.name === 'string' ? { name: meta.name } : {}),
    ...(typeof meta?.namespace === 'string' ? { namespace: meta.namespace } : {}),
  };
}

/**
 * Every persistent object of the root module's state (PVCs, PVs) whose name or namespace the
 * version would change, so its migration's build would replace it. The version declares each under
 * its _v1 type (or still the old one); objects it does not declare, or whose names it computes in
 * ways this does not read, are not compared.
 */
export function persistentIdentityChanges(resources: readonly StateResourceView[], parsed: readonly ParsedHcl[], ctx: IdentityContext): IdentityChange[] {
  const changes: IdentityChange[] = [];
  for (const r of resources) {
    if (r.module !== undefined || r.mode !== 'managed' || !isPersistentType(r.type)) continue;
    const declaredAs = [lookupDeprecated('managed', r.type)?.replacement, r.type].filter((t): t is string => t !== undefined);
    const namespaced = r.type.startsWith('kubernetes_persistent_volume_claim');
    const planned = declaredAs.map((t) => ({ type: t, identity: plannedIdentity(parsed, t, r.name, ctx, namespaced) })).find((p) => p.identity !== undefined);
    if (!planned?.identity) continue;
    for (const instance of r.instances) {
      const key = instance.index_key === undefined ? '' : `[${JSON.stringify(instance.index_key)}]`;
      changes.push(...identityChanges(`${planned.type}.${r.name}${key}`, planned.identity, metadataOf(instance.attributes)));
    }
  }
  return changes;
}

/**
 * The changes in words, for a refusal: a field computed from a secret shows neither its new value
 * nor the state's (likely the secret itself).
 */
export function describeIdentityChanges(changes: readonly IdentityChange[], secrets: readonly string[], buildLabel: string): string {
  const fromSecret = (text: string) => secrets.some((s) => s !== '' && text.includes(s));
  return changes
    .slice(0, 5)
    .map((c) =>
      fromSecret(c.to) || fromSecret(c.from)
        ? `give ${c.address} another ${c.field} (computed from a sensitive variable) than ${buildLabel} has`
        : `give ${c.address} the ${c.field} '${c.to}' where ${buildLabel} has '${c.from}'`,
    )
    .join('; ');
}
