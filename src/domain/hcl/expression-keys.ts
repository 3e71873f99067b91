import type { Token } from './lexer';

/** The text of a plain quoted string without interpolation (`"Delete"`, `""`), or undefined for any other expression. */
export function plainString(expr: readonly Token[]): string | undefined {
  const t = expr.filter((x) => x.kind !== 'space' && x.kind !== 'comment' && x.kind !== 'newline');
  if (t.length === 2 && t[0].kind === 'quoteOpen' && t[1].kind === 'quoteClose') return '';
  if (t.length === 3 && t[0].kind === 'quoteOpen' && t[1].kind === 'literal' && t[2].kind === 'quoteClose') return t[1].text;
  return undefined;
}

/**
 * The value expressions given to `key` in the object literals of an expression (`key = …`, `"key": …`),
 * each up to the comma, closing brace or line end that ends it. `depth` keeps only the keys of objects
 * that deep in braces (1: the outermost object's own keys; a function call around it does not count).
 */
export function valuesOfKey(expr: readonly Token[], key: string, opts: { depth?: number } = {}): Token[][] {
  const t = expr.filter((x) => x.kind !== 'space' && x.kind !== 'comment');
  const values: Token[][] = [];
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i].kind === 'punct' && t[i].text === '{') depth++;
    else if (t[i].kind === 'punct' && t[i].text === '}') depth--;
    if (opts.depth !== undefined && depth !== opts.depth) continue;
    const bare = t[i].kind === 'ident' && t[i].text === key && t[i - 1]?.text !== '.';
    const quoted = t[i].kind === 'quoteOpen' && t[i + 1]?.kind === 'literal' && t[i + 1].text === key && t[i + 2]?.kind === 'quoteClose';
    const after = bare ? i + 1 : quoted ? i + 3 : -1;
    if (after < 0 || (t[after]?.text !== '=' && t[after]?.text !== ':')) continue;
    const end = t.findIndex((x, j) => j > after && (x.kind === 'newline' || (x.kind === 'punct' && (x.text === ',' || x.text === '}'))));
    values.push(t.slice(after + 1, end < 0 ? t.length : end));
  }
  return values;
}
