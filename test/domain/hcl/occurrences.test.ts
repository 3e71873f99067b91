import { labelledBodies, objectsOf, typeOccurrencesInJson } from '../../../src/domain/hcl/json-occurrences';
import { parseJsonTree } from '../../../src/domain/hcl/json-tree';
import { parseHclFile, typeOccurrencesInHcl, type HclDialect } from '../../../src/domain/hcl/native-occurrences';
import type { TypeOccurrence } from '../../../src/domain/hcl/type-references';

const rewritten = (path: readonly string[]): boolean => path.join('/') === 'pod';

/** `line context mode type`, each checked to sit exactly on the type name in the source. */
function listed(source: string, occurrences: readonly TypeOccurrence[]): string[] {
  return occurrences.map((o) => {
    expect(source.slice(o.start, o.end)).toBe(o.type);
    return `${o.line} ${o.context} ${o.mode} ${o.type}`;
  });
}

function native(dialect: HclDialect, lines: string[]): string[] {
  const source = lines.join('\n');
  return listed(source, typeOccurrencesInHcl(parseHclFile('main.tf', source, dialect), rewritten));
}

describe('typeOccurrencesInHcl', () => {
  test('a configuration: labels where a type is declared, references, addresses, and what is skipped (a quoted address outside depends_on is text)', () => {
    expect(
      native('config', [
        'resource "kubernetes_deployment" "main" {', // 1
        '  depends_on = [kubernetes_persistent_volume_claim.home, "kubernetes_service.legacy"]',
        '  x = kubernetes_secret.s.data',
        '  lifecycle {',
        '    ignore_changes       = [kubernetes_pod.skip]', // 5
        '    replace_triggered_by = [kubernetes_config_map.c]',
        '  }',
        '  dynamic "kubernetes_service" {',
        '    iterator = kubernetes_pod',
        '    content { a = kubernetes_service.x.y, b = kubernetes_pod.p.q, c = kubernetes_secret.t.u }', // 10
        '  }',
        '  data "kubernetes_secret" "nested" {}',
        '}',
        'data "kubernetes_secret" "s" {}',
        'check "c" {', // 15
        '  data "kubernetes_secret" "in_check" {}',
        '  resource "kubernetes_pod" "not_here" {}',
        '}',
        'moved {',
        '  from = kubernetes_pod.old', // 20
        '  to   = module.pod.kubernetes_pod.new',
        '}',
        'removed { from = kubernetes_service.gone }',
        'import { to = kubernetes_namespace.n }',
        'module "x" { resource = kubernetes_pod.m.id }', // 25
        'resource "kubernetes_deployment_v1" "done" {}',
        'resource "kubernetes_deployment" {}',
        'resource "kubernetes_secret" "copy" {',
        '  data = kubernetes_secret.s.data', // 29
        '  note = "kubernetes_service.legacy"',
        '}',
      ]),
    ).toEqual([
      '1 label managed kubernetes_deployment',
      '2 address managed kubernetes_persistent_volume_claim',
      '2 address managed kubernetes_service',
      '3 reference managed kubernetes_secret',
      '6 address managed kubernetes_config_map',
      '10 reference managed kubernetes_secret',
      '14 label data kubernetes_secret',
      '16 label data kubernetes_secret',
      '20 address managed kubernetes_pod',
      '21 address managed kubernetes_pod',
      '23 address managed kubernetes_service',
      '24 address managed kubernetes_namespace',
      '25 reference managed kubernetes_pod',
      '27 label managed kubernetes_deployment',
      '28 label managed kubernetes_secret',
      '29 reference managed kubernetes_secret',
    ]);
  });

  test('a `terraform test` file: mock blocks inside mock_provider, override and plan_options targets', () => {
    expect(
      native('test', [
        'mock_provider "kubernetes" {',
        '  mock_resource "kubernetes_pod" {}',
        '  mock_data "kubernetes_secret" {}',
        '}',
        'mock_resource "kubernetes_service" {}', // 5
        'resource "kubernetes_service" "no" {}',
        'override_resource { target = kubernetes_pod.a }',
        'override_data { target = data.kubernetes_secret.s }',
        'override_module { target = module.pod }',
        'run "r" {', // 10
        '  plan_options {',
        '    target  = [kubernetes_service.b]',
        '    replace = [kubernetes_config_map.c]',
        '  }',
        '  assert { condition = kubernetes_pod.a.id != "" }', // 15
        '}',
      ]),
    ).toEqual([
      '2 label managed kubernetes_pod',
      '3 label data kubernetes_secret',
      '7 address managed kubernetes_pod',
      '8 address data kubernetes_secret',
      '12 address managed kubernetes_service',
      '13 address managed kubernetes_config_map',
      '15 reference managed kubernetes_pod',
    ]);
  });

  test('a mock data file: mock blocks at the top level only', () => {
    expect(
      native('mock', ['mock_resource "kubernetes_pod" {}', 'mock_data "kubernetes_secret" {}', 'mock_provider "k" {', '  mock_resource "kubernetes_service" {}', '}', 'resource "kubernetes_pod" "a" {}']),
    ).toEqual(['1 label managed kubernetes_pod', '2 label data kubernetes_secret']);
  });
});

