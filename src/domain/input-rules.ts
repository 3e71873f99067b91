/**
 * A small validator for the workflows' inputs: each bad field named with its path, defaults filled,
 * unknown keys refused with a hint (or dropped, for runs begun before that rule). Not zod, on
 * purpose: workflow code is evaluated again for every workflow a worker starts (the SDK shares only
 * its own modules between them), and zod's ~1 MB of module code cost every workspace migration its
 * CPU, and, once V8 found that code hot, a 400 MB optimizing compile.
 */

export interface InputIssue {
  path: (string | number)[];
  message: string;
}

export class InputError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid input: ${issues.join('; ')}`);
    this.name = 'InputError';
  }
}

type Path = (string | number)[];
/** The issues found so far, and whether a key no rule names is one of them. */
type Findings = InputIssue[] & { refuseUnknownKeys?: boolean };

export interface ParseOptions {
  /**
   * 'refuse' (the default): a key no rule names is an issue, with the nearest known key as a hint;
   * a mistyped optional field (`"dryrun": true`) must not silently become its default.
   * 'drop': such keys are dropped (what runs started before this rule existed accepted).
   */
  unknownKeys?: 'refuse' | 'drop';
}
type Check<T> = (value: T) => string | undefined;

function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

const invalidType = (expected: string, value: unknown) => `Invalid input: expected ${expected}, received ${received(value)}`;

/** One field's rule; `I` is what a caller may pass, `O` what the workflow gets. */
export abstract class Rule<I, O> {
  declare readonly _input: I;
  declare readonly _output: O;

  /** Validates `value` at `path`; on a problem, records an issue and returns undefined. */
  abstract check(value: unknown, path: Path, issues: Findings): O;

  optional(): Rule<I | undefined, O | undefined> {
    return new WhenAbsent<I, O, undefined>(this, () => undefined);
  }

  /** An absent field becomes `value`, as is. */
  default(value: Exclude<O, undefined>): Rule<I | undefined, Exclude<O, undefined>> {
    return new WhenAbsent<I, O, Exclude<O, undefined>>(this, () => jsonCopyOf(value)) as Rule<I | undefined, Exclude<O, undefined>>;
  }

  /** An absent field is checked as `value` (so its own defaults fill in). */
  prefault(value: I): Rule<I | undefined, O> {
    return new WhenAbsent<I, O, O>(this, (path, issues) => this.check(jsonCopyOf(value), path, issues));
  }

  safeParse(input: unknown, options: ParseOptions = {}): { success: true; data: O } | { success: false; issues: InputIssue[] } {
    const issues: Findings = Object.assign([] as InputIssue[], { refuseUnknownKeys: options.unknownKeys !== 'drop' });
    const data = this.check(input, [], issues);
    return issues.length ? { success: false, issues } : { success: true, data };
  }

  /** The value, or an InputError naming each bad field (`approval.timeout: use a duration …`). */
  parse(input: unknown, options: ParseOptions = {}): O {
    const result = this.safeParse(input, options);
    if (result.success) return result.data;
    throw new InputError(result.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`));
  }
}

function jsonCopyOf<T>(value: T): T {
  return value === undefined || value === null || typeof value !== 'object' ? value : (JSON.parse(JSON.stringify(value)) as T);
}

class WhenAbsent<I, O, A> extends Rule<I | undefined, O | A> {
  constructor(
    private readonly inner: Rule<I, O>,
    private readonly absent: (path: Path, issues: Findings) => A,
  ) {
    super();
  }
  check(value: unknown, path: Path, issues: Findings): O | A {
    return value === undefined ? this.absent(path, issues) : this.inner.check(value, path, issues);
  }
}

/** A scalar: a type test, then checks in order; the first failing check is the field's one issue. */
abstract class Scalar<T, Self> extends Rule<T, T> {
  protected readonly checks: Check<T>[] = [];
  constructor(protected readonly typeError?: string) {
    super();
  }
  protected abstract accepts(value: unknown): value is T;
  protected abstract expected: string;
  protected transform(value: T): T {
    return value;
  }
  /** A copy with one more check: a rule, once built, never changes (shared rules stay safe). */
  protected with(check: Check<T>): Self {
    return this.copy({ checks: [...this.checks, check] });
  }
  protected copy(changes: object): Self {
    return Object.assign(Object.create(Object.getPrototypeOf(this) as object) as this, this, changes) as unknown as Self;
  }
  check(value: unknown, path: Path, issues: Findings): T {
    if (!this.accepts(value)) {
      issues.push({ path, message: this.typeError ?? invalidType(this.expected, value) });
      return undefined as T;
    }
    const v = this.transform(value);
    for (const c of this.checks) {
      const message = c(v);
      if (message !== undefined) {
        issues.push({ path, message });
        return undefined as T;
      }
    }
    return v;
  }
}

class TextRule extends Scalar<string, TextRule> {
  protected expected = 'string';
  protected trimmed = false;
  protected accepts(value: unknown): value is string {
    return typeof value === 'string';
  }
  protected override transform(value: string): string {
    return this.trimmed ? value.trim() : value;
  }
  trim(): TextRule {
    return this.copy({ trimmed: true });
  }
  min(n: number, message?: string): TextRule {
    return this.with((v) => (v.length >= n ? undefined : (message ?? `Too small: expected string to have >=${n} characters`)));
  }
  max(n: number, message?: string): TextRule {
    return this.with((v) => (v.length <= n ? undefined : (message ?? `Too big: expected string to have <=${n} characters`)));
  }
  regex(re: RegExp, message?: string): TextRule {
    return this.with((v) => (re.test(v) ? undefined : (message ?? `Invalid string: must match pattern ${re}`)));
  }
}

