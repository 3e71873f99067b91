import { parseJsonTree, type JsonNode } from '../../../src/domain/hcl/json-tree';
import { HclSyntaxError } from '../../../src/domain/hcl/lexer';

/** The tree as a reader sees it: kinds, keys, decoded strings and lines; offsets checked apart. */
function shape(n: JsonNode): unknown {
  switch (n.kind) {
    case 'string':
      return { s: n.value, line: n.line };
    case 'scalar':
      return { scalar: n.line };
    case 'array':
      return { array: n.items.map(shape), line: n.line };
    case 'object':
      return { object: n.entries.map((e) => [e.key.value, shape(e.value)]), line: n.line };
  }
}

describe('parseJsonTree', () => {
  test('a .tf.json document: objects, arrays, scalars and strings with the line each starts on', () => {
    const source = '\uFEFF{\r\n  "resource": {"kubernetes_pod": [ {"a": {"count": 2, "x": -1.5e+3}} ]},\n\t"n": [true, false, null, 0, 10, 0.25, 1E-2],\n  "e": {}, "f": [] }\n';
    expect(shape(parseJsonTree(source, 'main.tf.json'))).toEqual({
      line: 1,
      object: [
        ['resource', { line: 2, object: [['kubernetes_pod', { line: 2, array: [{ line: 2, object: [['a', { line: 2, object: [['count', { scalar: 2 }], ['x', { scalar: 2 }]] }]] }] }]] }],
        ['n', { line: 3, array: [{ scalar: 3 }, { scalar: 3 }, { scalar: 3 }, { scalar: 3 }, { scalar: 3 }, { scalar: 3 }, { scalar: 3 }] }],
        ['e', { line: 4, object: [] }],
        ['f', { line: 4, array: [] }],
      ],
    });
  });

  test('a string keeps its whole token offsets and, per decoded character, the offset it was written at', () => {
    const source = '{"k\\u0041": "a\\"\\\\\\/\\b\\f\\n\\r\\tz"}';
    const root = parseJsonTree(source, 'main.tf.json');
    if (root.kind !== 'object') throw new Error('not an object');
    const { key, value } = root.entries[0];
    expect(key).toMatchObject({ value: 'kA', start: 1, end: 10, rawOffsets: [2, 3, 9] });
    expect(source.slice(key.start, key.end)).toBe('"k\\u0041"');
    if (value.kind !== 'string') throw new Error('not a string');
    expect(value.value).toBe('a"\\/\b\f\n\r\tz');
    expect(source.slice(value.start, value.end)).toBe('"a\\"\\\\\\/\\b\\f\\n\\r\\tz"');
    expect(value.rawOffsets).toEqual([13, 14, 16, 18, 20, 22, 24, 26, 28, 30, 31]);
    expect(value.rawOffsets.map((o) => source[o])).toEqual(['a', '\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\', 'z', '"']);
  });

  test.each<[string, string, string]>([
    ['text after the document', '{}\n x', 'main.tf.json:2: invalid JSON: unexpected text after the JSON document.'],
    ['an empty document', '  ', 'main.tf.json:1: invalid JSON: the document ends too early.'],
    ['a bare word', '{"a":\n  yes}', 'main.tf.json:2: invalid JSON: unexpected `y`.'],
    ['a number with a leading zero', '[01]', 'main.tf.json:1: invalid JSON: expected `,` or `]` in an array.'],
    ['an unquoted key', '{\n a: 1}', 'main.tf.json:2: invalid JSON: expected a quoted object key.'],
    ['a trailing comma in an object', '{"a": 1,}', 'main.tf.json:1: invalid JSON: expected a quoted object key.'],
    ['a key without a colon', '{"resource" 1}', 'main.tf.json:1: invalid JSON: expected `:` after the key "resource".'],
    ['a missing comma in an object', '{"a": 1 "b": 2}', 'main.tf.json:1: invalid JSON: expected `,` or `}` in an object.'],
    ['an object left open', '{"a": 1', 'main.tf.json:1: invalid JSON: expected `,` or `}` in an object.'],
    ['a missing comma in an array', '[1 2]', 'main.tf.json:1: invalid JSON: expected `,` or `]` in an array.'],
    ['an array left open', '[\n1,\n', 'main.tf.json:3: invalid JSON: the document ends too early.'],
    ['a string left open, named at the line it opened', '{\n"a": "x', 'main.tf.json:2: invalid JSON: unterminated string.'],
    ['a raw newline in a string', '[\n"a\nb"]', 'main.tf.json:2: invalid JSON: unterminated string.'],
    ['an unknown escape', '["a\\x"]', 'main.tf.json:1: invalid JSON: bad escape \\x.'],
    ['an escape at the end of the file', '["a\\', 'main.tf.json:1: invalid JSON: bad escape \\.'],
    ['a short \\u escape', '["\\u12g4"]', 'main.tf.json:1: invalid JSON: bad \\u escape.'],
  ])('refuses %s, naming the line', (_title, source, message) => {
    let caught: unknown;
    try {
      parseJsonTree(source, 'main.tf.json');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HclSyntaxError);
    expect((caught as Error).message).toBe(message);
  });
});