describe('typeOccurrencesInJson', () => {
  test('type keys, templates in values, bare addresses, and the keys that are never rewritten', () => {
    const doc = {
      resource: {
        kubernetes_deployment: {
          main: {
            depends_on: ['kubernetes_service.b'],
            count: 2,
            x: 'kubernetes_pod.plain.text ${kubernetes_secret.c.d}',
            plain: 'kubernetes_pod.not_a_template',
            lifecycle: { ignore_changes: ['kubernetes_pod.q', '${kubernetes_pod.q.r}'], replace_triggered_by: ['kubernetes_config_map.r'] },
            dynamic: {
              kubernetes_service: [{ content: { y: '${kubernetes_service.value.a} ${kubernetes_pod.v.w} ${kubernetes_namespace.n.x}' }, iterator: ' kubernetes_pod ', for_each: '${kubernetes_config_map.m.data}' }],
              volume: { for_each: '${volume.value}', content: { z: '${kubernetes_pod.dyn.z}' } },
            },
            provider: '${kubernetes_pod.p.q}',
            '//': '${kubernetes_pod.z.z}',
          },
          '//': { comment: '${kubernetes_pod.z.z}' },
        },
        coder_agent: { main: {} },
        '//': { kubernetes_pod: { c: { x: '${kubernetes_pod.z.z}' } } },
      },
      data: { kubernetes_secret: { s: {} } },
      check: { c: { data: { kubernetes_secret: { t: {} } }, assert: { condition: '${kubernetes_pod.a.id != ""}' } } },
      moved: [{ from: 'kubernetes_pod.old', to: 'module.pod.kubernetes_pod.new' }],
      removed: { from: 'kubernetes_service.gone' },
      import: [{ to: 'kubernetes_namespace.n', id: 'kubernetes_namespace.not_an_address' }],
      locals: { l: '%{ if kubernetes_pod.a.id != "" }x%{ endif }' },
      module: { m: { source: '${kubernetes_pod.s.t}', version: '${kubernetes_pod.s.t}', n: '${kubernetes_pod.m.n}' } },
      '//': '${kubernetes_pod.c.d}',
    };
    const source = JSON.stringify(doc, null, 1);
    const line = (text: string): number => source.slice(0, source.indexOf(text)).split('\n').length;
    expect(listed(source, typeOccurrencesInJson(parseJsonTree(source, 'main.tf.json'), 'main.tf.json', rewritten))).toEqual([
      `${line('"kubernetes_deployment"')} label managed kubernetes_deployment`,
      `${line('"kubernetes_service.b"')} address managed kubernetes_service`,
      `${line('${kubernetes_secret.c.d}')} reference managed kubernetes_secret`,
      `${line('kubernetes_config_map.r')} address managed kubernetes_config_map`,
      `${line('kubernetes_namespace.n.x')} reference managed kubernetes_namespace`,
      `${line('kubernetes_config_map.m.data')} reference managed kubernetes_config_map`,
      `${line('kubernetes_pod.dyn.z')} reference managed kubernetes_pod`,
      `${line('"s": {}') - 1} label data kubernetes_secret`,
      `${line('"t": {}') - 1} label data kubernetes_secret`,
      `${line('${kubernetes_pod.a.id != ')} reference managed kubernetes_pod`,
      `${line('"kubernetes_pod.old"')} address managed kubernetes_pod`,
      `${line('module.pod.kubernetes_pod.new')} address managed kubernetes_pod`,
      `${line('kubernetes_service.gone')} address managed kubernetes_service`,
      `${line('"kubernetes_namespace.n"')} address managed kubernetes_namespace`,
      `${line('%{ if kubernetes_pod')} reference managed kubernetes_pod`,
      `${line('kubernetes_pod.m.n')} reference managed kubernetes_pod`,
    ]);
  });

  test('an escaped character before a name keeps the rename on the right source bytes', () => {
    const source = '{"output": {"o": {"value": "\\u0024{kubernetes_pod.a.id}\\t${kubernetes_service.b.c}"}}}';
    const occ = typeOccurrencesInJson(parseJsonTree(source, 'main.tf.json'), 'main.tf.json', rewritten);
    expect(listed(source, occ)).toEqual(['1 reference managed kubernetes_pod', '1 reference managed kubernetes_service']);
  });

  test('a document that is not an object has nothing to rename', () => {
    expect(typeOccurrencesInJson(parseJsonTree('["${kubernetes_pod.a.b}"]', 'x.tf.json'), 'x.tf.json', rewritten)).toEqual([]);
  });

  test('objectsOf and labelledBodies read JSON blocks given as an object or an array of objects', () => {
    const root = parseJsonTree('{"a": {"x": {"k": 1}, "//": {"c": 2}, "y": [{"l": 3}, 4]}}', 'x.tf.json');
    const keys = (nodes: ReturnType<typeof objectsOf>): string[][] => nodes.map((o) => o.entries.map((e) => e.key.value));
    expect(keys(objectsOf(root))).toEqual([['a']]);
    expect(keys(labelledBodies(root, 0))).toEqual([['a']]);
    expect(keys(labelledBodies(root, 1))).toEqual([['x', '//', 'y']]);
    expect(keys(labelledBodies(root, 2))).toEqual([['k'], ['l']]);
    expect(objectsOf(parseJsonTree('"s"', 'x.tf.json'))).toEqual([]);
  });
});
