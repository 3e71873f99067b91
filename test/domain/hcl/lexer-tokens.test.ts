import { HclSyntaxError, isTrivia, lexHcl, type LexOptions } from '../../../src/domain/hcl/lexer';

/** The token stream as `kind:text@line`, the way a rewrite sees it. */
function stream(source: string, opts?: LexOptions): string[] {
  return lexHcl(source, 'main.tf', opts).map((t) => `${t.kind}:${JSON.stringify(t.text)}@${t.line}`);
}

describe('lexHcl token stream', () => {
  test.each<[string, string, string[], LexOptions]>([
    [
      'numbers, multi-character operators and a spread',
      'a = 1.5e+3 != b... <= 2E-1 >= c == d && e || f => g :: h',
      [
        'ident:"a"@1', 'space:" "@1', 'punct:"="@1', 'space:" "@1', 'number:"1.5e+3"@1', 'space:" "@1', 'punct:"!="@1',
        'space:" "@1', 'ident:"b"@1', 'punct:"..."@1', 'space:" "@1', 'punct:"<="@1', 'space:" "@1', 'number:"2E-1"@1',
        'space:" "@1', 'punct:">="@1', 'space:" "@1', 'ident:"c"@1', 'space:" "@1', 'punct:"=="@1', 'space:" "@1',
        'ident:"d"@1', 'space:" "@1', 'punct:"&&"@1', 'space:" "@1', 'ident:"e"@1', 'space:" "@1', 'punct:"||"@1',
        'space:" "@1', 'ident:"f"@1', 'space:" "@1', 'punct:"=>"@1', 'space:" "@1', 'ident:"g"@1', 'space:" "@1',
        'punct:"::"@1', 'space:" "@1', 'ident:"h"@1',
      ],
      {},
    ],
    [
      'a number stops at what is not part of it; single punctuation is one character',
      'x=10.y<1',
      ['ident:"x"@1', 'punct:"="@1', 'number:"10"@1', 'punct:"."@1', 'ident:"y"@1', 'punct:"<"@1', 'number:"1"@1'],
      {},
    ],
    [
      'identifiers take letters, digits, dashes and underscores after a letter or underscore',
      '_a-b9 é2 9z',
      ['ident:"_a-b9"@1', 'space:" "@1', 'ident:"é2"@1', 'space:" "@1', 'number:"9"@1', 'ident:"z"@1'],
      {},
    ],
    [
      'one space token per run of blanks (BOM, tab, form feed, vertical tab); a lone CR is a blank',
      '\uFEFFa \t\f\v b\rc',
      ['space:"\uFEFF"@1', 'ident:"a"@1', 'space:" \\t\\f\\u000b "@1', 'ident:"b"@1', 'space:"\\r"@1', 'ident:"c"@1'],
      {},
    ],
    [
      'CRLF is one newline; a line comment stops before it',
      'a # c1\r\n// c2\nb',
      ['ident:"a"@1', 'space:" "@1', 'comment:"# c1"@1', 'newline:"\\r\\n"@1', 'comment:"// c2"@2', 'newline:"\\n"@2', 'ident:"b"@3'],
      {},
    ],
    [
      'a line comment running to the end of the file, a lone slash is punctuation',
      'a / b # end',
      ['ident:"a"@1', 'space:" "@1', 'punct:"/"@1', 'space:" "@1', 'ident:"b"@1', 'space:" "@1', 'comment:"# end"@1'],
      {},
    ],
    [
      'a block comment spans lines and the line count goes on after it',
      'a /* x\ny */ b\nc',
      ['ident:"a"@1', 'space:" "@1', 'comment:"/* x\\ny */"@1', 'space:" "@2', 'ident:"b"@2', 'newline:"\\n"@2', 'ident:"c"@3'],
      {},
    ],
    [
      'a quoted string keeps escaped quotes and backslashes in its literal',
      'a = "x\\"y\\\\" b',
      ['ident:"a"@1', 'space:" "@1', 'punct:"="@1', 'space:" "@1', 'quoteOpen:"\\""@1', 'literal:"x\\\\\\"y\\\\\\\\"@1', 'quoteClose:"\\""@1', 'space:" "@1', 'ident:"b"@1'],
      {},
    ],
    [
      'an empty string has no literal; escaped template marks stay literal',
      '"" "$${a}%%{b}$x%y"',
      ['quoteOpen:"\\""@1', 'quoteClose:"\\""@1', 'space:" "@1', 'quoteOpen:"\\""@1', 'literal:"$${a}%%{b}$x%y"@1', 'quoteClose:"\\""@1'],
      {},
    ],
    [
      'interpolations and directives inside a string, with braces nested in them',
      '"a${b}c%{ if d }e%{ endif }${ {f = 1} }"',
      [
        'quoteOpen:"\\""@1', 'literal:"a"@1', 'interpOpen:"${"@1', 'ident:"b"@1', 'templateClose:"}"@1', 'literal:"c"@1',
        'directiveOpen:"%{"@1', 'space:" "@1', 'ident:"if"@1', 'space:" "@1', 'ident:"d"@1', 'space:" "@1', 'templateClose:"}"@1',
        'literal:"e"@1', 'directiveOpen:"%{"@1', 'space:" "@1', 'ident:"endif"@1', 'space:" "@1', 'templateClose:"}"@1',
        'interpOpen:"${"@1', 'space:" "@1', 'punct:"{"@1', 'ident:"f"@1', 'space:" "@1', 'punct:"="@1', 'space:" "@1',
        'number:"1"@1', 'punct:"}"@1', 'space:" "@1', 'templateClose:"}"@1', 'quoteClose:"\\""@1',
      ],
      {},
    ],
    [
      'a heredoc: its literal, the close with its indentation, then what follows on later lines',
      'a = <<-EOT\n  x $${y} ${z}\n  EOT \nb',
      [
        'ident:"a"@1', 'space:" "@1', 'punct:"="@1', 'space:" "@1', 'heredocOpen:"<<-EOT\\n"@1', 'literal:"  x $${y} "@2',
        'interpOpen:"${"@2', 'ident:"z"@2', 'templateClose:"}"@2', 'literal:"\\n"@2', 'heredocClose:"  EOT"@3', 'space:" "@3',
        'newline:"\\n"@3', 'ident:"b"@4',
      ],
      {},
    ],
    [
      'a CRLF heredoc closes on a marker line ending in CR',
      'a = <<EOT\r\nx\r\nEOT\r\nb',
      ['ident:"a"@1', 'space:" "@1', 'punct:"="@1', 'space:" "@1', 'heredocOpen:"<<EOT\\r\\n"@1', 'literal:"x\\r\\n"@2', 'heredocClose:"EOT"@3', 'newline:"\\r\\n"@3', 'ident:"b"@4'],
      {},
    ],
    [
      'the marker right after an interpolation on the same line does not close the heredoc',
      '<<EOT\n${a}EOT\n%{b}EOT\nEOT',
      [
        'heredocOpen:"<<EOT\\n"@1', 'interpOpen:"${"@2', 'ident:"a"@2', 'templateClose:"}"@2', 'literal:"EOT\\n"@2',
        'directiveOpen:"%{"@3', 'ident:"b"@3', 'templateClose:"}"@3', 'literal:"EOT\\n"@3', 'heredocClose:"EOT"@4',
      ],
      {},
    ],
    [
      'a heredoc whose marker closes it at the end of the file, without a newline',
      '<<EOT\nEOT',
      ['heredocOpen:"<<EOT\\n"@1', 'heredocClose:"EOT"@2'],
      {},
    ],
    [
      '`<<` without a marker and a newline is two operators',
      'a << b <<EOT',
      ['ident:"a"@1', 'space:" "@1', 'punct:"<"@1', 'punct:"<"@1', 'space:" "@1', 'ident:"b"@1', 'space:" "@1', 'punct:"<"@1', 'punct:"<"@1', 'ident:"EOT"@1'],
      {},
    ],
    [
      'a bare template (a .tf.json string) starts in template text',
      'x ${a.b} "y" ${c}',
      ['literal:"x "@7', 'interpOpen:"${"@7', 'ident:"a"@7', 'punct:"."@7', 'ident:"b"@7', 'templateClose:"}"@7', 'literal:" \\"y\\" "@7', 'interpOpen:"${"@7', 'ident:"c"@7', 'templateClose:"}"@7'],
      { mode: 'template', firstLine: 7 },
    ],
    [
      'a bare expression starts in expression syntax',
      'kubernetes_pod.a',
      ['ident:"kubernetes_pod"@1', 'punct:"."@1', 'ident:"a"@1'],
      { mode: 'expression' },
    ],
    [
      'numbers: a leading zero, two fraction digits, an unsigned and a two-digit exponent',
      '0 1.25 3e2 4e+10',
      ['number:"0"@1', 'space:" "@1', 'number:"1.25"@1', 'space:" "@1', 'number:"3e2"@1', 'space:" "@1', 'number:"4e+10"@1'],
      {},
    ],
    [
      'a splat is not a comment; a block comment needs its own `*/`',
      'a[*].id /*/ b */',
      ['ident:"a"@1', 'punct:"["@1', 'punct:"*"@1', 'punct:"]"@1', 'punct:"."@1', 'ident:"id"@1', 'space:" "@1', 'comment:"/*/ b */"@1'],
      {},
    ],
    [
      'a `$` or `%` before a directive or an interpolation opens it; `$$` and `%%` escape only before `{`',
      '"$%{ x }$$%{y}%%${z}"',
      [
        'quoteOpen:"\\""@1', 'literal:"$"@1', 'directiveOpen:"%{"@1', 'space:" "@1', 'ident:"x"@1', 'space:" "@1', 'templateClose:"}"@1',
        'literal:"$$"@1', 'directiveOpen:"%{"@1', 'ident:"y"@1', 'templateClose:"}"@1', 'literal:"%%"@1', 'interpOpen:"${"@1', 'ident:"z"@1',
        'templateClose:"}"@1', 'quoteClose:"\\""@1',
      ],
      {},
    ],
    [
      'a CR inside a heredoc line is text, not the end of the marker line',
      '<<EOT\nEO\rT\nEOT',
      ['heredocOpen:"<<EOT\\n"@1', 'literal:"EO\\rT\\n"@2', 'heredocClose:"EOT"@3'],
      {},
    ],
    [
      'in a bare template a backslash escapes nothing, a newline is text, and trailing text is one literal',
      'a\\${b}\nc',
      ['literal:"a\\\\"@1', 'interpOpen:"${"@1', 'ident:"b"@1', 'templateClose:"}"@1', 'literal:"\\nc"@1'],
      { mode: 'template' },
    ],
    [
      'a tab, a form feed or a vertical tab starts a blank run on its own; a brace in a string is text',
      'a\tb\fc\vd "x{y}"',
      ['ident:"a"@1', 'space:"\\t"@1', 'ident:"b"@1', 'space:"\\f"@1', 'ident:"c"@1', 'space:"\\u000b"@1', 'ident:"d"@1', 'space:" "@1', 'quoteOpen:"\\""@1', 'literal:"x{y}"@1', 'quoteClose:"\\""@1'],
      {},
    ],
    [
      'a lone CR inside a line comment does not end it',
      '# a\rb\nc',
      ['comment:"# a\\rb"@1', 'newline:"\\n"@1', 'ident:"c"@2'],
      {},
    ],
    [
      'a marker line with a leading CR closes the heredoc and keeps every byte of it',
      '<<EOT\n\rEOT\n',
      ['heredocOpen:"<<EOT\\n"@1', 'heredocClose:"\\rEOT"@2', 'newline:"\\n"@2'],
      {},
    ],
  ])('%s', (_title, source, expected, opts) => {
    expect(stream(source, opts)).toEqual(expected);
  });

  test('offsets of every token point at its text in the source, the last one ending where the source ends', () => {
    for (const source of ['a = "${b}" # c\n<<EOT\nd\nEOT\n', 'x = y', 'x # c']) {
      const tokens = lexHcl(source, 'main.tf');
      for (const t of tokens) expect(source.slice(t.start, t.end)).toBe(t.text);
      expect(tokens[tokens.length - 1].end).toBe(source.length);
    }
  });

  test('isTrivia: spaces, comments and newlines only', () => {
    const kinds = lexHcl('a = "b" # c\n', 'main.tf').map((t) => [t.kind, isTrivia(t)]);
    expect(kinds).toEqual([
      ['ident', false], ['space', true], ['punct', false], ['space', true], ['quoteOpen', false], ['literal', false],
      ['quoteClose', false], ['space', true], ['comment', true], ['newline', true],
    ]);
  });
});

