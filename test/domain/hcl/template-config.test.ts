import { guardAddressesIn, isGuardFile, renderGuardFile, GUARD_HEADER } from '../../../src/domain/hcl/guard-blocks';
import { outlineHcl, outlineJson } from '../../../src/domain/hcl/config-outline';
import { parseJsonTree } from '../../../src/domain/hcl/json-tree';
import { parseHclFile } from '../../../src/domain/hcl/native-occurrences';
import { readTemplateConfig } from '../../../src/domain/hcl/template-config';
import { syntaxOf } from '../../../src/domain/hcl/template-file';
import { ZERO_TOUCH_HEADER } from '../../../src/domain/hcl/zero-touch-blocks';

const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('outlineHcl and outlineJson', () => {
  test('a native file: resources, data sources (also in check blocks), module calls with a literal source', () => {
    const source = lines(
      'resource "kubernetes_pod" "a" {}',
      'resource "only_type" {}',
      'data "kubernetes_secret" "s" {}',
      'check "c" {',
      '  data "kubernetes_service" "in_check" {}',
      '}',
      'module "pod" { source = "./modules/pod" }',
      'module "tpl" {',
      '  source = "./x/${var.y}"',
      '}',
      'module "none" {}',
      'module {}',
    );
    const outline = outlineHcl(parseHclFile('main.tf', source, 'config'));
    expect(outline.resources.map((r) => [r.mode, r.type, r.name, r.line, source.slice(r.typeStart, r.typeStart + r.type.length), r.headerIndex !== undefined])).toEqual([
      ['managed', 'kubernetes_pod', 'a', 1, 'kubernetes_pod', true],
      ['data', 'kubernetes_secret', 's', 3, 'kubernetes_secret', true],
      ['data', 'kubernetes_service', 'in_check', 5, 'kubernetes_service', true],
    ]);
    expect(outline.moduleCalls).toEqual([
      { file: 'main.tf', name: 'pod', source: './modules/pod', line: 7 },
      { file: 'main.tf', name: 'tpl', source: undefined, line: 8 },
      { file: 'main.tf', name: 'none', source: undefined, line: 11 },
    ]);
  });

  test('a test file declares nothing', () => {
    expect(outlineHcl(parseHclFile('a.tftest.hcl', 'resource "kubernetes_pod" "a" {}\nmodule "m" { source = "./m" }\n', 'test'))).toEqual({ resources: [], moduleCalls: [] });
  });

  test('a JSON file: type and name keys (comments skipped), module calls with their source', () => {
    const source = JSON.stringify(
      {
        resource: { kubernetes_pod: { a: {}, '//': 'c', b: [{}] }, '//': {} },
        data: [{ kubernetes_secret: { s: {} } }],
        module: { pod: { source: './modules/pod' }, other: [{ version: '1' }], '//': { source: 'x' }, tpl: { source: ['no'] } },
        output: { kubernetes_pod: { value: 1 } },
      },
      null,
      1,
    );
    const outline = outlineJson(parseJsonTree(source, 'main.tf.json'), 'main.tf.json');
    expect(outline.resources.map((r) => [r.mode, r.type, r.name, source.slice(r.typeStart - 1, r.typeStart + r.type.length + 1)])).toEqual([
      ['managed', 'kubernetes_pod', 'a', '"kubernetes_pod"'],
      ['managed', 'kubernetes_pod', 'b', '"kubernetes_pod"'],
      ['data', 'kubernetes_secret', 's', '"kubernetes_secret"'],
    ]);
    const line = (text: string): number => source.slice(0, source.indexOf(text)).split('\n').length;
    expect(outline.resources.map((r) => r.line)).toEqual([line('"kubernetes_pod"'), line('"kubernetes_pod"'), line('"kubernetes_secret"')]);
    expect(outline.moduleCalls.map((c) => [c.name, c.source, c.line])).toEqual([
      ['pod', './modules/pod', line('"pod"')],
      ['other', undefined, line('"other"')],
      ['tpl', undefined, line('"tpl"')],
    ]);
  });
});

