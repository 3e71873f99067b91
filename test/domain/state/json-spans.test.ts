import fc from 'fast-check';
import { ANY_INDEX, JsonSyntaxError, parseJsonWithSpans, scanJsonSpans } from '../../../src/domain/state/json-spans';

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
      { numRuns: 500 },
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
      { numRuns: 300 },
    );
  });

  it('parseJsonWithSpans locates errors inside values it skips, and duplicate keys where it looks', () => {
    expect(() => parseJsonWithSpans('{"a": [{"t": "x"}],\n "blob": {"deep": [1, 2,]}}', [['a', ANY_INDEX, 't']])).toThrow(/^line 2, column 25: expected a value/);
    expect(() => parseJsonWithSpans('{"a": [{"t": "x", "t": "y"}]}', [['a', ANY_INDEX, 't']])).toThrow(/"t" appears twice/);
    expect(() => parseJsonWithSpans('{"a": "unterminated', [['a']])).toThrow(JsonSyntaxError);
  });
});
