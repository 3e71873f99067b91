import { attributeNamed, blocksOfType, parseBody, type HclItem } from '../../../src/domain/hcl/body-parser';
import { HclSyntaxError, lexHcl, type Token } from '../../../src/domain/hcl/lexer';

/** The outline as a reader of the template sees it: block types, labels, attributes and their value text. */
function outline(source: string): unknown[] {
  const tokens = lexHcl(source, 'main.tf');
  const walk = (items: readonly HclItem[]): unknown[] =>
    items.map((it) =>
      it.kind === 'attribute'
        ? `${it.name.text} =${exprText(tokens, it.exprStart, it.exprEnd)}`
        : { [`${it.type.text}@${it.type.line}#${it.headerIndex}`]: it.labels.map((l) => `${l.value}@${l.token.kind}:${l.token.start}-${l.token.end}`), body: walk(it.body) },
    );
  return walk(parseBody(tokens, 'main.tf'));
}

function exprText(tokens: readonly Token[], from: number, to: number): string {
  return tokens.slice(from, to).map((t) => t.text).join('');
}

function refusal(source: string): string {
  try {
    parseBody(lexHcl(source, 'main.tf'), 'main.tf');
  } catch (e) {
    expect(e).toBeInstanceOf(HclSyntaxError);
    return (e as Error).message;
  }
  throw new Error('parsed without a refusal');
}

describe('parseBody', () => {
  test('blocks with quoted, bare and empty labels, nested blocks and attributes whose values span lines', () => {
    const source = [
      '# wsmigrate:protect',
      'resource "kubernetes_deployment" main /* c */ {',
      '  count = data.coder_workspace.me.start_count # one per start',
      '  depends_on = [',
      '    kubernetes_persistent_volume_claim.home,',
      '  ]',
      '  metadata {',
      '    labels = { "app" = "x", b = f(1, {c = 2}) }',
      '  }',
      '  script = <<-EOT',
      '    echo }',
      '  EOT',
      '  dynamic "" { content { a = "${ {x = 1}.x }" } }',
      '  one /* c */ = 1',
      '}',
      'locals { x = 1 }',
    ].join('\n');
    expect(outline(source)).toEqual([
      {
        'resource@2#2': ['kubernetes_deployment@literal:30-51', 'main@ident:53-57'],
        body: [
          'count = data.coder_workspace.me.start_count # one per start',
          'depends_on = [\n    kubernetes_persistent_volume_claim.home,\n  ]',
          { 'metadata@7#46': [], body: ['labels = { "app" = "x", b = f(1, {c = 2}) }'] },
          'script = <<-EOT\n    echo }\n  EOT',
          { 'dynamic@13#101': ['@literal:307-307'], body: [{ 'content@13#108': [], body: ['a = "${ {x = 1}.x }" '] }] },
          'one = 1',
        ],
      },
      { 'locals@16#147': [], body: ['x = 1 '] },
    ]);
    expect(source.slice(306, 308)).toBe('""');
  });

  test('a value ends at its newline outside strings, templates and brackets, or at the end of the file', () => {
    expect(outline('a = "(" # c\nb = ")"\nc = "%{ if b }c%{ endif }"\nd = [\n"]",\n]\ne = 1')).toEqual([
      'a = "(" # c',
      'b = ")"',
      'c = "%{ if b }c%{ endif }"',
      'd = [\n"]",\n]',
      'e = 1',
    ]);
  });

  test('an empty quoted label is an empty literal at the closing quote', () => {
    const tokens = lexHcl('dynamic "" {}', 'main.tf');
    const [block] = parseBody(tokens, 'main.tf');
    expect(block.kind === 'block' && block.labels[0]).toMatchObject({ value: '', token: { kind: 'literal', text: '', start: 9, end: 9 } });
  });

  test('blocksOfType and attributeNamed look only at the items they are given', () => {
    const items = parseBody(lexHcl('data "a" "x" {\n  name = 1\n}\nresource "a" "y" {}\ndata "b" "z" {}\nname = 2\n', 'main.tf'), 'main.tf');
    expect(blocksOfType(items, 'data').map((b) => b.labels.map((l) => l.value))).toEqual([['a', 'x'], ['b', 'z']]);
    expect(attributeNamed(items, 'name')?.name.line).toBe(6);
    expect(attributeNamed(items, 'count')).toBeUndefined();
    expect(attributeNamed(blocksOfType(items, 'data')[0].body, 'name')?.name.line).toBe(2);
  });

  test.each<[string, string, string]>([
    ['a closing brace with no block open', 'a = 1\n}', 'main.tf:2: expected an attribute or a block but found `}`.'],
    ['a block left open, at the last line', 'resource "a" "b" {\n  x = 1\n\n', 'main.tf:3: expected a closing `}` of a block but found the end of the file.'],
    ['a body item that is not a name', 'a = 1\n"b" = 2', 'main.tf:2: expected an attribute or a block but found `"`.'],
    ['a label that is a template', 'resource "a${x}" "b" {}', 'main.tf:1: expected a plain quoted block label but found `a`.'],
    ['a name followed by neither `=` nor a body', 'locals\n{}', 'main.tf:1: expected `=` or a block body after `locals` but found `\n`.'],
    ['a name at the end of the file', 'terraform', 'main.tf:1: expected `=` or a block body after `terraform` but found the end of the file.'],
    ['a line comment between a name and its body', 'locals # c\n{}', 'main.tf:1: expected `=` or a block body after `locals` but found `# c`.'],
    ['an opening bracket where an item starts, inside a block', 'x {\n  [\n}', 'main.tf:2: expected an attribute or a block but found `[`.'],
    ['a 24-character token, quoted whole', 'abcdefghijklmnopqrstuvwx.y', 'main.tf:1: expected `=` or a block body after `abcdefghijklmnopqrstuvwx` but found `.`.'],
    ['a long token, quoted short', 'a_very_long_attribute_name_here.x', 'main.tf:1: expected `=` or a block body after `a_very_long_attribute_na…` but found `.`.'],
  ])('refuses %s', (_title, source, message) => {
    expect(refusal(source)).toBe(message);
  });
});