describe('guard files', () => {
  test('rendered sorted and without duplicates, read back as written, recognised by the first line only', () => {
    const text = renderGuardFile(['kubernetes_secret.b', 'kubernetes_persistent_volume_claim.home', 'kubernetes_secret.b']);
    expect(text.split('\n').slice(0, 2)).toEqual([GUARD_HEADER, '#']);
    expect(text.endsWith('removed {\n  from = kubernetes_secret.b\n  lifecycle {\n    destroy = false\n  }\n}\n')).toBe(true);
    expect(text).toContain('\n\nremoved {\n  from = kubernetes_persistent_volume_claim.home\n  lifecycle {\n    destroy = false\n  }\n}\n\nremoved {');
    expect(guardAddressesIn('wsmigrate_guards.tf', text)).toEqual(['kubernetes_persistent_volume_claim.home', 'kubernetes_secret.b']);
    expect(isGuardFile(text)).toBe(true);
    expect(isGuardFile(`\uFEFF${GUARD_HEADER} (v2)\r\nx`)).toBe(true);
    expect(isGuardFile(`# note\n${GUARD_HEADER}\n`)).toBe(false);
    expect(isGuardFile(` ${GUARD_HEADER}`)).toBe(false);
  });

  test('a removed block without from, or with an empty one, adds no address; module addresses keep their spacing-free text', () => {
    const text = lines(GUARD_HEADER, 'removed {', '  lifecycle { destroy = false }', '}', 'removed { from = }', 'removed {', '  from = module.app . kubernetes_pod.x # old', '}', 'moved { from = a.b }');
    expect(guardAddressesIn('g.tf', text)).toEqual(['module.app.kubernetes_pod.x']);
  });
});

describe('readTemplateConfig', () => {
  test('parses Terraform files only, sets generated files apart, and reads module folders from them', () => {
    const config = readTemplateConfig([
      { path: 'main.tf', content: lines('module "pod" { source = "./modules/pod" }', 'resource "kubernetes_secret" "s" {}') },
      { path: 'wsmigrate_guards.tf', content: renderGuardFile(['kubernetes_secret.s']) },
      { path: 'wsmigrate_zero_touch.tf', content: `${ZERO_TOUCH_HEADER}\n` },
      { path: 'README.md', content: 'resource "kubernetes_pod" "doc" {' },
      { path: 'modules/pod/main.tf.json', content: '{"resource": {"kubernetes_pod": {"p": {}}}}' },
      { path: 'modules/pod/override.tf', content: 'resource "kubernetes_pod" "p" {}\n' },
      { path: 'modules/pod/x_override.tf.json', content: '{"resource": {"kubernetes_pod": {"p": {}}}}' },
      { path: 'tests/a.tftest.hcl', content: 'run "r" {}\n' },
      { path: 'tests/kubernetes.tfmock.hcl', content: 'mock_resource "kubernetes_pod" {}\n' },
    ]);
    expect(config.configFiles.map((f) => [f.path, f.syntax, f.outline.resources.map((r) => `${r.type}.${r.name}`)])).toEqual([
      ['main.tf', 'native', ['kubernetes_secret.s']],
      ['modules/pod/main.tf.json', 'json', ['kubernetes_pod.p']],
      ['modules/pod/override.tf', 'native', []],
      ['modules/pod/x_override.tf.json', 'json', []],
      ['tests/a.tftest.hcl', 'native', []],
      ['tests/kubernetes.tfmock.hcl', 'native', []],
    ]);
    expect(config.guardFiles).toEqual(['wsmigrate_guards.tf', 'wsmigrate_zero_touch.tf']);
    expect(config.modules.prefixesOf('modules/pod')).toEqual(['module.pod.']);
    expect(config.modules.isRewritten('', ['pod'])).toBe(true);
  });

  test('a folder holding only test files is no module folder', () => {
    const config = readTemplateConfig([
      { path: 'main.tf', content: 'module "t" { source = "./tests" }\n' },
      { path: 'tests/a.tftest.hcl', content: 'run "r" {}\n' },
    ]);
    expect(config.modules.resolve(['t'])).toMatchObject({ kind: 'external', address: 'module.t' });
  });

  test('a file that does not parse is refused, naming it', () => {
    expect(() => readTemplateConfig([{ path: 'modules/x/bad.tf.json', content: '{"a": }' }])).toThrow('modules/x/bad.tf.json:1: invalid JSON: unexpected `}`.');
    expect(() => readTemplateConfig([{ path: 'bad.tf', content: 'resource "a" "b" {\n' }])).toThrow('bad.tf:1: expected a closing `}` of a block but found the end of the file.');
  });

  test('syntaxOf tells the four Terraform file kinds from data files', () => {
    expect(['a.tf', 'a.tf.json', 'a.tftest.hcl', 'a.tfmock.hcl', 'a.tfvars', 'a.hcl', 'a.json', 'tf'].map((p) => syntaxOf(p))).toEqual([
      { syntax: 'native', dialect: 'config' },
      { syntax: 'json' },
      { syntax: 'native', dialect: 'test' },
      { syntax: 'native', dialect: 'mock' },
      { syntax: 'other' },
      { syntax: 'other' },
      { syntax: 'other' },
      { syntax: 'other' },
    ]);
  });
});
