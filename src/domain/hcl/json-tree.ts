import { HclSyntaxError } from './lexer';

/**
 * A JSON parser that keeps source offsets, so a `.tf.json` rewrite can replace a key or part of a
 * string value in place and leave every other byte (order, spacing, escapes) as it was.
 */
export interface JsonString {
  readonly kind: 'string';
  /** Offsets of the whole token, quotes included. */
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly value: string;
  /** rawOffsets[i] is the source offset of value[i]; rawOffsets[value.length] is the closing quote. */
  readonly rawOffsets: readonly number[];
}
export interface JsonObject {
  readonly kind: 'object';
  readonly line: number;
  readonly entries: readonly { key: JsonString; value: JsonNode }[];
}
export interface JsonArray {
  readonly kind: 'array';
  readonly line: number;
  readonly items: readonly JsonNode[];
}
export interface JsonScalar {
  readonly kind: 'scalar';
  readonly line: number;
}
export type JsonNode = JsonString | JsonObject | JsonArray | JsonScalar;

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export function parseJsonTree(source: string, file: string): JsonNode {
  let pos = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const node = value();
  skipSpace();
  if (pos < source.length) fail('unexpected text after the JSON document');
  return node;

  function fail(problem: string): never {
    throw new HclSyntaxError(file, line, `invalid JSON: ${problem}.`);
  }
  function skipSpace(): void {
    while (pos < source.length) {
      const c = source[pos];
      if (c === '\n') line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r') return;
      pos++;
    }
  }
  function value(): JsonNode {
    skipSpace();
    const c = source[pos];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    const m = /^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)/.exec(source.slice(pos, pos + 400));
    if (!m) fail(c === undefined ? 'the document ends too early' : `unexpected \`${c}\``);
    pos += m[0].length;
    return { kind: 'scalar', line };
  }
  function object(): JsonObject {
    const startLine = line;
    pos++;
    const entries: { key: JsonString; value: JsonNode }[] = [];
    skipSpace();
    if (source[pos] === '}') {
      pos++;
      return { kind: 'object', line: startLine, entries };
    }
    for (;;) {
      skipSpace();
      if (source[pos] !== '"') fail('expected a quoted object key');
      const key = string();
      skipSpace();
      if (source[pos] !== ':') fail(`expected \`:\` after the key "${key.value}"`);
      pos++;
      entries.push({ key, value: value() });
      skipSpace();
      if (source[pos] === ',') {
        pos++;
        continue;
      }
      if (source[pos] === '}') {
        pos++;
        return { kind: 'object', line: startLine, entries };
      }
      fail('expected `,` or `}` in an object');
    }
  }
  function array(): JsonArray {
    const startLine = line;
    pos++;
    const items: JsonNode[] = [];
    skipSpace();
    if (source[pos] === ']') {
      pos++;
      return { kind: 'array', line: startLine, items };
    }
    for (;;) {
      items.push(value());
      skipSpace();
      if (source[pos] === ',') {
        pos++;
        continue;
      }
      if (source[pos] === ']') {
        pos++;
        return { kind: 'array', line: startLine, items };
      }
      fail('expected `,` or `]` in an array');
    }
  }
  function string(): JsonString {
    const start = pos;
    const startLine = line;
    pos++;
    let decoded = '';
    const rawOffsets: number[] = [];
    for (;;) {
      const c = source[pos];
      if (c === undefined || c === '\n') {
        line = startLine;
        fail('unterminated string');
      }
      if (c === '"') break;
      if (c === '\\') {
        const e = source[pos + 1];
        if (e === 'u') {
          const hex = source.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
          rawOffsets.push(pos);
          decoded += String.fromCharCode(parseInt(hex, 16));
          pos += 6;
          continue;
        }
        const simple = SIMPLE_ESCAPES[e];
        if (simple === undefined) fail(`bad escape \\${e ?? ''}`);
        rawOffsets.push(pos);
        decoded += simple;
        pos += 2;
        continue;
      }
      rawOffsets.push(pos);
      decoded += c;
      pos++;
    }
    rawOffsets.push(pos);
    pos++;
    return { kind: 'string', start, end: pos, line: startLine, value: decoded, rawOffsets };
  }
}