class NumberRule extends Scalar<number, NumberRule> {
  constructor(
    private readonly whole: boolean,
    typeError?: string,
  ) {
    super(typeError);
  }
  protected get expected(): string {
    return this.whole ? 'int' : 'number';
  }
  protected accepts(value: unknown): value is number {
    return typeof value === 'number' && Number.isFinite(value) && (!this.whole || Number.isSafeInteger(value));
  }
  min(n: number, message?: string): NumberRule {
    return this.with((v) => (v >= n ? undefined : (message ?? `Too small: expected number to be >=${n}`)));
  }
  max(n: number, message?: string): NumberRule {
    return this.with((v) => (v <= n ? undefined : (message ?? `Too big: expected number to be <=${n}`)));
  }
}

class BooleanRule extends Scalar<boolean, BooleanRule> {
  protected expected = 'boolean';
  protected accepts(value: unknown): value is boolean {
    return typeof value === 'boolean';
  }
}

class OneOfRule<T extends string> extends Rule<T, T> {
  constructor(
    private readonly values: readonly T[],
    private readonly error?: string,
  ) {
    super();
  }
  check(value: unknown, path: Path, issues: Findings): T {
    if ((this.values as readonly unknown[]).includes(value)) return value as T;
    issues.push({ path, message: this.error ?? `Invalid option: expected one of ${this.values.map((v) => JSON.stringify(v)).join('|')}` });
    return undefined as unknown as T;
  }
}

class ListRule<I, O> extends Rule<I[], O[]> {
  constructor(private readonly item: Rule<I, O>) {
    super();
  }
  check(value: unknown, path: Path, issues: Findings): O[] {
    if (!Array.isArray(value)) {
      issues.push({ path, message: invalidType('array', value) });
      return undefined as unknown as O[];
    }
    return value.map((v, i) => this.item.check(v, [...path, i], issues));
  }
}

type Shape = Record<string, Rule<unknown, unknown>>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends S[K]['_input'] ? K : never }[keyof S];
export type ShapeInput<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: S[K]['_input'] } & { [K in OptionalKeys<S>]?: S[K]['_input'] }
>;
type UndefinedOutputKeys<S extends Shape> = { [K in keyof S]: undefined extends S[K]['_output'] ? K : never }[keyof S];
export type ShapeOutput<S extends Shape> = Flatten<
  { [K in Exclude<keyof S, UndefinedOutputKeys<S>>]: S[K]['_output'] } & { [K in UndefinedOutputKeys<S>]?: S[K]['_output'] }
>;

/** Adds an issue at a key of the object being refined. */
export type AddIssue = (key: string, message: string) => void;

class ObjectRule<S extends Shape> extends Rule<ShapeInput<S>, ShapeOutput<S>> {
  constructor(
    readonly shape: S,
    private readonly refinements: ((value: ShapeOutput<S>, addIssue: AddIssue) => void)[] = [],
  ) {
    super();
  }
  /** A rule across fields, run only when every field is valid. */
  refine(refinement: (value: ShapeOutput<S>, addIssue: AddIssue) => void): ObjectRule<S> {
    return new ObjectRule(this.shape, [...this.refinements, refinement]);
  }
  check(value: unknown, path: Path, issues: Findings): ShapeOutput<S> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ path, message: invalidType('object', value) });
      return undefined as unknown as ShapeOutput<S>;
    }
    const before = issues.length;
    if (issues.refuseUnknownKeys) {
      const known = Object.keys(this.shape);
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(this.shape, key)) continue;
        const near = nearestKey(key, known);
        issues.push({ path: [...path, key], message: near ? `unknown field: did you mean ${near}?` : `unknown field (known: ${known.join(', ')})` });
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, rule] of Object.entries(this.shape)) {
      const v = rule.check((value as Record<string, unknown>)[key], [...path, key], issues);
      if (v !== undefined) out[key] = v;
    }
    if (issues.length === before) {
      for (const refine of this.refinements) refine(out as ShapeOutput<S>, (key, message) => issues.push({ path: [...path, key], message }));
    }
    return out as ShapeOutput<S>;
  }
}

/** The known key a typo most likely meant: the same letters in another case, or at most two edits away. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= 2 && (!best || d < best.distance)) best = { key: k, distance: d };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

export const text = (opts: { error?: string } = {}) => new TextRule(opts.error);
export const int = (opts: { error?: string } = {}) => new NumberRule(true, opts.error);
export const num = (opts: { error?: string } = {}) => new NumberRule(false, opts.error);
export const bool = () => new BooleanRule();
export const oneOf = <const T extends string>(values: readonly T[], opts: { error?: string } = {}) => new OneOfRule<T>(values, opts.error);
export const list = <I, O>(item: Rule<I, O>) => new ListRule(item);
export const object = <S extends Shape>(shape: S) => new ObjectRule(shape);

// RFC 9562 layout (versions 1-8, the variant bits), plus the nil and max UUIDs: what Coder issues.
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
export const uuid = (opts: { error?: string } = {}) => new TextRule(opts.error).regex(UUID, opts.error ?? 'Invalid UUID');

export type Input<R extends Rule<unknown, unknown>> = R['_input'];
export type Output<R extends Rule<unknown, unknown>> = R['_output'];
