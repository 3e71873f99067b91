/**
 * The part of HCL's expression language real Coder templates use inside `${…}` (as hcl2json
 * hands it over): literals, traversals, function calls, `!`/`-`, arithmetic, comparisons, `&&`/`||`,
 * `cond ? a : b`, lists and parentheses. An expression it cannot evaluate (an unknown function, a
 * reference nothing resolves) yields UNRESOLVED, so the planner can say so instead of guessing.
 */
export const UNRESOLVED: unique symbol = Symbol('unresolved');
export type Resolve = (path: readonly string[]) => unknown;

type Token =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'id'; value: string }
  | { kind: 'op'; value: string }
  /** A quoted template with interpolations: literal text and the source of each `${…}`. */
  | { kind: 'tmpl'; value: string; parts: ({ text: string } | { expr: string })[] };

/** The end (index after the closing brace) of the `${…}` opened at `open`, skipping nested braces and strings; -1 when unclosed. */
function interpolationEnd(src: string, open: number): number {
  let depth = 0;
  for (let j = open + 2; j < src.length; j++) {
    const c = src[j];
    if (c === '"') {
      for (j++; j < src.length && src[j] !== '"'; j++) if (src[j] === '\\') j++;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return j + 1;
      depth--;
    }
  }
  return -1;
}

const OPS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', '!', '?', ':', '(', ')', '[', ']', ',', '.'];

function tokenize(src: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^\d+(\.\d+)?/.exec(src.slice(i)) as RegExpExecArray;
      out.push({ kind: 'num', value: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i)) as RegExpExecArray;
      out.push({ kind: 'id', value: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = '';
      const parts: ({ text: string } | { expr: string })[] = [];
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') {
          const n = src[j + 1];
          value += n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? '');
          j += 2;
        } else if (src.startsWith('$${', j)) {
          value += '${';
          j += 3;
        } else if (src.startsWith('${', j)) {
          const end = interpolationEnd(src, j);
          if (end < 0) return undefined;
          parts.push({ text: value }, { expr: src.slice(j + 2, end - 1) });
          value = '';
          j = end;
        } else if (src.startsWith('%{', j)) return undefined;
        else value += src[j++];
      }
      if (j >= src.length) return undefined;
      if (parts.length > 0) out.push({ kind: 'tmpl', value, parts: [...parts, { text: value }] });
      else out.push({ kind: 'str', value });
      i = j + 1;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) return undefined;
    out.push({ kind: 'op', value: op });
    i += op.length;
  }
  return out;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** Terraform functions seen in Coder templates' names, counts and labels. */
const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  lower: (s) => text(s).toLowerCase(),
  upper: (s) => text(s).toUpperCase(),
  trimspace: (s) => text(s).trim(),
  trim: (s, cut) => text(s).replace(new RegExp(`^[${escapeClass(text(cut))}]+|[${escapeClass(text(cut))}]+$`, 'g'), ''),
  trimprefix: (s, p) => (text(s).startsWith(text(p)) ? text(s).slice(text(p).length) : text(s)),
  trimsuffix: (s, p) => (text(s).endsWith(text(p)) ? text(s).slice(0, -text(p).length) : text(s)),
  replace: (s, a, b) => text(s).split(text(a)).join(text(b)),
  substr: (s, off, len) => [...text(s)].slice(Number(off), Number(len) < 0 ? undefined : Number(off) + Number(len)).join(''),
  join: (sep, list) => (Array.isArray(list) ? list.map(text).join(text(sep)) : UNRESOLVED),
  split: (sep, s) => text(s).split(text(sep)),
  tostring: (v) => text(v),
  tonumber: (v) => Number(v),
  tobool: (v) => v === true || v === 'true',
  coalesce: (...vs) => vs.find((v) => v !== null && v !== '' && v !== undefined) ?? UNRESOLVED,
  length: (v) => (typeof v === 'string' ? [...v].length : Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : UNRESOLVED),
  jsondecode: (s) => JSON.parse(text(s)) as unknown,
  jsonencode: (v) => JSON.stringify(v),
  format: (f, ...args) => {
    let n = 0;
    return text(f).replace(/%[sdv%]/g, (m) => (m === '%%' ? '%' : text(args[n++])));
  },
  min: (...vs) => Math.min(...vs.map(Number)),
  max: (...vs) => Math.max(...vs.map(Number)),
};