describe('lexHcl refusals name the file, the line where the construct opened and what is missing', () => {
  test.each<[string, string, string, LexOptions]>([
    ['a string open at the end of the file', 'a = 1\nb = "x', 'main.tf:2: unterminated string: a quoted string has no closing `"` before the end of the file.', {}],
    ['a string open at the end of the file after an escape', 'b = "x\\"', 'main.tf:1: unterminated string: a quoted string has no closing `"` before the end of the file.', {}],
    ['a string with a newline in it', '\nb = "x\ny"', 'main.tf:2: unterminated string: a quoted string must close on the line it opens (use a heredoc for several lines).', {}],
    ['a heredoc without its closing marker', 'a = <<EOT\nx\n EOTX\n', 'main.tf:1: unterminated heredoc: no line holding only `EOT` closes `<<EOT`.', {}],
    ['a heredoc ending inside an interpolation', 'a = 1\nb = <<EOT\n${x', 'main.tf:3: unterminated interpolation: `${` or `%{` has no closing `}`.', {}],
    ['an interpolation left open in a string', 'a = 1\n\nb = "${x', 'main.tf:3: unterminated interpolation: `${` or `%{` has no closing `}`.', {}],
    ['a directive left open in a bare template', 'a\n%{ if x', 'main.tf:6: unterminated interpolation: `${` or `%{` has no closing `}`.', { mode: 'template', firstLine: 5 }],
    ['the last interpolation left open, not an earlier closed one', 'a = "${x}"\nb = "${y', 'main.tf:2: unterminated interpolation: `${` or `%{` has no closing `}`.', {}],
    ['an interpolation left open lines before the end', 'a = "${x +\n\ny', 'main.tf:1: unterminated interpolation: `${` or `%{` has no closing `}`.', {}],
    ['a directive left open after a closed interpolation', 'a ${x}\n%{ if y\n\n', 'main.tf:2: unterminated interpolation: `${` or `%{` has no closing `}`.', { mode: 'template' }],
    ['a block comment without its end', 'a = 1\n/* x', 'main.tf:2: unterminated comment: `/*` has no closing `*/`.', {}],
  ])('%s', (_title, source, message, opts) => {
    let caught: unknown;
    try {
      lexHcl(source, 'main.tf', opts);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HclSyntaxError);
    expect((caught as HclSyntaxError).message).toBe(message);
    expect((caught as HclSyntaxError).name).toBe('HclSyntaxError');
    expect((caught as HclSyntaxError).file).toBe('main.tf');
  });
});
