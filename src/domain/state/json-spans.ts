/**
 * A validating JSON scanner that records where selected scalar values sit in the original text,
 * so a caller can splice new tokens into it and leave every other byte as it was (attribute blobs,
 * number precision, key order, whitespace). JSON.parse cannot do this: it loses the positions and
 * rounds integers above 2^53.
 */

export type JsonPathStep = string | number;

/** A path pattern: object keys, or ANY_INDEX for every element of an array. */
export const ANY_INDEX = Symbol('any array index');
export type JsonPathPattern = readonly (string | typeof ANY_INDEX)[];

export interface JsonTokenSpan {
  /** Concrete path of the value, e.g. ['resources', 3, 'type']. */
  readonly path: readonly JsonPathStep[];
  /** Offsets into the text: text.slice(start, end) is the raw token, quotes included for strings. */
  readonly start: number;
  readonly end: number;
  readonly kind: 'string' | 'number' | 'literal' | 'object' | 'array';
}

/** Where the text stops being JSON. The message never quotes the text: it may hold secrets. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly problem: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
    /** False for problems JSON.parse does not see (a duplicated key). */
    readonly syntaxOnly = true,
  ) {
    super(`line ${line}, column ${column}: ${problem}`);
    this.name = 'JsonSyntaxError';
  }
}

const enum Ch {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LowerE = 101,
  LBrace = 123,
  RBrace = 125,
}

type Interest = 'skip' | 'descend' | 'record';