function escapeClass(s: string): string {
  return s.replace(/[\\\]^-]/g, '\\$&');
}

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly resolve: Resolve,
  ) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }
  private peek(value?: string): boolean {
    const t = this.tokens[this.at];
    return t !== undefined && t.kind === 'op' && (value === undefined || t.value === value);
  }
  private take(value: string): void {
    if (!this.peek(value)) throw new SyntaxError(`expected ${value}`);
    this.at++;
  }

  expression(): unknown {
    const cond = this.binary(0);
    if (!this.peek('?')) return cond;
    this.take('?');
    const yes = this.expression();
    this.take(':');
    const no = this.expression();
    if (cond === UNRESOLVED) return UNRESOLVED;
    return cond === true || cond === 'true' ? yes : no;
  }

  private static readonly PRECEDENCE: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 4, '>': 4, '<=': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '/': 6, '%': 6 };

  private binary(min: number): unknown {
    let left = this.unary();
    for (;;) {
      const t = this.tokens[this.at];
      const p = t?.kind === 'op' ? Parser.PRECEDENCE[t.value] : undefined;
      if (p === undefined || p <= min) return left;
      this.at++;
      const right = this.binary(p);
      left = left === UNRESOLVED || right === UNRESOLVED ? UNRESOLVED : apply((t as Token).value as string, left, right);
    }
  }

  private unary(): unknown {
    if (this.peek('!')) {
      this.at++;
      const v = this.unary();
      return v === UNRESOLVED ? v : !(v === true || v === 'true');
    }
    if (this.peek('-')) {
      this.at++;
      const v = this.unary();
      return v === UNRESOLVED ? v : -Number(v);
    }
    return this.postfix(this.primary());
  }

  private primary(): unknown {
    const t = this.tokens[this.at++];
    if (!t) throw new SyntaxError('unexpected end');
    if (t.kind === 'num' || t.kind === 'str') return t.value;
    if (t.kind === 'tmpl') {
      let out = '';
      for (const part of t.parts) {
        if ('text' in part) out += part.text;
        else {
          const v = evaluateHclExpression(part.expr, this.resolve);
          if (v === UNRESOLVED || v === null || (typeof v === 'object' && v !== null)) return UNRESOLVED;
          out += String(v);
        }
      }
      return out;
    }
    if (t.kind === 'op' && t.value === '(') {
      const v = this.expression();
      this.take(')');
      return v;
    }
    if (t.kind === 'op' && t.value === '[') {
      const items: unknown[] = [];
      while (!this.peek(']')) {
        items.push(this.expression());
        if (!this.peek(']')) this.take(',');
      }
      this.take(']');
      return items.some((i) => i === UNRESOLVED) ? UNRESOLVED : items;
    }
    if (t.kind !== 'id') throw new SyntaxError(`unexpected ${t.value}`);
    if (t.value === 'true' || t.value === 'false') return t.value === 'true';
    if (t.value === 'null') return null;
    if (this.peek('(')) {
      this.take('(');
      const args: unknown[] = [];
      while (!this.peek(')')) {
        args.push(this.expression());
        if (!this.peek(')')) this.take(',');
      }
      this.take(')');
      const fn = FUNCTIONS[t.value];
      if (!fn || args.some((a) => a === UNRESOLVED)) return UNRESOLVED;
      try {
        return fn(...args);
      } catch {
        return UNRESOLVED;
      }
    }
    // A traversal: collect its steps, resolve once at the end (`a.b[0].c`).
    const path = [t.value];
    for (;;) {
      if (this.peek('.')) {
        this.at++;
        const step = this.tokens[this.at++];
        if (!step || (step.kind !== 'id' && step.kind !== 'num')) throw new SyntaxError('bad traversal');
        path.push(String(step.value));
      } else if (this.peek('[')) {
        this.at++;
        const key = this.expression();
        this.take(']');
        if (key === UNRESOLVED) return UNRESOLVED;
        path.push(String(key));
      } else break;
    }
    const value = this.resolve(path);
    return value === undefined ? UNRESOLVED : value;
  }

  private postfix(value: unknown): unknown {
    let v = value;
    while (this.peek('[')) {
      this.at++;
      const key = this.expression();
      this.take(']');
      if (v === UNRESOLVED || key === UNRESOLVED) v = UNRESOLVED;
      else v = Array.isArray(v) ? v[Number(key)] : v && typeof v === 'object' ? (v as Record<string, unknown>)[String(key)] : undefined;
      if (v === undefined) v = UNRESOLVED;
    }
    return v;
  }
}

function apply(op: string, a: unknown, b: unknown): unknown {
  switch (op) {
    case '||':
      return a === true || b === true;
    case '&&':
      return a === true && b === true;
    case '==':
      return JSON.stringify(a) === JSON.stringify(b);
    case '!=':
      return JSON.stringify(a) !== JSON.stringify(b);
    case '<':
      return Number(a) < Number(b);
    case '>':
      return Number(a) > Number(b);
    case '<=':
      return Number(a) <= Number(b);
    case '>=':
      return Number(a) >= Number(b);
    case '+':
      return Number(a) + Number(b);
    case '-':
      return Number(a) - Number(b);
    case '*':
      return Number(a) * Number(b);
    case '/':
      return Number(a) / Number(b);
    default:
      return Number(a) % Number(b);
  }
}

/** Evaluates one expression; UNRESOLVED when it cannot (syntax it does not know included). */
export function evaluateHclExpression(src: string, resolve: Resolve): unknown {
  const tokens = tokenize(src);
  if (!tokens || tokens.length === 0) return UNRESOLVED;
  try {
    const parser = new Parser(tokens, resolve);
    const value = parser.expression();
    return parser.done() ? value : UNRESOLVED;
  } catch {
    return UNRESOLVED;
  }
}
