/**
 * HCL values as @cdktf/hcl2json hands them over: template strings whose `${…}` interpolations are
 * evaluated by hcl-expression (literals, traversals, functions, operators, conditionals). What
 * cannot be evaluated is left as its source text, so a caller can tell "unresolved" apart.
 */

import { evaluateHclExpression, UNRESOLVED as HCL_UNRESOLVED } from './hcl-expression';

export type Resolver = (path: readonly string[]) => unknown;

const UNRESOLVED = Symbol('unresolved');

function evaluateExpression(expr: string, resolve: Resolver): unknown {
  const value = evaluateHclExpression(expr, resolve);
  return value === HCL_UNRESOLVED ? UNRESOLVED : value;
}

/** Splits a template string into literal text and `${…}` expressions (brace-counting, quote-aware). */
function splitTemplate(text: string): { literal?: string; expr?: string; raw: string }[] {
  const parts: { literal?: string; expr?: string; raw: string }[] = [];
  let i = 0;
  let literal = '';
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literal += '${';
      i += 3;
      continue;
    }
    if (text.startsWith('${', i)) {
      let depth = 1;
      let j = i + 2;
      let inString = false;
      while (j < text.length && depth > 0) {
        const c = text[j];
        if (inString) {
          if (c === '\\') j++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{') depth++;
        else if (c === '}') depth--;
        j++;
      }
      if (depth > 0) {
        literal += text.slice(i);
        break;
      }
      if (literal) parts.push({ literal, raw: literal });
      literal = '';
      const raw = text.slice(i, j);
      parts.push({ expr: raw.slice(2, -1).replace(/^~|~$/g, ''), raw });
      i = j;
      continue;
    }
    literal += text[i];
    i++;
  }
  if (literal) parts.push({ literal, raw: literal });
  return parts;
}

function evaluate(value: unknown, resolve: Resolver, unresolved: string[]): unknown {
  if (typeof value === 'string') {
    const parts = splitTemplate(value);
    if (parts.length === 1 && parts[0]?.expr !== undefined) {
      const result = evaluateExpression(parts[0].expr, resolve);
      if (result !== UNRESOLVED) return result;
      unresolved.push(parts[0].expr.trim());
      return value;
    }
    return parts
      .map((p) => {
        if (p.literal !== undefined) return p.literal;
        const result = evaluateExpression(p.expr as string, resolve);
        if (result === UNRESOLVED || (typeof result === 'object' && result !== null)) {
          unresolved.push((p.expr as string).trim());
          return p.raw;
        }
        return String(result);
      })
      .join('');
  }
  if (Array.isArray(value)) return value.map((v) => evaluate(v, resolve, unresolved));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluate(v, resolve, unresolved)]));
  }
  return value;
}

/** Evaluates one hcl2json value; unresolvable interpolations stay as their `${…}` text. */
export function evaluateValue(value: unknown, resolve: Resolver): unknown {
  return evaluate(value, resolve, []);
}

/** Like evaluateValue, and also lists the expressions it could not resolve (`$${…}` escapes are not among them). */
export function evaluateStrict(value: unknown, resolve: Resolver): { value: unknown; unresolved: string[] } {
  const unresolved: string[] = [];
  const result = evaluate(value, resolve, unresolved);
  return { value: result, unresolved };
}

/** The `TYPE.NAME` addresses a value refers to, e.g. for ordering creates after what they depend on. */
export function referencedResources(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(/\$\{([^}]*)\}/g)) {
        for (const r of (m[1] as string).matchAll(/(?<![.\w-])([a-z][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_-]*)/g)) {
          const root = r[1] as string;
          if (!['data', 'var', 'local', 'module', 'each', 'count', 'path', 'terraform', 'self'].includes(root)) {
            found.add(`${root}.${r[2]}`);
          }
        }
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return [...found];
}
