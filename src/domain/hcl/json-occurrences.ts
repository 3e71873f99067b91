import { lookupDeprecated, type ResourceMode } from '../type-map';
import type { JsonNode, JsonObject, JsonString } from './json-tree';
import { lexHcl } from './lexer';
import { findTypeReferences, type AddressBlock, type TypeOccurrence } from './type-references';

/** In Terraform's JSON syntax these attributes hold a bare expression, not a template. */
const EXPRESSION_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  moved: ['from', 'to'],
  removed: ['from'],
  import: ['to'],
  lifecycle: ['replace_triggered_by'],
};

/**
 * Every occurrence of a deprecated type in a `.tf.json` document: `resource`/`data` type keys
 * (also `data` inside `check`), `${…}` interpolations in string values, and the bare addresses of
 * `depends_on`, `replace_triggered_by`, `moved`, `removed` and `import`.
 */
export function typeOccurrencesInJson(
  root: JsonNode,
  file: string,
  moduleIsRewritten: (callPath: readonly string[]) => boolean,
): TypeOccurrence[] {
  const out: TypeOccurrence[] = [];
  if (root.kind !== 'object') return out;
  for (const { key, value } of root.entries) {
    if (key.value === '//') continue;
    if (key.value === 'resource') typeKeys(value, 'managed');
    else if (key.value === 'data') typeKeys(value, 'data');
    else if (key.value === 'check') {
      for (const body of labelledBodies(value, 1)) {
        for (const entry of body.entries) {
          if (entry.key.value === 'data') typeKeys(entry.value, 'data');
          else walk(entry.value, 'check', entry.key.value, new Set());
        }
      }
    } else walk(value, key.value, undefined, new Set());
  }
  return out.sort((a, b) => a.start - b.start);

  function typeKeys(node: JsonNode, mode: ResourceMode): void {
    for (const obj of objectsOf(node)) {
      for (const { key, value } of obj.entries) {
        if (key.value === '//') continue;
        if (lookupDeprecated(mode, key.value)) {
          out.push({ mode, type: key.value, start: key.start + 1, end: key.end - 1, line: key.line, context: 'label' });
        }
        for (const body of labelledBodies(value, 1)) walkBody(body, mode === 'managed' ? 'resource' : 'data', new Set());
      }
    }
  }

  function walkBody(body: JsonObject, blockType: string, shadowed: ReadonlySet<string>): void {
    for (const { key, value } of body.entries) {
      if (key.value === '//') continue;
      if (key.value === 'dynamic') {
        for (const obj of objectsOf(value)) {
          for (const { key: label, value: dynBody } of obj.entries) {
            const names = new Set(shadowed);
            names.add(label.value);
            for (const b of objectsOf(dynBody)) {
              const iterator = b.entries.find((e) => e.key.value === 'iterator')?.value;
              if (iterator?.kind === 'string') names.add(iterator.value.trim());
              walkBody(b, 'dynamic', names);
            }
          }
        }
        continue;
      }
      const holder = key.value === 'from' ? addressBlockOf(body, blockType) : undefined;
      walk(value, blockType, key.value, shadowed, holder);
    }
  }

  /** A `moved` or `removed` block's addresses (blanks dropped); only these two carry a `from`. */
  function addressBlockOf(body: JsonObject, blockType: string): AddressBlock | undefined {
    if (blockType !== 'moved' && blockType !== 'removed') return undefined;
    const text = (name: string): string | undefined => {
      const v = body.entries.find((e) => e.key.value === name)?.value;
      return v?.kind === 'string' ? v.value.replace(/\s+/g, '') : undefined;
    };
    const from = text('from');
    if (from === undefined) return undefined;
    const to = text('to');
    return { block: blockType, from, ...(to !== undefined ? { to } : {}) };
  }

  function walk(node: JsonNode, blockType: string, attribute: string | undefined, shadowed: ReadonlySet<string>, holder?: AddressBlock): void {
    if (node.kind === 'scalar') return;
    if (node.kind === 'array') {
      for (const item of node.items) walk(item, blockType, attribute, shadowed, holder);
      return;
    }
    if (node.kind === 'object') {
      walkBody(node, attribute ?? blockType, shadowed);
      return;
    }
    if (attribute === undefined || attribute === '//') return;
    if (blockType === 'lifecycle' && attribute === 'ignore_changes') return;
    if (blockType === 'dynamic' && attribute === 'iterator') return;
    if (attribute === 'provider' || attribute === 'source' || attribute === 'version') return;
    const bareExpression = attribute === 'depends_on' || (EXPRESSION_ATTRIBUTES[blockType]?.includes(attribute) ?? false);
    stringOccurrences(node, bareExpression, shadowed, holder);
  }

  function stringOccurrences(str: JsonString, address: boolean, shadowed: ReadonlySet<string>, holder?: AddressBlock): void {
    const isTemplate = str.value.includes('${') || str.value.includes('%{');
    if (!address && !isTemplate) return;
    const tokens = lexHcl(str.value, file, { mode: isTemplate ? 'template' : 'expression', firstLine: str.line });
    for (const occ of findTypeReferences(tokens, 0, tokens.length, { address, shadowed, moduleIsRewritten })) {
      out.push({ ...occ, start: str.rawOffsets[occ.start], end: str.rawOffsets[occ.end], line: str.line, ...(holder ? { fromOf: holder } : {}) });
    }
  }
}

/** A block in JSON syntax is an object, or an array of objects. */
export function objectsOf(node: JsonNode): JsonObject[] {
  if (node.kind === 'object') return [node];
  if (node.kind === 'array') return node.items.filter((n): n is JsonObject => n.kind === 'object');
  return [];
}

/** The bodies below `depth` levels of labels (e.g. 1 for `{"name": {…}}`). */
export function labelledBodies(node: JsonNode, depth: number): JsonObject[] {
  if (depth === 0) return objectsOf(node);
  return objectsOf(node).flatMap((obj) => obj.entries.filter((e) => e.key.value !== '//').flatMap((e) => labelledBodies(e.value, depth - 1)));
}

/** The bodies of one declared resource in a `.tf.json` tree (`{"resource": {"T": {"name": {…}}}}`), found by its type's offset. */
export function resourceBodiesInJson(root: JsonNode, r: { readonly type: string; readonly name: string; readonly typeStart: number }): JsonObject[] {
  return objectsOf(root)
    .flatMap((top) => top.entries.filter((e) => e.key.value === 'resource'))
    .flatMap((e) => objectsOf(e.value))
    .flatMap((byType) => byType.entries.filter((e) => e.key.value === r.type && e.key.start + 1 === r.typeStart))
    .flatMap((e) => objectsOf(e.value))
    .flatMap((byName) => byName.entries.filter((e) => e.key.value === r.name))
    .flatMap((e) => labelledBodies(e.value, 0));
}
