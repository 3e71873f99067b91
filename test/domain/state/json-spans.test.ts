import fc from 'fast-check';
import { ANY_INDEX, JsonSyntaxError, parseJsonOutline, parseJsonWithSpans, scanJsonSpans, type JsonPathPattern, type JsonPathStep, type JsonTokenSpan } from '../../../src/domain/state/json-spans';
import { propertyRuns } from '../../harness/property-runs';

describe('scanJsonSpans', () => {
  it('records the raw token of each matching value, quotes included, in text order', () => {
    const text = '{"a": [ {"t": "x"}, {"t":"y\\u0022z", "u": 1} ], "n": 12345678901234567890}';
    const spans = scanJsonSpans(text, [['a', ANY_INDEX, 't'], ['n']]);
    expect(spans.map((s) => [s.path, text.slice(s.start, s.end), s.kind])).toEqual([
      [['a', 0, 't'], '"x"', 'string'],
      [['a', 1, 't'], '"y\\u0022z"', 'string'],
      [['n'], '12345678901234567890', 'number'],
    ]);
  });

  it('does not look inside values off the patterns (a key named like a target elsewhere is ignored)', () => {
    const text = '{"other": {"t": "no"}, "a": [{"inner": {"t": "no"}, "t": "yes"}]}';
    const spans = scanJsonSpans(text, [['a', ANY_INDEX, 't']]);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(['"yes"']);
  });

  it.each([
    ['{"a": 1,}', 1, 9, 'expected a quoted object key'],
    ['{"a": 1\n "b": 2}', 2, 2, "expected ',' or '}'"],
    ['{"a": tru}', 1, 7, 'expected a value'],
    ['{"a": "x\ny"}', 1, 9, 'control character'],
    ['{"a": "\\x"}', 1, 8, 'invalid escape'],
    ['{"a": 01}', 1, 8, "expected ',' or '}'"],
    ['{"a": [1 2]}', 1, 10, "expected ',' or ']'"],
    ['{"a": [1, ]}', 1, 11, 'expected a value'],
    ['{"a": [ ], "b": { }} x', 1, 22, 'after the end'],
    ['{"a": 1.}', 1, 8, 'after the decimal point'],
    ['{"a": "open', 1, 7, 'not closed'],
    ['{"a": 1} x', 1, 10, 'after the end'],
    ['', 1, 1, 'ends where a value was expected'],
  ])('reports %j at line %i, column %i', (text, line, column, problem) => {
    let error: unknown;
    try {
      scanJsonSpans(text, []);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect((error as JsonSyntaxError).line).toBe(line);
    expect((error as JsonSyntaxError).column).toBe(column);
    expect((error as JsonSyntaxError).message).toContain(problem);
  });

  it('never quotes the document in its error (it may hold secrets)', () => {
    expect(() => scanJsonSpans('{"token": "hunter2" "x": 1}', [])).toThrow(/^line 1, column 21: /);
    expect(() => scanJsonSpans('{"token": "hunter2" "x": 1}', [])).not.toThrow(/hunter2/);
  });

  it('refuses a duplicated key on the way to a pattern, where it would make the span ambiguous', () => {
    expect(() => scanJsonSpans('{"a": [{"t": "x", "t": "y"}]}', [['a', ANY_INDEX, 't']])).toThrow(/"t" appears twice/);
    expect(scanJsonSpans('{"b": {"t": 1, "t": 2}}', [['a']])).toEqual([]);
  });

  it('accepts exactly what JSON.parse accepts', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        let scans = true;
        try {
          scanJsonSpans(text, [[]]);
        } catch {
          scans = false;
        }
        return parses === scans;
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('parseJsonWithSpans gives the same spans as the checking scan, and the parsed value', () => {
    const pattern = [['a', ANY_INDEX, 't'], ['n']] as const;
    fc.assert(
      fc.property(
        fc.record({ a: fc.array(fc.record({ t: fc.jsonValue(), u: fc.jsonValue() }, { requiredKeys: [] }), { maxLength: 4 }), n: fc.jsonValue(), z: fc.jsonValue() }, { requiredKeys: [] }),
        fc.constantFrom(0, 2, '\t'),
        (doc, indent) => {
          const text = JSON.stringify(doc, null, indent);
          const { value, spans } = parseJsonWithSpans(text, pattern);
          expect(value).toEqual(JSON.parse(text));
          expect(spans).toEqual(scanJsonSpans(text, pattern));
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it('parseJsonWithSpans locates errors inside values it skips, and duplicate keys where it looks', () => {
    expect(() => parseJsonWithSpans('{"a": [{"t": "x"}],\n "blob": {"deep": [1, 2,]}}', [['a', ANY_INDEX, 't']])).toThrow(/^line 2, column 25: expected a value/);
    expect(() => parseJsonWithSpans('{"a": [{"t": "x", "t": "y"}]}', [['a', ANY_INDEX, 't']])).toThrow(/"t" appears twice/);
    expect(() => parseJsonWithSpans('{"a": "unterminated', [['a']])).toThrow(JsonSyntaxError);
  });
});

describe('parseJsonOutline', () => {
  const patterns: JsonPathPattern[] = [['a', ANY_INDEX, 't'], ['n']];
  const standIns: JsonPathPattern[] = [['a', ANY_INDEX, 'blob'], ['z']];

  const standIn = (v: unknown) => (Array.isArray(v) ? [] : typeof v === 'string' ? '' : v !== null && typeof v === 'object' ? {} : v);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

  /** JSON.parse's value with each stand-in path emptied, as parseJsonOutline promises. */
  function outlineOf(text: string): unknown {
    const doc: unknown = JSON.parse(text);
    if (!isObject(doc)) return doc;
    if (Object.hasOwn(doc, 'z')) doc.z = standIn(doc.z);
    if (Array.isArray(doc.a)) for (const item of doc.a) if (isObject(item) && Object.hasOwn(item, 'blob')) item.blob = standIn(item.blob);
    return doc;
  }

  /** The spans, or the error message: what a caller of each reader sees. */
  function outcome(read: () => readonly unknown[]): unknown {
    try {
      return read();
    } catch (e) {
      if (e instanceof JsonSyntaxError) return e.message;
      throw e;
    }
  }

  const docs = fc.record(
    {
      a: fc.array(fc.record({ t: fc.jsonValue({ maxDepth: 2 }), blob: fc.jsonValue({ maxDepth: 4 }), u: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }), { maxLength: 4 }),
      n: fc.jsonValue({ maxDepth: 2 }),
      z: fc.jsonValue({ maxDepth: 4 }),
      w: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  );
  /** Layouts the indentation guess is right for, and ones it is wrong for (it must notice). */
  const layout = fc.oneof(
    fc.record({ indent: fc.constantFrom(0, 1, 2, 4, '\t'), crlf: fc.boolean(), scramble: fc.constant(0) }),
    fc.record({ indent: fc.constantFrom(2, '\t'), crlf: fc.boolean(), scramble: fc.integer({ min: 2, max: 9 }) }),
  );
  function lay(doc: unknown, { indent, crlf, scramble }: { indent: number | string; crlf: boolean; scramble: number }): string {
    let text = JSON.stringify(doc, null, indent);
    if (scramble > 0) text = text.replace(/\n[ \t]*/g, (_, offset: number) => `\n${' '.repeat(offset % scramble)}`);
    return crlf ? text.replace(/\n/g, '\r\n') : text;
  }

  it('gives the spans of the checking scan and the value of JSON.parse, stand-ins emptied to their kind', () => {
    fc.assert(
      fc.property(docs, layout, (doc, how) => {
        const text = lay(doc, how);
        const { value, spans } = parseJsonOutline(text, patterns, standIns);
        expect(spans).toEqual(scanJsonSpans(text, patterns));
        expect(value).toEqual(outlineOf(text));
      }),
      { numRuns: propertyRuns(400) },
    );
  });

  it('refuses what the checking scan refuses, with the same line, column and words, and nothing else', () => {
    const mutation = fc.record({ at: fc.nat(), op: fc.constantFrom('delete', 'insert', 'truncate'), char: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', ' ', '0', '-', 'e', 'x', '\n', '\u0001') });
    fc.assert(
      fc.property(docs, layout, mutation, (doc, how, { at, op, char }) => {
        const valid = lay(doc, how);
        const i = at % (valid.length + 1);
        const text = op === 'delete' ? valid.slice(0, i) + valid.slice(i + 1) : op === 'insert' ? valid.slice(0, i) + char + valid.slice(i) : valid.slice(0, i);
        const outline = outcome(() => parseJsonOutline(text, patterns, standIns).spans);
        expect(outline).toEqual(outcome(() => scanJsonSpans(text, patterns)));
        if (Array.isArray(outline)) expect(parseJsonOutline(text, patterns, standIns).value).toEqual(outlineOf(text));
      }),
      { numRuns: propertyRuns(1500) },
    );
  });

  it('finds the end of a value whose closing line looks like another one, and of values nested far deeper than a call stack goes', () => {
    // The blob opens on a line indented by 6 and holds a line "      }" that is not its end.
    const tricky = '{\n  "a": [\n    {\n      "blob": {\n        "s": "\\n      }\\n  ]",\n        "k": {\n      },\n        "x": [\n    1]\n      },\n      "t": "yes"\n    }\n  ]\n}';
    expect(JSON.parse(tricky).a[0].blob.k).toEqual({});
    expect(parseJsonOutline(tricky, patterns, standIns)).toEqual({ value: { a: [{ blob: {}, t: 'yes' }] }, spans: scanJsonSpans(tricky, patterns) });
    const deep = `{"a": [{"blob": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "t": 1}], "z": ${'{"k":'.repeat(50_000)}0${'}'.repeat(50_000)}}`;
    expect(parseJsonOutline(deep, patterns, standIns).value).toEqual({ a: [{ blob: [], t: 1 }], z: {} });
  });

  it('keeps a "__proto__" member as JSON.parse does, an own property and not the prototype', () => {
    const { value } = parseJsonOutline('{"a": [{"__proto__": {"polluted": 1}, "t": 1}]}', patterns, standIns);
    const item = (value as { a: Record<string, unknown>[] }).a[0];
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(item, '__proto__')).toBe(true);
    expect(item).toEqual(JSON.parse('{"__proto__": {"polluted": 1}, "t": 1}'));
  });
});

describe('spans and values where patterns meet, exactly', () => {
  it('records each kind of value with its exact offsets; a span over a value hides the patterns inside it', () => {
    const text = ' {"o": {"k": [1]}, "a": [1, {}], "l": true, "n": null, "f": false, "m": -0.5, "s": "x"}';
    const spans = scanJsonSpans(text, [['o'], ['a'], ['l'], ['n'], ['f'], ['m'], ['s'], ['o', 'k', ANY_INDEX]]);
    expect(spans.map((s) => [s.path, text.slice(s.start, s.end), s.kind, s.start, s.end])).toEqual([
      [['o'], '{"k": [1]}', 'object', 7, 17],
      [['a'], '[1, {}]', 'array', 24, 31],
      [['l'], 'true', 'literal', 38, 42],
      [['n'], 'null', 'literal', 49, 53],
      [['f'], 'false', 'literal', 60, 65],
      [['m'], '-0.5', 'number', 72, 76],
      [['s'], '"x"', 'string', 83, 86],
    ]);
    expect(parseJsonWithSpans(text, [['o'], ['a'], ['l'], ['n'], ['f'], ['m'], ['s'], ['o', 'k', ANY_INDEX]]).spans).toEqual(spans);
    expect(parseJsonOutline(text, [['o'], ['a'], ['l'], ['n'], ['f'], ['m'], ['s'], ['o', 'k', ANY_INDEX]], []).spans).toEqual(spans);
  });

  it.each<[string, string, JsonPathPattern[], JsonPathPattern[], unknown]>([
    ['a span and a stand-in on one value: the span wins, the value is kept whole', '{"a": {"x": 1}}', [['a']], [['a']], { value: { a: { x: 1 } }, spans: [{ path: ['a'], start: 6, end: 14, kind: 'object' }] }],
    ['a span inside a stand-in: the stand-in is walked, nothing in it emptied', '{"a": {"b": 1, "c": [1]}}', [['a', 'b']], [['a']], { value: { a: { b: 1, c: [1] } }, spans: [{ path: ['a', 'b'], start: 12, end: 13, kind: 'number' }] }],
    ['a stand-in inside a span: the span is read whole, nothing in it emptied', '{"a": {"b": {"k": 1}, "c": [1]}}', [['a']], [['a', 'b']], { value: { a: { b: { k: 1 }, c: [1] } }, spans: [{ path: ['a'], start: 6, end: 31, kind: 'object' }] }],
    ['on the way to a stand-in only, a repeated key is no error: the last one wins', '{"w": {"y": 1, "y": 2, "x": "s"}}', [], [['w', 'x']], { value: { w: { y: 2, x: '' } }, spans: [] }],
    ['no pattern at all: repeated keys as JSON.parse takes them', '{"a":1,"a":2}', [], [], { value: { a: 2 }, spans: [] }],
    [
      'scalars on the way to a pattern, decoded as JSON.parse does',
      '{"a": "s\\n", "b": 1, "c": -1.5e3, "d": true, "e": false, "f": null, "g": "\\u0041"}',
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k): JsonPathPattern => [k, 't']),
      [],
      { value: { a: 's\n', b: 1, c: -1500, d: true, e: false, f: null, g: 'A' }, spans: [] },
    ],
  ])('%s', (_, text, patterns, standIns, expected) => {
    expect(parseJsonOutline(text, patterns, standIns)).toEqual(expected);
  });

  it('refuses a repeated key on the way to a span, word for word and at the repeat, in every reader', () => {
    const text = '{"a": [{"t": 1, "t": 2}]}';
    const message = 'line 1, column 17: the key "t" appears twice in one object';
    for (const read of [() => scanJsonSpans(text, [['a', ANY_INDEX, 't']]), () => parseJsonWithSpans(text, [['a', ANY_INDEX, 't']]), () => parseJsonOutline(text, [['a', ANY_INDEX, 't']], [])]) {
      expect(read).toThrow(new JsonSyntaxError('the key "t" appears twice in one object', 16, 1, 17, false));
      expect(read).toThrow(message);
    }
    expect(() => parseJsonOutline('{"w": {"y": 1, "y": 2, "x": "s"}}', [['w', 'x']], [])).toThrow('line 1, column 16: the key "y" appears twice in one object');
    expect(scanJsonSpans('{"a":1,"a":2}', [])).toEqual([]);
    expect(parseJsonWithSpans('{"a":1,"a":2}', [])).toEqual({ value: { a: 2 }, spans: [] });
  });

  it('says where a key lacks its colon, and when values nest deeper than the stack', () => {
    expect(() => scanJsonSpans('{"a" 1}', [])).toThrow(new JsonSyntaxError("expected ':' after an object key", 5, 1, 6));
    expect(() => scanJsonSpans('{"a" 1}', [])).toThrow("line 1, column 6: expected ':' after an object key");
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => scanJsonSpans(deep, [])).toThrow(/^line 1, column \d+: values are nested too deeply$/);
    expect(parseJsonWithSpans(deep, [['a']]).spans).toEqual([]);
  });

  it('reads whitespace of every kind between tokens', () => {
    const text = '\t{\r\n "a"\t:\n[ 1 ,\t"x"\r\n] } \n';
    expect(scanJsonSpans(text, [['a', ANY_INDEX]]).map((s) => text.slice(s.start, s.end))).toEqual(['1', '"x"']);
    expect(parseJsonOutline(text, [['a', ANY_INDEX]], []).value).toEqual({ a: [1, 'x'] });
  });
});

describe('scalars, checked byte by byte', () => {
  it.each([
    ['{"a": "\\u12G4"}', 'line 1, column 8: a \\u escape needs four hex digits'],
    ['{"a": "\\u12"}', 'line 1, column 8: a \\u escape needs four hex digits'],
    ['{"a": -}', 'line 1, column 8: a number needs digits'],
    ['{"a": -a}', 'line 1, column 8: a number needs digits'],
    ['{"a": 1e}', 'line 1, column 9: a number needs digits in its exponent'],
    ['{"a": 1E+}', 'line 1, column 10: a number needs digits in its exponent'],
    ['{"a": 0.}', 'line 1, column 8: a number needs digits after the decimal point'],
    ['{"a": "\u001f"}', 'line 1, column 8: a control character must be escaped inside a string'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => scanJsonSpans(text, [['a']])).toThrow(message);
    expect(() => parseJsonWithSpans(text, [['a']])).toThrow(message);
    expect(() => parseJsonOutline(text, [['a']], [])).toThrow(message);
  });

  it.each([
    ['{"a": "\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9"}', '"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9"'],
    ['{"a": "\u007f "}', '"\u007f "'],
    ['{"a": "\\u00E9\\uFFFF"}', '"\\u00E9\\uFFFF"'],
    ['{"a": 1.5E+3}', '1.5E+3'],
    ['{"a": 2e-3}', '2e-3'],
    ['{"a": -10}', '-10'],
    ['{"a": [-0, 12.50, 1e5]}', '[-0, 12.50, 1e5]'],
  ])('accepts %j, its span %s', (text, token) => {
    for (const spans of [scanJsonSpans(text, [['a']]), parseJsonWithSpans(text, [['a']]).spans, parseJsonOutline(text, [['a']], []).spans]) {
      expect(spans.map((s) => text.slice(s.start, s.end))).toEqual([token]);
    }
  });

  it('matches a pattern against a key as JSON.parse decodes it, escapes and all', () => {
    const text = '{"\\u0061": 1, "b\\"": 2, "plain": 3}';
    const patterns: JsonPathPattern[] = [['a'], ['b"'], ['plain']];
    const expected = [[['a'], '1'], [['b"'], '2'], [['plain'], '3']];
    for (const spans of [scanJsonSpans(text, patterns), parseJsonWithSpans(text, patterns).spans, parseJsonOutline(text, patterns, []).spans]) {
      expect(spans.map((s) => [s.path, text.slice(s.start, s.end)])).toEqual(expected);
    }
    expect(parseJsonOutline(text, patterns, []).value).toEqual({ a: 1, 'b"': 2, plain: 3 });
  });
});

describe('what each reader reports, input by input', () => {
  /** The spans, or the error as a caller sees it: its kind, where, the words, and whether JSON.parse sees it too. */
  function outcome(read: () => { spans: readonly JsonTokenSpan[] } | readonly JsonTokenSpan[]): unknown {
    try {
      const result = read();
      return Array.isArray(result) ? result : (result as { spans: unknown }).spans;
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      return { name: e.name, message: e.message, offset: e.offset, line: e.line, column: e.column, syntaxOnly: e.syntaxOnly };
    }
  }

  it('names its errors, and tells a duplicated key (valid JSON all the same) from a syntax error', () => {
    expect(outcome(() => scanJsonSpans('', []))).toEqual({ name: 'JsonSyntaxError', message: 'line 1, column 1: the text ends where a value was expected', offset: 0, line: 1, column: 1, syntaxOnly: true });
    expect(outcome(() => scanJsonSpans('{"a": [{"t": 1, "t": 2}]}', [['a', ANY_INDEX, 't']]))).toEqual({
      name: 'JsonSyntaxError',
      message: 'line 1, column 17: the key "t" appears twice in one object',
      offset: 16,
      line: 1,
      column: 17,
      syntaxOnly: false,
    });
    expect(String(new JsonSyntaxError('a problem', 3, 2, 1))).toBe('JsonSyntaxError: line 2, column 1: a problem');
    expect(new JsonSyntaxError('a problem', 3, 2, 1).syntaxOnly).toBe(true);
  });

  it.each<[string, string, JsonPathPattern[]]>([
    ['a duplicated key after an error in a value the quick pass skips', '{"b": [1 2], "a": [{"t": 1, "t": 2}]}', [['a', ANY_INDEX, 't']]],
    ['a text cut after a colon, where a skipped value was due', '{"a":', [['t']]],
    ['a skipped value missing between two commas', '{"a": [1,,2]}', [['a', 't']]],
    ['a skipped value missing between two commas, spaced', '{"a": [1, ,2]}', [['a', 't']]],
    ['a quick-pass stumble after the first error', '{"b": [1 2] "a": 1}', [['a']]],
  ])('parseJsonWithSpans reports the first problem, as the checking scan and the outline do: %s', (_, text, patterns) => {
    const first = outcome(() => scanJsonSpans(text, patterns));
    expect(first).toHaveProperty('message');
    expect(outcome(() => parseJsonWithSpans(text, patterns))).toEqual(first);
    expect(outcome(() => parseJsonOutline(text, patterns, []))).toEqual(first);
  });

  it.each<[string, string, JsonPathPattern[], [JsonPathStep[], string, JsonTokenSpan['kind']][]]>([
    ['a member after a skipped number, compact, closed after a tab', '{"x":1,"t":2\t}', [['t']], [[['t'], '2', 'number']]],
    ['a member after a skipped number, compact', '{"x":1,"t":2}', [['t']], [[['t'], '2', 'number']]],
    ['brackets inside the keys of a skipped value', '{"z":{"k[":0},"t":{"k]":1}}', [['t']], [[['t'], '{"k]":1}', 'object']]],
    // A string read up to its first delimiter instead of its closing quote would close the array at
    // the `]` inside it and, the next key opening with a colon, read on to the end without a stumble.
    ['a recorded array whose string element holds a bracket, then a key that opens with a colon', '{"arr":["a], "],":x":0}', [['arr']], [[['arr'], '["a], "]', 'array']]],
    ['a skipped string that ends in an escaped backslash', '{"z":["\\\\"],"t":{"\\"":false}}', [['t']], [[['t'], '{"\\"":false}', 'object']]],
    [
      'escaped quotes and brackets in the keys of recorded objects',
      '{"a":[{"a":[{"\\"":null}]},{"[":[{"}":null,"a":{"{":0,"\\"":true}}]}]}',
      [['a', ANY_INDEX]],
      [
        [['a', 0], '{"a":[{"\\"":null}]}', 'object'],
        [['a', 1], '{"[":[{"}":null,"a":{"{":0,"\\"":true}}]}', 'object'],
      ],
    ],
    ['a span over an object hides a pattern for its empty-named member', '{"a":{"x":1,"":2},"b":3}', [['a'], ['a', '']], [[['a'], '{"x":1,"":2}', 'object']]],
    ['a span over an array hides a pattern for its elements', '{"a":[1,{"t":2}]}', [['a'], ['a', ANY_INDEX], ['a', ANY_INDEX, 't']], [[['a'], '[1,{"t":2}]', 'array']]],
    ['numbers that open with 0 and 9', '{"a":[{"t":0},{"t":9},{"t":-1},{"t":0.5},{"t":90}]}', [['a', ANY_INDEX, 't']], [
        [['a', 0, 't'], '0', 'number'],
        [['a', 1, 't'], '9', 'number'],
        [['a', 2, 't'], '-1', 'number'],
        [['a', 3, 't'], '0.5', 'number'],
        [['a', 4, 't'], '90', 'number'],
      ],
    ],
  ])('every reader finds the same spans: %s', (_, text, patterns, expected) => {
    const spans = scanJsonSpans(text, patterns);
    expect(spans.map((s) => [s.path, text.slice(s.start, s.end), s.kind])).toEqual(expected);
    expect(parseJsonWithSpans(text, patterns)).toEqual({ value: JSON.parse(text), spans });
    expect(parseJsonOutline(text, patterns, [])).toEqual({ value: JSON.parse(text), spans });
  });

  it.each([
    ['laid out with tabs and not one space', '{\n\t"z":[\n\t\t1\n\t],\n\t"t":{\n\t\t"k":[\n\t\t]\n\t}\n}'],
    ['with an object whose lines are indented less than the line it opens on', '{\n  "z": {\n"k": 1}, "t": 2}'],
    ['with an array whose lines are indented less than the line it opens on', '{\n  "z": [\n1], "t": 2}'],
    ['with CRLF line ends', '{\r\n  "z": {\r\n    "k": [\r\n      1\r\n    ]\r\n  },\r\n  "t": 2\r\n}'],
  ])('the outline reads a document %s, the indentation guess wrong or right', (_, text) => {
    expect(parseJsonOutline(text, [['t']], [['z']])).toEqual({ value: { ...JSON.parse(text), z: Array.isArray(JSON.parse(text).z) ? [] : {} }, spans: scanJsonSpans(text, [['t']]) });
    expect(parseJsonOutline(text, [['t']], [])).toEqual({ value: JSON.parse(text), spans: scanJsonSpans(text, [['t']]) });
  });

  it('keeps a "__proto__" member writable and configurable, as JSON.parse does', () => {
    const text = '{"a": [{"__proto__": {"p": 1}, "t": 1}]}';
    const item = (parseJsonOutline(text, [['a', ANY_INDEX, 't']], []).value as { a: object[] }).a[0];
    expect(Object.getOwnPropertyDescriptor(item, '__proto__')).toEqual(Object.getOwnPropertyDescriptor((JSON.parse(text) as { a: object[] }).a[0], '__proto__'));
  });
});
