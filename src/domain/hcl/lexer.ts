/**
 * A lossless tokenizer for HCL native syntax: every byte of the source lands in exactly one token,
 * so a rewrite can replace single identifier tokens and copy everything else verbatim.
 * It knows just enough of the grammar (templates, heredocs, comments, brace nesting) to tell an
 * identifier in an expression from the same letters inside a string or a comment.
 */

export type TokenKind =
  | 'ident'
  | 'number'
  | 'punct'
  | 'newline'
  | 'space'
  | 'comment'
  | 'quoteOpen'
  | 'quoteClose'
  | 'literal'
  | 'interpOpen'
  | 'directiveOpen'
  | 'templateClose'
  | 'heredocOpen'
  | 'heredocClose';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** UTF-16 offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** 1-based line of the first character. */
  readonly line: number;
}

/** A source that cannot be tokenized; the message names file:line and what to fix. */
export class HclSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'HclSyntaxError';
  }
}

export interface LexOptions {
  /** Where scanning starts: a .tf body, a bare template (a .tf.json string value) or a bare expression. */
  mode?: 'body' | 'template' | 'expression';
  /** Added to every reported line (for strings embedded in another file). */
  firstLine?: number;
}

type Frame =
  | { kind: 'root' }
  | { kind: 'brace' }
  | { kind: 'interp' }
  | { kind: 'quoted'; line: number }
  | { kind: 'bareTemplate' }
  | { kind: 'heredoc'; marker: string; line: number; atLineStart: boolean };

const MULTI_CHAR_PUNCT = ['...', '==', '!=', '<=', '>=', '&&', '||', '=>', '::'];
const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{N}\p{Mn}\p{Mc}\p{Pc}-]/u;
const HEREDOC_OPEN = /^<<(-?)([\p{L}_][\p{L}\p{N}_-]*)(\r?\n)/u;

