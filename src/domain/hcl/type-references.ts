import { lookupDeprecated, type ResourceMode } from '../type-map';
import { isTrivia, type Token } from './lexer';

/** Where a deprecated type name occurs; start/end are source offsets of exactly the name. */
export interface TypeOccurrence {
  readonly mode: ResourceMode;
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly context: 'label' | 'reference' | 'address';
  /** On the `from` of a `moved` or `removed` block only: that block's addresses, as written (blanks dropped). */
  readonly fromOf?: AddressBlock;
}

/** A `moved` or `removed` block's addresses, blanks dropped (`module.a.T.x`, `T.x["k"]`). */
export interface AddressBlock {
  readonly block: 'moved' | 'removed';
  readonly from: string;
  readonly to?: string;
}

export interface ReferenceScanOptions {
  /** In moved/removed/import/depends_on/replace_triggered_by/target: `module.X.T.n` can name a resource. */
  readonly address?: boolean;
  /** depends_on still accepts the pre-0.12 form `"kubernetes_deployment.main"`. */
  readonly legacyQuoted?: boolean;
  /** Names bound by an enclosing `dynamic` block, which hide resource types of the same name. */
  readonly shadowed?: ReadonlySet<string>;
  /** Whether the module at this call path is part of the rewrite (so its resource types change too). */
  readonly moduleIsRewritten?: (callPath: readonly string[]) => boolean;
}

interface Frame {
  forState?: 'vars' | 'collection' | 'body';
  vars: string[];
  pendingQuestions: number;
  /** A `%{ for }` directive: its variables bind until the matching `%{ endfor }`. */
  directiveFor?: boolean;
}

const LEGACY_ADDRESS = /^(data\.)?([\p{L}_][\p{L}\p{N}_-]*)\.[\p{L}_][\p{L}\p{N}_-]*$/u;

/**
 * Every traversal in tokens[from, to) whose root is a deprecated resource type (`T.name…`) or a
 * deprecated data source (`data.T.name…`), skipping attribute access (`local.T`, `module.T.out`),
 * object keys, and names bound by `for` expressions, `%{ for }` directives or `dynamic` blocks.
 */