const BRACKET_OR_QUOTE = /["{}[\]]/g;

/**
 * Parses the text and returns the spans of the values whose paths match one of `patterns`, in
 * text order. Objects on the way to a pattern are checked for duplicate keys, since a duplicated
 * key there would make a recorded span disagree with the value JSON.parse keeps.
 *
 * The spans come from a quick pass that skips uninteresting values without checking them, and
 * JSON.parse checks the whole text; only when something is wrong does a second, checking pass run
 * to say where (JSON.parse's own message quotes the text, which may hold secrets).
 */
export function parseJsonWithSpans(text: string, patterns: readonly JsonPathPattern[]): { value: unknown; spans: JsonTokenSpan[] } {
  let spans: JsonTokenSpan[] | undefined;
  try {
    spans = new Scanner(text, patterns, false).run();
  } catch (e) {
    // A duplicated key is wrong even in valid JSON; anything else is left for the checks below.
    if (!(e instanceof JsonSyntaxError) || !e.syntaxOnly) throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    scanJsonSpans(text, patterns);
    throw new JsonSyntaxError('the text is not valid JSON', 0, 1, 1);
  }
  return { value, spans: spans ?? scanJsonSpans(text, patterns) };
}

/** Checks the whole text and returns the spans; throws JsonSyntaxError at the first error. */
export function scanJsonSpans(text: string, patterns: readonly JsonPathPattern[]): JsonTokenSpan[] {
  return new Scanner(text, patterns, true).run();
}

/** 1-based line and column of an offset (columns count UTF-16 units, like most editors). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === Ch.Lf) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Scanner {
  private pos = 0;
  private readonly path: JsonPathStep[] = [];
  private readonly spans: JsonTokenSpan[] = [];

  constructor(
    private readonly text: string,
    private readonly patterns: readonly JsonPathPattern[],
    /** False: skip values off the patterns without checking them (JSON.parse checks them). */
    private readonly checking: boolean,
  ) {}

  run(): JsonTokenSpan[] {
    try {
      this.skipWhitespace();
      this.value(this.patterns.length > 0 ? 'descend' : 'skip');
      this.skipWhitespace();
      if (this.pos < this.text.length) this.fail('unexpected text after the end of the JSON document');
    } catch (e) {
      if (e instanceof RangeError) this.fail('values are nested too deeply');
      throw e;
    }
    return this.spans;
  }

  private interest(): Interest {
    const path = this.path;
    let descend = false;
    for (const pattern of this.patterns) {
      if (pattern.length < path.length) continue;
      let matches = true;
      for (let i = 0; i < path.length; i++) {
        const want = pattern[i];
        const step = path[i];
        if (want === ANY_INDEX ? typeof step !== 'number' : want !== step) {
          matches = false;
          break;
        }
      }
      if (!matches) continue;
      if (pattern.length === path.length) return 'record';
      descend = true;
    }
    return descend ? 'descend' : 'skip';
  }

  private value(interest: Interest): void {
    if (interest === 'skip' && !this.checking) {
      this.skipUnchecked();
      return;
    }
    const start = this.pos;
    const c = this.text.charCodeAt(this.pos);
    let kind: JsonTokenSpan['kind'];
    if (c === Ch.LBrace) {
      this.object(interest === 'descend');
      kind = 'object';
    } else if (c === Ch.LBracket) {
      this.array(interest === 'descend');
      kind = 'array';
    } else if (c === Ch.Quote) {
      this.string();
      kind = 'string';
    } else if (c === Ch.Minus || (c >= Ch.Zero && c <= Ch.Nine)) {
      this.number();
      kind = 'number';
    } else if (this.text.startsWith('true', this.pos) || this.text.startsWith('null', this.pos)) {
      this.pos += 4;
      kind = 'literal';
    } else if (this.text.startsWith('false', this.pos)) {
      this.pos += 5;
      kind = 'literal';
    } else {
      this.fail(this.pos >= this.text.length ? 'the text ends where a value was expected' : 'expected a value');
    }
    if (interest === 'record') this.spans.push({ path: [...this.path], start, end: this.pos, kind });
  }

  private object(watched: boolean): void {
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === Ch.RBrace) {
      this.pos++;
      return;
    }
    const seen = watched ? new Set<string>() : undefined;
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== Ch.Quote) this.fail('expected a quoted object key');
      const keyStart = this.pos;
      this.string();
      const key = watched ? this.keyText(keyStart, this.pos) : '';
      if (seen) {
        if (seen.has(key)) this.fail(`the key "${key}" appears twice in one object`, keyStart, false);
        seen.add(key);
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== Ch.Colon) this.fail("expected ':' after an object key");
      this.pos++;
      this.skipWhitespace();
      if (watched) {
        this.path.push(key);
        this.value(this.interest());
        this.path.pop();
      } else {
        this.value('skip');
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === Ch.Comma) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === Ch.RBrace) {
        this.pos++;
        return;
      }
      this.fail("expected ',' or '}' after an object member");
    }
  }

  private array(watched: boolean): void {
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === Ch.RBracket) {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      if (watched) {
        this.path.push(index);
        this.value(this.interest());
        this.path.pop();
      } else {
        this.value('skip');
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c === Ch.Comma) {
        this.pos++;
        this.skipWhitespace();
        continue;
      }
      if (c === Ch.RBracket) {
        this.pos++;
        return;
      }
      this.fail("expected ',' or ']' after an array element");
    }
  }

  private string(): void {
    const text = this.text;
    const start = this.pos;
    let i = this.pos + 1;
    for (;;) {
      if (i >= text.length) this.fail('a string is not closed', start);
      const c = text.charCodeAt(i);
      if (c === Ch.Quote) break;
      if (c < 0x20) this.fail('a control character must be escaped inside a string', i);
      if (c === Ch.Backslash) {
        const e = text.charCodeAt(i + 1);
        if (e === 117 /* u */) {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) this.fail('a \\u escape needs four hex digits', i);
          i += 6;
          continue;
        }
        // " \ / b f n r t
        if (e === Ch.Quote || e === Ch.Backslash || e === Ch.Slash || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
          i += 2;
          continue;
        }
        this.fail('an invalid escape sequence in a string', i);
      }
      i++;
    }
    this.pos = i + 1;
  }

  /** A key's value: its text between the quotes, unless it holds an escape JSON.parse must decode. */
  private keyText(start: number, end: number): string {
    const inner = this.text.slice(start + 1, end - 1);
    return inner.includes('\\') ? (JSON.parse(this.text.slice(start, end)) as string) : inner;
  }

  private number(): void {
    const text = this.text;
    let i = this.pos;
    if (text.charCodeAt(i) === Ch.Minus) i++;
    const digitsFrom = (from: number): number => {
      let j = from;
      while (j < text.length && text.charCodeAt(j) >= Ch.Zero && text.charCodeAt(j) <= Ch.Nine) j++;
      return j;
    };
    if (text.charCodeAt(i) === Ch.Zero) i++;
    else {
      const end = digitsFrom(i);
      if (end === i) this.fail('a number needs digits', i);
      i = end;
    }
    if (text.charCodeAt(i) === Ch.Dot) {
      const end = digitsFrom(i + 1);
      if (end === i + 1) this.fail('a number needs digits after the decimal point', i);
      i = end;
    }
    const e = text.charCodeAt(i);
    if (e === Ch.LowerE || e === Ch.UpperE) {
      i++;
      const s = text.charCodeAt(i);
      if (s === Ch.Plus || s === Ch.Minus) i++;
      const end = digitsFrom(i);
      if (end === i) this.fail('a number needs digits in its exponent', i);
      i = end;
    }
    this.pos = i;
  }

  private skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === Ch.Space || c === Ch.Lf || c === Ch.Cr || c === Ch.Tab) i++;
      else break;
    }
    this.pos = i;
  }

  private fail(problem: string, at = this.pos, syntaxOnly = true): never {
    const { line, column } = lineAndColumn(this.text, at);
    throw new JsonSyntaxError(problem, at, line, column, syntaxOnly);
  }

  /**
   * Moves past one value looking only at brackets and quotes, strings skipped with indexOf: most
   * of a state is attribute blobs nobody here reads.
   */
  private skipUnchecked(): void {
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (c === Ch.Quote) {
      this.pos = this.endOfString(this.pos);
      return;
    }
    if (c === Ch.LBrace || c === Ch.LBracket) {
      // A native regex search for the next bracket or quote is faster here than a charCodeAt loop.
      const structural = BRACKET_OR_QUOTE;
      structural.lastIndex = this.pos;
      let depth = 0;
      // test() instead of exec(): no match array per bracket or quote, so no garbage to collect.
      for (;;) {
        if (!structural.test(text)) {
          this.pos = text.length;
          return;
        }
        const at = structural.lastIndex - 1;
        const d = text.charCodeAt(at);
        if (d === Ch.Quote) {
          structural.lastIndex = this.endOfString(at);
          continue;
        }
        depth += d === Ch.LBrace || d === Ch.LBracket ? 1 : -1;
        if (depth === 0) {
          this.pos = at + 1;
          return;
        }
      }
    }
    // A number or literal: up to the next delimiter.
    let i = this.pos;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === Ch.Comma || d === Ch.RBrace || d === Ch.RBracket || d === Ch.Space || d === Ch.Lf || d === Ch.Cr || d === Ch.Tab) break;
      i++;
    }
    this.pos = i === this.pos ? i + 1 : i;
  }

  /** Offset just past the closing quote of the string opening at `open` (text length if unclosed). */
  private endOfString(open: number): number {
    const text = this.text;
    let i = text.indexOf('"', open + 1);
    while (i >= 0) {
      let backslashes = 0;
      while (text.charCodeAt(i - 1 - backslashes) === Ch.Backslash) backslashes++;
      if (backslashes % 2 === 0) return i + 1;
      i = text.indexOf('"', i + 1);
    }
    return text.length;
  }
}