export function lexHcl(source: string, file: string, opts: LexOptions = {}): Token[] {
  const tokens: Token[] = [];
  const stack: Frame[] = [];
  const mode = opts.mode ?? 'body';
  stack.push(mode === 'template' ? { kind: 'bareTemplate' } : { kind: 'root' });
  let pos = 0;
  let line = opts.firstLine ?? 1;

  const emit = (kind: TokenKind, end: number): void => {
    if (end <= pos) return;
    const text = source.slice(pos, end);
    tokens.push({ kind, text, start: pos, end, line });
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
    pos = end;
  };
  const fail = (atLine: number, problem: string): never => {
    throw new HclSyntaxError(file, atLine, problem);
  };

  while (pos < source.length) {
    const frame = stack[stack.length - 1];
    if (frame.kind === 'quoted' || frame.kind === 'bareTemplate') {
      scanQuotedTemplate(frame);
    } else if (frame.kind === 'heredoc') {
      scanHeredoc(frame);
    } else {
      scanExpression(frame);
    }
  }

  // An open string or heredoc has failed in its own scanner; only an interpolation can still be open.
  const open = stack[stack.length - 1];
  if (open.kind === 'interp') {
    const opener = [...tokens].reverse().find((t) => t.kind === 'interpOpen' || t.kind === 'directiveOpen');
    fail(opener?.line ?? line, 'unterminated interpolation: `${` or `%{` has no closing `}`.');
  }
  return tokens;

  function scanQuotedTemplate(frame: { kind: 'quoted'; line: number } | { kind: 'bareTemplate' }): void {
    let i = pos;
    while (i < source.length) {
      const c = source[i];
      if (frame.kind === 'quoted' && c === '"') {
        emit('literal', i);
        emit('quoteClose', i + 1);
        stack.pop();
        return;
      }
      if (frame.kind === 'quoted' && c === '\\') {
        i += 2;
        continue;
      }
      if (frame.kind === 'quoted' && c === '\n') {
        fail(frame.line, 'unterminated string: a quoted string must close on the line it opens (use a heredoc for several lines).');
      }
      const mark = templateMarkAt(i);
      if (mark === 'escaped') {
        i += 3;
        continue;
      }
      if (mark === 'opens') return openTemplateSequence(i);
      i++;
    }
    if (frame.kind === 'quoted') fail(frame.line, 'unterminated string: a quoted string has no closing `"` before the end of the file.');
    emit('literal', source.length);
  }

  function scanHeredoc(frame: { kind: 'heredoc'; marker: string; line: number; atLineStart: boolean }): void {
    let i = pos;
    let atLineStart = frame.atLineStart;
    while (i < source.length) {
      if (atLineStart) {
        const lineEnd = source.indexOf('\n', i);
        const rawLine = source.slice(i, lineEnd < 0 ? source.length : lineEnd);
        if (rawLine.replace(/\r$/, '').trim() === frame.marker) {
          emit('literal', i);
          const markerEnd = i + rawLine.replace(/\r$/, '').trimEnd().length;
          emit('heredocClose', markerEnd);
          stack.pop();
          return;
        }
        atLineStart = false;
      }
      const c = source[i];
      if (c === '\n') {
        atLineStart = true;
        i++;
        continue;
      }
      const mark = templateMarkAt(i);
      if (mark === 'escaped') {
        i += 3;
        continue;
      }
      if (mark === 'opens') {
        frame.atLineStart = false;
        return openTemplateSequence(i);
      }
      i++;
    }
    fail(frame.line, `unterminated heredoc: no line holding only \`${frame.marker}\` closes \`<<${frame.marker}\`.`);
  }

  /** `$${` and `%%{` are literal text (three characters); `${` and `%{` open an interpolation or a directive. */
  function templateMarkAt(i: number): 'escaped' | 'opens' | undefined {
    const c = source[i];
    if (c !== '$' && c !== '%') return undefined;
    if (source[i + 1] === c && source[i + 2] === '{') return 'escaped';
    return source[i + 1] === '{' ? 'opens' : undefined;
  }

  function openTemplateSequence(i: number): void {
    emit('literal', i);
    emit(source[i] === '$' ? 'interpOpen' : 'directiveOpen', i + 2);
    stack.push({ kind: 'interp' });
  }

  function scanExpression(frame: Frame): void {
    const c = source[pos];
    const next = source[pos + 1];
    if (c === '\n') return emit('newline', pos + 1);
    if (c === '\r' && next === '\n') return emit('newline', pos + 2);
    if (c === ' ' || c === '\t' || c === '\r' || c === '\uFEFF' || c === '\f' || c === '\v') {
      let i = pos + 1;
      while (i < source.length && /[ \t\f\v\uFEFF]/.test(source[i])) i++;
      return emit('space', i);
    }
    if (c === '#' || (c === '/' && next === '/')) {
      let i = pos;
      while (i < source.length && source[i] !== '\n' && !(source[i] === '\r' && source[i + 1] === '\n')) i++;
      return emit('comment', i);
    }
    if (c === '/' && next === '*') {
      const close = source.indexOf('*/', pos + 2);
      if (close < 0) fail(line, 'unterminated comment: `/*` has no closing `*/`.');
      return emit('comment', close + 2);
    }
    if (c === '"') {
      const openLine = line;
      emit('quoteOpen', pos + 1);
      stack.push({ kind: 'quoted', line: openLine });
      return;
    }
    if (c === '<' && next === '<') {
      const m = HEREDOC_OPEN.exec(source.slice(pos, pos + 300));
      if (m) {
        const openLine = line;
        emit('heredocOpen', pos + m[0].length);
        stack.push({ kind: 'heredoc', marker: m[2], line: openLine, atLineStart: true });
        return;
      }
    }
    if (IDENT_START.test(c)) {
      let i = pos + 1;
      while (i < source.length && IDENT_PART.test(source[i])) i++;
      return emit('ident', i);
    }
    if (c >= '0' && c <= '9') {
      const m = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(pos, pos + 100));
      return emit('number', pos + (m ? m[0].length : 1));
    }
    if (c === '{') {
      stack.push({ kind: 'brace' });
      return emit('punct', pos + 1);
    }
    if (c === '}') {
      if (frame.kind === 'interp') {
        stack.pop();
        return emit('templateClose', pos + 1);
      }
      if (frame.kind === 'brace') stack.pop();
      return emit('punct', pos + 1);
    }
    for (const p of MULTI_CHAR_PUNCT) {
      if (source.startsWith(p, pos)) return emit('punct', pos + p.length);
    }
    return emit('punct', pos + 1);
  }
}

/** Tokens that carry no meaning between two others. */
export function isTrivia(t: Token): boolean {
  return t.kind === 'space' || t.kind === 'comment' || t.kind === 'newline';
}