export function findTypeReferences(tokens: readonly Token[], from: number, to: number, opts: ReferenceScanOptions = {}): TypeOccurrence[] {
  const sig: number[] = [];
  for (let i = from; i < to; i++) if (!isTrivia(tokens[i])) sig.push(i);
  const at = (k: number): Token | undefined => (k >= 0 && k < sig.length ? tokens[sig[k]] : undefined);
  const isPunct = (t: Token | undefined, text: string): boolean => t?.kind === 'punct' && t.text === text;
  const isName = (t: Token | undefined): boolean => t?.kind === 'ident';

  const frames: Frame[] = [];
  const directiveScopes: string[][] = [];
  const out: TypeOccurrence[] = [];
  const context = opts.address ? 'address' : 'reference';

  const isShadowed = (name: string): boolean =>
    (opts.shadowed?.has(name) ?? false) ||
    frames.some((f) => f.forState === 'body' && f.vars.includes(name)) ||
    directiveScopes.some((s) => s.includes(name));

  for (let k = 0; k < sig.length; k++) {
    const t = tokens[sig[k]];
    const top = frames[frames.length - 1];

    if (t.kind === 'punct' && (t.text === '[' || t.text === '{' || t.text === '(')) {
      const frame: Frame = { vars: [], pendingQuestions: 0 };
      if (t.text !== '(' && at(k + 1)?.kind === 'ident' && at(k + 1)?.text === 'for' && isName(at(k + 2))) {
        frame.forState = 'vars';
        k++;
      }
      frames.push(frame);
      continue;
    }
    if (t.kind === 'interpOpen' || t.kind === 'directiveOpen') {
      const frame: Frame = { vars: [], pendingQuestions: 0 };
      const wordAt = isPunct(at(k + 1), '~') ? k + 2 : k + 1;
      const word = at(wordAt);
      if (t.kind === 'directiveOpen' && word?.kind === 'ident' && word.text === 'for') {
        frame.forState = 'vars';
        frame.directiveFor = true;
        k = wordAt;
      } else if (t.kind === 'directiveOpen' && word?.kind === 'ident' && word.text === 'endfor') {
        directiveScopes.pop();
      }
      frames.push(frame);
      continue;
    }
    if (t.kind === 'templateClose' || (t.kind === 'punct' && (t.text === ']' || t.text === '}' || t.text === ')'))) {
      const closed = frames.pop();
      if (closed?.directiveFor) directiveScopes.push(closed.vars);
      continue;
    }
    if (top?.forState === 'vars') {
      if (t.kind === 'ident' && t.text === 'in') top.forState = 'collection';
      else if (t.kind === 'ident') top.vars.push(t.text);
      continue;
    }
    if (top?.forState === 'collection' && t.kind === 'punct') {
      if (t.text === '?') top.pendingQuestions++;
      else if (t.text === ':' && top.pendingQuestions > 0) top.pendingQuestions--;
      else if (t.text === ':') top.forState = 'body';
    }

    if (t.kind === 'quoteOpen' && opts.legacyQuoted) {
      const lit = at(k + 1);
      const m = lit?.kind === 'literal' && at(k + 2)?.kind === 'quoteClose' ? LEGACY_ADDRESS.exec(lit.text) : null;
      if (lit && m) {
        const mode: ResourceMode = m[1] ? 'data' : 'managed';
        const offset = m[1] ? m[1].length : 0;
        if (lookupDeprecated(mode, m[2])) {
          const start = lit.start + offset;
          out.push({ mode, type: m[2], start, end: start + m[2].length, line: lit.line, context: 'address' });
        }
      }
      continue;
    }

    if (t.kind !== 'ident') continue;
    if (isPunct(at(k - 1), '.') || isPunct(at(k - 1), '::')) continue;
    if (isShadowed(t.text)) continue;

    let rootAt = k;
    if (opts.address && t.text === 'module') {
      const path: string[] = [];
      let j = k;
      while (at(j)?.text === 'module' && isPunct(at(j + 1), '.') && isName(at(j + 2))) {
        path.push(at(j + 2)!.text);
        j += 3;
        if (isPunct(at(j), '[')) j = skipBracket(j);
        if (!isPunct(at(j), '.')) break;
        j++;
      }
      if (path.length === 0 || !isName(at(j)) || at(j)?.text === 'module') continue;
      if (!(opts.moduleIsRewritten?.(path) ?? false)) {
        k = j;
        continue;
      }
      rootAt = j;
    }

    const root = at(rootAt)!;
    if (root.text === 'data' && isPunct(at(rootAt + 1), '.') && isName(at(rootAt + 2)) && isPunct(at(rootAt + 3), '.') && isName(at(rootAt + 4))) {
      const typeToken = at(rootAt + 2)!;
      if (lookupDeprecated('data', typeToken.text)) {
        out.push({ mode: 'data', type: typeToken.text, start: typeToken.start, end: typeToken.end, line: typeToken.line, context });
      }
      k = rootAt + 2;
      continue;
    }
    if (isPunct(at(rootAt + 1), '.') && isName(at(rootAt + 2)) && lookupDeprecated('managed', root.text)) {
      out.push({ mode: 'managed', type: root.text, start: root.start, end: root.end, line: root.line, context });
      k = rootAt;
    }
  }
  return out;

  function skipBracket(j: number): number {
    let depth = 0;
    for (; j < sig.length; j++) {
      const t = at(j)!;
      if (t.kind === 'punct' && (t.text === '[' || t.text === '(' || t.text === '{')) depth++;
      else if (t.kind === 'punct' && (t.text === ']' || t.text === ')' || t.text === '}')) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return j;
  }
}
