import type { ResourceMode } from '../type-map';
import { attributeNamed, blocksOfType, type HclBlock } from './body-parser';
import { labelledBodies, objectsOf } from './json-occurrences';
import type { JsonNode } from './json-tree';
import type { ParsedHcl } from './native-occurrences';

/** A `resource` or `data` block as declared in one file (address relative to its module). */
export interface ResourceDeclaration {
  readonly file: string;
  readonly mode: ResourceMode;
  readonly type: string;
  readonly name: string;
  readonly line: number;
  /** Index of the header's first token in a native file, for annotations on the line above. */
  readonly headerIndex?: number;
  /** Source offset of the type name (inside the quotes), to match it with a renamed label. */
  readonly typeStart: number;
}

/** A `module "name" { source = "…" }` call. */
export interface ModuleCall {
  readonly file: string;
  readonly name: string;
  readonly source: string | undefined;
  readonly line: number;
}

export interface ConfigOutline {
  readonly resources: readonly ResourceDeclaration[];
  readonly moduleCalls: readonly ModuleCall[];
}

export function outlineHcl(parsed: ParsedHcl): ConfigOutline {
  if (parsed.dialect !== 'config') return { resources: [], moduleCalls: [] };
  const resources: ResourceDeclaration[] = [];
  const declare = (block: HclBlock, mode: ResourceMode): void => {
    const [type, name] = block.labels;
    if (type && name) {
      resources.push({
        file: parsed.path,
        mode,
        type: type.value,
        name: name.value,
        line: block.type.line,
        headerIndex: block.headerIndex,
        typeStart: type.token.start,
      });
    }
  };
  for (const block of blocksOfType(parsed.items, 'resource')) declare(block, 'managed');
  for (const block of blocksOfType(parsed.items, 'data')) declare(block, 'data');
  for (const check of blocksOfType(parsed.items, 'check')) for (const block of blocksOfType(check.body, 'data')) declare(block, 'data');

  const moduleCalls = blocksOfType(parsed.items, 'module')
    .filter((b) => b.labels[0])
    .map((b): ModuleCall => ({ file: parsed.path, name: b.labels[0].value, source: literalString(parsed, attributeNamed(b.body, 'source')), line: b.type.line }));
  return { resources, moduleCalls };
}

export function outlineJson(root: JsonNode, file: string): ConfigOutline {
  const resources: ResourceDeclaration[] = [];
  const moduleCalls: ModuleCall[] = [];
  for (const top of objectsOf(root)) {
    for (const { key, value } of top.entries) {
      const mode: ResourceMode | undefined = key.value === 'resource' ? 'managed' : key.value === 'data' ? 'data' : undefined;
      if (mode) {
        for (const byType of objectsOf(value)) {
          for (const { key: type, value: byName } of byType.entries) {
            if (type.value === '//') continue;
            for (const names of objectsOf(byName)) {
              for (const { key: name } of names.entries) {
                if (name.value !== '//') resources.push({ file, mode, type: type.value, name: name.value, line: type.line, typeStart: type.start + 1 });
              }
            }
          }
        }
      }
      if (key.value === 'module') {
        for (const calls of objectsOf(value)) {
          for (const { key: name, value: body } of calls.entries) {
            if (name.value === '//') continue;
            const source = labelledBodies(body, 0)
              .flatMap((b) => b.entries)
              .find((e) => e.key.value === 'source')?.value;
            moduleCalls.push({ file, name: name.value, source: source?.kind === 'string' ? source.value : undefined, line: name.line });
          }
        }
      }
    }
  }
  return { resources, moduleCalls };
}

function literalString(parsed: ParsedHcl, attr: ReturnType<typeof attributeNamed>): string | undefined {
  if (!attr) return undefined;
  const tokens = parsed.tokens.slice(attr.exprStart, attr.exprEnd).filter((t) => t.kind !== 'space' && t.kind !== 'comment' && t.kind !== 'newline');
  if (tokens.length === 3 && tokens[0].kind === 'quoteOpen' && tokens[1].kind === 'literal' && tokens[2].kind === 'quoteClose') return tokens[1].text;
  return undefined;
}
