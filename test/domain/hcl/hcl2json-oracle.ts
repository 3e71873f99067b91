import { getExpressionAst } from '@cdktf/hcl2json';
import { memoizedOracle } from '../../harness/oracle-memo';
import { lookupDeprecated, type ResourceMode } from '../../../src/domain/type-map';

/**
 * An independent check of the rewriter: HashiCorp's own HCL parser (hcl2json, WASM) finds the
 * traversals, and this applies the rename to them. Only what a rename must change is modelled here
 * (block type keys and traversal roots); it shares no code with the rewriter.
 */
export interface OracleOptions {
  renameDifferent: boolean;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface AstNode {
  type: string;
  children: AstNode[];
  meta?: { traversal?: { type: string; segment: string; range: { start: { byte: number }; end: { byte: number } } }[]; keyVar?: string; valVar?: string };
}

const isObject = (v: Json | undefined): v is { [k: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);

const WRAP_OPEN = '<<WSMIGRATE_ORACLE\n';
const WRAP_CLOSE = '\nWSMIGRATE_ORACLE\n';

function replacementFor(mode: ResourceMode, type: string, opts: OracleOptions): string | undefined {
  const m = lookupDeprecated(mode, type);
  if (!m || (m.compat === 'DIFFERENT' && !opts.renameDifferent)) return undefined;
  return m.replacement;
}

/** Rename traversal roots inside a template string the way Terraform would resolve them. */
export async function renameInTemplate(template: string, opts: OracleOptions): Promise<string> {
  if (!template.includes('${') && !template.includes('%{')) return template;
  const wrapped = Buffer.from(WRAP_OPEN + template + WRAP_CLOSE, 'utf8');
  const source = wrapped.toString('utf8');
  const ast = (await memoizedOracle(['hcl2json expression ast', source], () => getExpressionAst('oracle.tf', source))) as unknown as AstNode | null;
  const edits: { start: number; end: number; from: string; text: string }[] = [];
  const visit = (node: AstNode, locals: string[]): void => {
    if (node.type === 'scopeTraversal') {
      const parts = node.meta?.traversal ?? [];
      const root = parts[0];
      if (!root || locals.includes(root.segment)) return;
      if (root.segment === 'data' && parts[1]?.type === 'nameTraversal') {
        const to = replacementFor('data', parts[1].segment, opts);
        if (to) edits.push({ start: parts[1].range.start.byte, end: parts[1].range.end.byte, from: parts[1].segment, text: to });
        return;
      }
      const to = parts.length > 1 ? replacementFor('managed', root.segment, opts) : undefined;
      if (to) edits.push({ start: root.range.start.byte, end: root.range.end.byte, from: root.segment, text: to });
      return;
    }
    if (node.type === 'for') {
      const bound = [node.meta?.keyVar, node.meta?.valVar].filter((v): v is string => !!v);
      node.children.forEach((child, i) => visit(child, i === 0 ? locals : [...locals, ...bound]));
      return;
    }
    for (const child of node.children ?? []) visit(child, locals);
  };
  if (ast) visit(ast, []);
  edits.sort((a, b) => b.start - a.start);
  let bytes = wrapped;
  for (const e of edits) {
    // A name traversal's range starts at its `.` (and any space before the name).
    const start = e.start + bytes.subarray(e.start, e.end).lastIndexOf(e.from);
    bytes = Buffer.concat([bytes.subarray(0, start), Buffer.from(e.text), bytes.subarray(e.end)]);
  }
  const text = bytes.toString('utf8');
  return text.slice(WRAP_OPEN.length, text.length - WRAP_CLOSE.length);
}

/** A bare address string (`depends_on = ["T.n"]`, JSON `moved.from`) renamed like an expression. */
async function renameInAddress(address: string, opts: OracleOptions): Promise<string> {
  const renamed = await renameInTemplate('${' + address + '}', opts);
  return renamed.slice(2, -1);
}

const LABELLED_TYPES: Record<string, ResourceMode> = { resource: 'managed', data: 'data', mock_resource: 'managed', mock_data: 'data' };
const BARE_ADDRESS_KEYS = new Set(['depends_on', 'from', 'to', 'replace_triggered_by']);

async function renameKeys(obj: Json, mode: ResourceMode, opts: OracleOptions, depth: number, json: boolean): Promise<Json> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = replacementFor(mode, k, opts) ?? k;
    const walked = await walk(v, opts, depth + 1, undefined, json);
    // Old and new type blocks merge under one key, as hcl2json would have grouped them.
    out[key] = isObject(out[key]) && isObject(walked) ? { ...out[key], ...walked } : walked;
  }
  return out;
}

async function walk(node: Json, opts: OracleOptions, depth: number, key: string | undefined, json = false): Promise<Json> {
  if (typeof node === 'string') {
    if (key === 'ignore_changes') return node;
    const bare = key !== undefined && BARE_ADDRESS_KEYS.has(key) && !node.includes('${');
    if (bare && (json || key === 'depends_on')) return renameInAddress(node, opts);
    return renameInTemplate(node, opts);
  }
  if (Array.isArray(node)) return Promise.all(node.map((n) => walk(n, opts, depth, key, json)));
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) {
    const mode = LABELLED_TYPES[k];
    if (mode && (depth === 0 || k !== 'data' || key === 'check' || key === 'mock_provider')) {
      out[k] = Array.isArray(v) ? await Promise.all(v.map((x) => renameKeys(x, mode, opts, depth, json))) : await renameKeys(v, mode, opts, depth, json);
    } else if (k === 'check' || k === 'mock_provider') {
      out[k] = await walkLabelled(v, opts, depth, k, json);
    } else {
      out[k] = await walk(v, opts, depth + 1, k, json);
    }
  }
  return out;
}

async function walkLabelled(v: Json, opts: OracleOptions, depth: number, key: string, json: boolean): Promise<Json> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return walk(v, opts, depth + 1, key, json);
  const out: { [k: string]: Json } = {};
  for (const [label, bodies] of Object.entries(v)) {
    const list = Array.isArray(bodies) ? bodies : [bodies];
    const walked = await Promise.all(list.map(async (b) => walkBodyUnder(b, opts, depth + 2, key, json)));
    out[label] = Array.isArray(bodies) ? walked : walked[0];
  }
  return out;
}

async function walkBodyUnder(body: Json, opts: OracleOptions, depth: number, parent: string, json: boolean): Promise<Json> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return walk(body, opts, depth, parent, json);
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(body)) {
    const mode = LABELLED_TYPES[k];
    if (mode && k !== 'resource') {
      out[k] = Array.isArray(v) ? await Promise.all(v.map((x) => renameKeys(x, mode, opts, depth, json))) : await renameKeys(v, mode, opts, depth, json);
    } else out[k] = await walk(v, opts, depth + 1, k, json);
  }
  return out;
}

/** The parse of a native file (hcl2json output) as it should look after the rename. */
export function renameInParsedHcl(parsed: Json, opts: OracleOptions): Promise<Json> {
  return walk(parsed, opts, 0, undefined, false);
}

/** A `.tf.json` document (JSON.parse output) as it should look after the rename. */
export function renameInParsedJson(doc: Json, opts: OracleOptions): Promise<Json> {
  return walk(doc, opts, 0, undefined, true);
}
