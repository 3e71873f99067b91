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

const enum Interest {
  /** Off every pattern: read (or skipped) as a whole. */
  Skip,
  /** On the way to a span pattern: walked member by member, duplicate keys refused. */
  Descend,
  /** On the way to a stand-in pattern only: walked member by member, the last duplicate wins. */
  DescendQuietly,
  Record,
  StandIn,
}

/** 'check': every byte checked; 'quick': values off the patterns skipped unchecked; 'outline': see parseJsonOutline. */
type ScanMode = 'check' | 'quick' | 'outline';

const BRACKET_OR_QUOTE = /["{}[\]]/g;

/** The patterns as a tree of path steps, each step knowing what to do with its value. */
interface PatternNode {
  interest: Interest;
  readonly members: Map<string, PatternNode>;
  elements?: PatternNode;
}

/** Which interest wins where patterns meet: a span over everything, walking over standing in. */
const PRECEDENCE = [Interest.Skip, Interest.DescendQuietly, Interest.StandIn, Interest.Descend, Interest.Record];

function patternTree(patterns: readonly JsonPathPattern[], standIns: readonly JsonPathPattern[]): PatternNode {
  const newNode = (): PatternNode => ({ interest: Interest.Skip, members: new Map() });
  const root = newNode();
  const raise = (node: PatternNode, interest: Interest) => {
    if (PRECEDENCE.indexOf(interest) > PRECEDENCE.indexOf(node.interest)) node.interest = interest;
  };
  const add = (pattern: JsonPathPattern, atEnd: Interest, onTheWay: Interest) => {
    let node = root;
    pattern.forEach((step, i) => {
      let next = step === ANY_INDEX ? node.elements : node.members.get(step);
      if (!next) {
        next = newNode();
        if (step === ANY_INDEX) node.elements = next;
        else node.members.set(step, next);
      }
      raise(next, i === pattern.length - 1 ? atEnd : onTheWay);
      node = next;
    });
  };
  for (const pattern of patterns) add(pattern, Interest.Record, Interest.Descend);
  for (const pattern of standIns) add(pattern, Interest.StandIn, Interest.DescendQuietly);
  return root;
}

function kindOf(first: number): JsonTokenSpan['kind'] {
  if (first === Ch.Quote) return 'string';
  if (first === Ch.LBrace) return 'object';
  if (first === Ch.LBracket) return 'array';
  return first === Ch.Minus || (first >= Ch.Zero && first <= Ch.Nine) ? 'number' : 'literal';
}

/** As JSON.parse sets a member: a key "__proto__" is an own property, not the prototype. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

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
    spans = new Scanner(text, patterns, [], 'quick').run().spans;
  } catch (e) {
    // Whatever the quick pass stumbles on, a duplicated key included, may come after an error in a
    // value it skipped: the checks below find the first problem, as scanJsonSpans does.
    if (!(e instanceof JsonSyntaxError)) throw e;
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
  return new Scanner(text, patterns, [], 'check').run().spans;
}

/**
 * parseJsonWithSpans for a caller that reads little of a large document: the same spans, the
 * same verdict on the text (what JSON.parse refuses is refused, located as scanJsonSpans locates
 * it) and the same value, except that each value matched by `standIns` is replaced by an empty
 * one of its JSON kind ({}, [], '') — numbers, booleans and null stay as they are. The values
 * off the patterns are still read (with JSON.parse, one value at a time), so nothing is left
 * unchecked; but the stand-ins' content becomes garbage at once instead of living as long as
 * the document, which is most of the cost of reading a state's attribute blobs.
 */
export function parseJsonOutline(
  text: string,
  patterns: readonly JsonPathPattern[],
  standIns: readonly JsonPathPattern[],
): { value: unknown; spans: JsonTokenSpan[] } {
  return new Scanner(text, patterns, standIns, 'outline').run();
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
  /** Whether guessing where a multi-line value ends from the indentation has not failed yet. */
  private guessFromIndentation = true;
  private readonly tree: PatternNode;
  private readonly walkDocument: boolean;

  constructor(
    private readonly text: string,
    patterns: readonly JsonPathPattern[],
    standIns: readonly JsonPathPattern[],
    private mode: ScanMode,
  ) {
    this.tree = patternTree(patterns, standIns);
    this.walkDocument = patterns.length + standIns.length > 0;
  }

  run(): { value: unknown; spans: JsonTokenSpan[] } {
    let value: unknown;
    try {
      this.skipWhitespace();
      value = this.value(this.walkDocument ? Interest.Descend : Interest.Skip, this.tree);
      this.skipWhitespace();
      if (this.pos < this.text.length) this.fail('unexpected text after the end of the JSON document');
    } catch (e) {
      if (e instanceof RangeError) this.fail('values are nested too deeply');
      throw e;
    }
    return { value, spans: this.spans };
  }

  /** Reads one value; it is built (and returned) only in outline mode. */
  private value(interest: Interest, node?: PatternNode): unknown {
    const walk = interest === Interest.Descend || interest === Interest.DescendQuietly;
    if (this.mode === 'quick' && !walk && interest !== Interest.Record) {
      this.skipUnchecked();
      return undefined;
    }
    const start = this.pos;
    const c = this.text.charCodeAt(this.pos);
    if (this.mode === 'outline' && !walk) {
      const value = this.readWhole(interest === Interest.StandIn);
      if (interest === Interest.Record) this.spans.push({ path: [...this.path], start, end: this.pos, kind: kindOf(c) });
      return value;
    }
    let value: unknown;
    if (c === Ch.LBrace) {
      value = this.object(walk, interest === Interest.Descend, node);
    } else if (c === Ch.LBracket) {
      value = this.array(walk, node);
    } else {
      value = this.scalar();
    }
    if (interest === Interest.Record) this.spans.push({ path: [...this.path], start, end: this.pos, kind: kindOf(c) });
    return value;
  }

  /** A string, number or literal, checked; its value in outline mode. */
  private scalar(): unknown {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    const build = this.mode === 'outline';
    if (c === Ch.Quote) {
      this.string();
      return build ? this.keyText(start, this.pos) : undefined;
    }
    if (c === Ch.Minus || (c >= Ch.Zero && c <= Ch.Nine)) {
      this.number();
      // Number() and JSON.parse round a decimal to the same double.
      return build ? Number(text.slice(start, this.pos)) : undefined;
    }
    if (text.startsWith('true', start)) {
      this.pos += 4;
      return true;
    }
    if (text.startsWith('null', start)) {
      this.pos += 4;
      return null;
    }
    if (text.startsWith('false', start)) {
      this.pos += 5;
      return false;
    }
    return this.fail(start >= text.length ? 'the text ends where a value was expected' : 'expected a value');
  }

  private object(watched: boolean, refuseDuplicates: boolean, node?: PatternNode): Record<string, unknown> | undefined {
    const build = watched && this.mode === 'outline';
    const out: Record<string, unknown> | undefined = build ? {} : undefined;
    if (this.opensEmpty(Ch.RBrace)) return out;
    // The object being built knows its keys already; only a walk that builds nothing needs a set.
    const seen = refuseDuplicates && !out ? new Set<string>() : undefined;
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== Ch.Quote) this.fail('expected a quoted object key');
      const keyStart = this.pos;
      this.string();
      const key = watched ? this.keyText(keyStart, this.pos) : '';
      if (refuseDuplicates) {
        if (out ? Object.hasOwn(out, key) : seen?.has(key)) this.fail(`the key "${key}" appears twice in one object`, keyStart, false);
        seen?.add(key);
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== Ch.Colon) this.fail("expected ':' after an object key");
      this.pos++;
      this.skipWhitespace();
      if (watched) {
        const member = node?.members.get(key);
        this.path.push(key);
        const value = this.value(member ? member.interest : Interest.Skip, member);
        this.path.pop();
        if (out) setMember(out, key, value);
      } else {
        this.value(Interest.Skip);
      }
      if (this.closesAfterItem(Ch.RBrace, "expected ',' or '}' after an object member")) return out;
    }
  }

  private array(watched: boolean, node?: PatternNode): unknown[] | undefined {
    const out: unknown[] | undefined = watched && this.mode === 'outline' ? [] : undefined;
    const element = node?.elements;
    const interest = element ? element.interest : Interest.Skip;
    if (this.opensEmpty(Ch.RBracket)) return out;
    for (let index = 0; ; index++) {
      if (watched) {
        this.path.push(index);
        const value = this.value(interest, element);
        this.path.pop();
        if (out) out.push(value);
      } else {
        this.value(Interest.Skip);
      }
      if (this.closesAfterItem(Ch.RBracket, "expected ',' or ']' after an array element")) return out;
    }
  }

  /** Steps over a container's opening bracket; true when `close` follows at once (an empty container, stepped over). */
  private opensEmpty(close: Ch): boolean {
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== close) return false;
    this.pos++;
    return true;
  }

  /** After a member or an element: true at the container's `close` (stepped over), false after a comma (the next item is due). */
  private closesAfterItem(close: Ch, expected: string): boolean {
    this.skipWhitespace();
    const c = this.text.charCodeAt(this.pos);
    if (c === Ch.Comma) {
      this.pos++;
      this.skipWhitespace();
      return false;
    }
    if (c !== close) this.fail(expected);
    this.pos++;
    return true;
  }

  /**
   * Outline mode, a value read as a whole: a container is found to its end and handed to
   * JSON.parse, which checks it far faster than this scanner could; a stand-in's content is
   * dropped at once. JSON.parse accepting the slice proves the end was right: a JSON value that
   * opens with a bracket closes at one place only.
   */
  private readWhole(standIn: boolean): unknown {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c !== Ch.LBrace && c !== Ch.LBracket) {
      const value = this.scalar();
      if (!standIn) return value;
      return typeof value === 'string' ? '' : value;
    }
    const guess = this.guessEnd(start);
    let value = guess < 0 ? undefined : this.parseSlice(start, guess);
    if (value === undefined) {
      // No guess, a wrong one (then the layout is not what guessing assumes: stop), or the value
      // is not JSON: find its end bracket by bracket, and if JSON.parse still refuses it, walk it
      // checking every byte to say where it breaks.
      if (guess >= 0) this.guessFromIndentation = false;
      this.pos = start;
      this.skipUnchecked();
      value = this.parseSlice(start, this.pos);
      if (value === undefined) {
        this.pos = start;
        this.mode = 'check';
        this.value(Interest.Skip);
        this.mode = 'outline';
        value = this.parseSlice(start, this.pos);
        if (value === undefined) this.fail('expected a value', start);
      }
    }
    this.pos = start + value.length;
    if (standIn) return c === Ch.LBrace ? {} : [];
    return value.parsed;
  }

  private parseSlice(start: number, end: number): { parsed: unknown; length: number } | undefined {
    try {
      return { parsed: JSON.parse(this.text.slice(start, end)), length: end - start };
    } catch (e) {
      if (e instanceof SyntaxError) return undefined;
      throw e;
    }
  }

  /**
   * Where the container opening at `open` probably ends (the caller checks), or -1. Terraform and
   * JSON.stringify indent: a value that continues on the next line closes at the start of the
   * first later line indented as the line it opens on, and strings hold no raw line breaks. Far
   * cheaper than following every bracket and quote of an attribute blob.
   */
  private guessEnd(open: number): number {
    const text = this.text;
    let next = open + 1;
    if (text.charCodeAt(next) === Ch.Cr) next++;
    if (!this.guessFromIndentation || text.charCodeAt(next) !== Ch.Lf) return -1;
    const lineStart = text.lastIndexOf('\n', open) + 1;
    let width = 0;
    for (let c = text.charCodeAt(lineStart); c === Ch.Space || c === Ch.Tab; c = text.charCodeAt(lineStart + width)) width++;
    const indentation = text.slice(lineStart, lineStart + width);
    const closer = text.charCodeAt(open) === Ch.LBrace ? '}' : ']';
    for (let at = text.indexOf(closer, next); at >= 0; at = text.indexOf(closer, at + 1)) {
      if (text.charCodeAt(at - width - 1) === Ch.Lf && text.startsWith(indentation, at - width)) return at + 1;
    }
    // No such line: the layout is not what the guess assumes; stop guessing for this text.
    this.guessFromIndentation = false;
    return -1;
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

  /** A string token's value: its text between the quotes, unless it holds an escape JSON.parse must decode. */
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
