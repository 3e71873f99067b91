import { lookupDeprecated, type ResourceMode } from '../type-map';
import { parseBody, type HclBlock, type HclItem } from './body-parser';
import { isTrivia, lexHcl, type Token } from './lexer';
import { findTypeReferences, type AddressBlock, type TypeOccurrence } from './type-references';

/** Which dialect a native-syntax file speaks: configuration, `terraform test` file, or mock data file. */
export type HclDialect = 'config' | 'test' | 'mock';

export interface ParsedHcl {
  readonly path: string;
  readonly dialect: HclDialect;
  readonly source: string;
  readonly tokens: readonly Token[];
  readonly items: readonly HclItem[];
}

export function parseHclFile(path: string, source: string, dialect: HclDialect): ParsedHcl {
  const tokens = lexHcl(source, path);
  return { path, dialect, source, tokens, items: parseBody(tokens, path) };
}

/** Attributes whose value is a resource address rather than a value. */
const ADDRESS_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  moved: ['from', 'to'],
  removed: ['from'],
  import: ['to'],
  lifecycle: ['replace_triggered_by'],
  override_resource: ['target'],
  override_data: ['target'],
  override_module: ['target'],
  plan_options: ['target', 'replace'],
};

/** Blocks whose first label is a resource type, by dialect and nesting. */
function labelMode(dialect: HclDialect, parents: readonly string[], blockType: string): ResourceMode | undefined {
  const parent = parents[parents.length - 1];
  if (dialect === 'config') {
    if (parents.length === 0 && blockType === 'resource') return 'managed';
    if ((parents.length === 0 || (parents.length === 1 && parent === 'check')) && blockType === 'data') return 'data';
    return undefined;
  }
  const mockParent = dialect === 'mock' ? parents.length === 0 : parents.length === 1 && parent === 'mock_provider';
  if (mockParent && blockType === 'mock_resource') return 'managed';
  if (mockParent && blockType === 'mock_data') return 'data';
  return undefined;
}

/**
 * Every occurrence of a deprecated type in a native-syntax file: block labels, references in
 * expressions (templates and heredocs included) and addresses.
 */
export function typeOccurrencesInHcl(parsed: ParsedHcl, moduleIsRewritten: (callPath: readonly string[]) => boolean): TypeOccurrence[] {
  const out: TypeOccurrence[] = [];
  walk(parsed.items, [], new Set(), undefined);
  return out.sort((a, b) => a.start - b.start);

  function walk(items: readonly HclItem[], parents: readonly string[], shadowed: ReadonlySet<string>, holder: AddressBlock | undefined): void {
    const blockType = parents[parents.length - 1] ?? '';
    for (const item of items) {
      if (item.kind === 'attribute') {
        const name = item.name.text;
        if (blockType === 'lifecycle' && name === 'ignore_changes') continue;
        if (blockType === 'dynamic' && name === 'iterator') continue;
        const address = name === 'depends_on' || (ADDRESS_ATTRIBUTES[blockType]?.includes(name) ?? false);
        const found = findTypeReferences(parsed.tokens, item.exprStart, item.exprEnd, {
          address,
          legacyQuoted: name === 'depends_on',
          shadowed,
          moduleIsRewritten,
        });
        out.push(...(holder && name === 'from' ? found.map((occ) => ({ ...occ, fromOf: holder })) : found));
        continue;
      }
      const mode = labelMode(parsed.dialect, parents, item.type.text);
      const label = item.labels[0];
      if (mode && label && lookupDeprecated(mode, label.value)) {
        out.push({ mode, type: label.value, start: label.token.start, end: label.token.end, line: label.token.line, context: 'label' });
      }
      walk(item.body, [...parents, item.type.text], withDynamicIterator(item, shadowed, parsed.tokens), addressBlockOf(item, parents, parsed));
    }
  }
}

/** A root `moved` or `removed` block of a configuration file, with its addresses as written (blanks dropped). */
function addressBlockOf(block: HclBlock, parents: readonly string[], parsed: ParsedHcl): AddressBlock | undefined {
  const type = block.type.text;
  if (parsed.dialect !== 'config' || parents.length > 0 || (type !== 'moved' && type !== 'removed')) return undefined;
  const text = (name: string): string | undefined => {
    const attr = block.body.find((i) => i.kind === 'attribute' && i.name.text === name);
    if (attr?.kind !== 'attribute') return undefined;
    return parsed.tokens
      .slice(attr.exprStart, attr.exprEnd)
      .filter((t) => !isTrivia(t))
      .map((t) => t.text)
      .join('');
  };
  const from = text('from');
  if (from === undefined) return undefined;
  const to = text('to');
  return { block: type, from, ...(to !== undefined ? { to } : {}) };
}

/** A `dynamic "x"` block binds `x` (or its `iterator` name) inside its body. */
function withDynamicIterator(block: HclBlock, shadowed: ReadonlySet<string>, tokens: readonly Token[]): ReadonlySet<string> {
  if (block.type.text !== 'dynamic') return shadowed;
  const names = new Set(shadowed);
  if (block.labels[0]) names.add(block.labels[0].value);
  for (const item of block.body) {
    if (item.kind !== 'attribute' || item.name.text !== 'iterator') continue;
    const ident = tokens.slice(item.exprStart, item.exprEnd).find((t) => t.kind === 'ident');
    if (ident) names.add(ident.text);
  }
  return names;
}
