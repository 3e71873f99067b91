import { HclSyntaxError, isTrivia, type Token } from './lexer';

/**
 * The block/attribute outline of an HCL body over the lexer's tokens. Expressions stay token
 * ranges: the rewriter only needs to know which block and which attribute an identifier sits in.
 */
export interface BlockLabel {
  /** The label's value (quotes removed). */
  readonly value: string;
  /** The token holding the value: an ident (bare label) or the literal inside the quotes. */
  readonly token: Token;
}

export interface HclBlock {
  readonly kind: 'block';
  readonly type: Token;
  readonly labels: readonly BlockLabel[];
  /** Index of the first token of the header (the type), for annotations on the line above. */
  readonly headerIndex: number;
  readonly body: readonly HclItem[];
}

export interface HclAttribute {
  readonly kind: 'attribute';
  readonly name: Token;
  /** Token index range [exprStart, exprEnd) of the value expression. */
  readonly exprStart: number;
  readonly exprEnd: number;
}

export type HclItem = HclBlock | HclAttribute;

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

export function parseBody(tokens: readonly Token[], file: string): HclItem[] {
  let i = 0;
  const items = parseItems(false);
  return items;

  function skipTrivia(): void {
    while (i < tokens.length && isTrivia(tokens[i])) i++;
  }
  function skipSpaceAndComments(): void {
    while (i < tokens.length && (tokens[i].kind === 'space' || (tokens[i].kind === 'comment' && tokens[i].text.startsWith('/*')))) i++;
  }
  function unexpected(t: Token | undefined, expected: string): never {
    const line = t?.line ?? tokens[tokens.length - 1]?.line ?? 1;
    const found = t ? `\`${brief(t.text)}\`` : 'the end of the file';
    throw new HclSyntaxError(file, line, `expected ${expected} but found ${found}.`);
  }

  function parseItems(nested: boolean): HclItem[] {
    const out: HclItem[] = [];
    for (;;) {
      skipTrivia();
      const t = tokens[i];
      if (t === undefined) {
        if (nested) unexpected(undefined, 'a closing `}` of a block');
        return out;
      }
      if (t.kind === 'punct' && t.text === '}') {
        if (!nested) unexpected(t, 'an attribute or a block');
        return out;
      }
      if (t.kind !== 'ident') unexpected(t, 'an attribute or a block');
      const headerIndex = i;
      i++;
      skipSpaceAndComments();
      const after = tokens[i];
      if (after?.kind === 'punct' && after.text === '=') {
        i++;
        const exprStart = i;
        i = expressionEnd(i);
        out.push({ kind: 'attribute', name: t, exprStart, exprEnd: i });
        continue;
      }
      const labels: BlockLabel[] = [];
      for (;;) {
        skipSpaceAndComments();
        const l = tokens[i];
        if (l?.kind === 'ident') {
          labels.push({ value: l.text, token: l });
          i++;
        } else if (l?.kind === 'quoteOpen') {
          const lit = tokens[i + 1];
          if (lit?.kind === 'literal' && tokens[i + 2]?.kind === 'quoteClose') {
            labels.push({ value: lit.text, token: lit });
            i += 3;
          } else if (lit?.kind === 'quoteClose') {
            labels.push({ value: '', token: { ...lit, kind: 'literal', text: '', end: lit.start } });
            i += 2;
          } else {
            unexpected(lit, 'a plain quoted block label');
          }
        } else if (l?.kind === 'punct' && l.text === '{') {
          i++;
          const body = parseItems(true);
          i++; // the closing brace
          out.push({ kind: 'block', type: t, labels, headerIndex, body });
          break;
        } else {
          unexpected(l, `\`=\` or a block body after \`${brief(t.text)}\``);
        }
      }
    }
  }

  /** An attribute's value ends at a newline outside brackets and templates, or at its block's `}`. */
  function expressionEnd(from: number): number {
    let depth = 0;
    let j = from;
    for (; j < tokens.length; j++) {
      const t = tokens[j];
      if (t.kind === 'quoteOpen' || t.kind === 'heredocOpen' || t.kind === 'interpOpen' || t.kind === 'directiveOpen') depth++;
      else if (t.kind === 'quoteClose' || t.kind === 'heredocClose' || t.kind === 'templateClose') depth--;
      else if (t.kind === 'punct' && OPENERS.has(t.text)) depth++;
      else if (t.kind === 'punct' && CLOSERS.has(t.text)) {
        if (depth === 0) return j;
        depth--;
      } else if (t.kind === 'newline' && depth === 0) return j;
    }
    return j;
  }
}

/** Errors quote at most a short token, never a run of file contents. */
function brief(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}

/** Blocks of `type` directly in `items`. */
export function blocksOfType(items: readonly HclItem[], type: string): HclBlock[] {
  return items.filter((it): it is HclBlock => it.kind === 'block' && it.type.text === type);
}

/** The attribute named `name` directly in `items`. */
export function attributeNamed(items: readonly HclItem[], name: string): HclAttribute | undefined {
  return items.find((it): it is HclAttribute => it.kind === 'attribute' && it.name.text === name);
}
