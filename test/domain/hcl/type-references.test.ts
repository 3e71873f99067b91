import { lexHcl } from '../../../src/domain/hcl/lexer';
import { findTypeReferences, type ReferenceScanOptions } from '../../../src/domain/hcl/type-references';

/** What the rewrite would rename in one expression: `mode type context @line offset`. */
function found(source: string, opts: ReferenceScanOptions = {}): string[] {
  const tokens = lexHcl(source, 'main.tf', { mode: 'expression' });
  return findTypeReferences(tokens, 0, tokens.length, opts).map((o) => {
    expect(source.slice(o.start, o.end)).toBe(o.type);
    return `${o.mode} ${o.type} ${o.context} @${o.line}:${o.start}`;
  });
}

const rewritten = (path: readonly string[]): boolean => path.join('/') === 'app' || path.join('/') === 'a/b';

describe('findTypeReferences', () => {
  test.each<[string, string, string[], ReferenceScanOptions]>([
    ['a resource and a data source traversal', 'kubernetes_pod.main.id + data.kubernetes_secret.s.data', ['managed kubernetes_pod reference @1:0', 'data kubernetes_secret reference @1:30'], {}],
    ['a type on a later line, in brackets, a call and a template', 'f(\n  [kubernetes_pod.a[0].id], "${kubernetes_service.b.x}")', ['managed kubernetes_pod reference @2:6', 'managed kubernetes_service reference @2:34'], {}],
    ['not a type: attribute access, provider functions, versioned and unknown types, no name after it', 'local.kubernetes_pod.a + module.kubernetes_pod.out + provider::kubernetes::kubernetes_pod.a + kubernetes_pod_v1.a.b + kubernetes_pod + kubernetes_pod[0] + kubernetes_pod.0 + foo.bar', [], {}],
    ['a data source needs `data.T.name`', 'data.kubernetes_secret + data.kubernetes_secret.s + data.kubernetes_secret[0].x + data.coder_workspace.me', ['data kubernetes_secret reference @1:30'], {}],
    ['an object key is not a reference, its value is', '{ kubernetes_pod = kubernetes_pod.a.id, "kubernetes_pod.b" = 1 }', ['managed kubernetes_pod reference @1:19'], {}],
    ['a `for` variable hides the type in the body, not in the collection', '[for kubernetes_pod in kubernetes_pod.all.items : kubernetes_pod.x.name]', ['managed kubernetes_pod reference @1:23'], {}],
    ['a `?:` inside the collection does not end it', '[for kubernetes_pod in c ? x : kubernetes_pod.b.items : kubernetes_pod.y.z]', ['managed kubernetes_pod reference @1:31'], {}],
    ['an object `for` with key and value names; the names hide only inside', '{for k, kubernetes_secret in x : k => kubernetes_secret.a.b} + kubernetes_secret.c.d', ['managed kubernetes_secret reference @1:63'], {}],
    ['a `for` scope ends at its bracket, not before', '[for kubernetes_pod in xs : kubernetes_pod.a] + kubernetes_pod.b.c', ['managed kubernetes_pod reference @1:48'], {}],
    ['a call or a template inside a `for` does not end its scope', '{for k, kubernetes_pod in f(x) : k => "${kubernetes_pod.a.b}" if kubernetes_pod.c.d}', [], {}],
    ['a traversal between `?` and `:` in the collection', '[for kubernetes_pod in c ? x.y : kubernetes_pod.b.items : kubernetes_pod.z.w]', ['managed kubernetes_pod reference @1:33'], {}],
    ['parentheses do not start a `for`', '(for) + kubernetes_pod.a.b', ['managed kubernetes_pod reference @1:8'], {}],
    [
      'a `%{ for }` directive hides its names until `%{ endfor }`, also with a strip marker',
      '"%{~ for kubernetes_pod in xs }${kubernetes_pod.a.b}%{ endfor }${kubernetes_pod.c.d}%{ for x in kubernetes_service.e.f }%{ endfor }"',
      ['managed kubernetes_pod reference @1:65', 'managed kubernetes_service reference @1:96'],
      {},
    ],
    ['names bound by an enclosing dynamic block', 'kubernetes_pod.a.b + kubernetes_service.c.d', ['managed kubernetes_service reference @1:21'], { shadowed: new Set(['kubernetes_pod']) }],
    ['an address names its context', 'kubernetes_pod.a', ['managed kubernetes_pod address @1:0'], { address: true }],
    [
      'an address inside a rewritten module, also through an indexed call',
      'module.app.kubernetes_pod.x + module.a[0].module.b.kubernetes_service.y + module.other.kubernetes_pod.z + module.app + module.app.module.c.kubernetes_pod.w',
      ['managed kubernetes_pod address @1:11', 'managed kubernetes_service address @1:51'],
      { address: true, moduleIsRewritten: rewritten },
    ],
    ['a module address without the callback is not rewritten', 'module.app.kubernetes_pod.x', [], { address: true }],
    ['module addresses are not followed outside address attributes', 'module.app.kubernetes_pod.x', [], { moduleIsRewritten: rewritten }],
    [
      'the legacy quoted form of depends_on',
      '["kubernetes_deployment.main", "data.kubernetes_secret.s", "kubernetes_deployment_v1.a", "kubernetes_pod"]',
      ['managed kubernetes_deployment address @1:2', 'data kubernetes_secret address @1:37'],
      { legacyQuoted: true },
    ],
    ['a quoted address without the legacy option is a plain string', '["kubernetes_deployment.main"]', [], {}],
  ])('%s', (_title, source, expected, opts) => {
    expect(found(source, opts)).toEqual(expected);
  });

  test('only the token range asked for is scanned', () => {
    const source = 'kubernetes_pod.a.b + kubernetes_service.c.d + kubernetes_secret.e.f';
    const tokens = lexHcl(source, 'main.tf', { mode: 'expression' });
    const from = tokens.findIndex((t) => t.text === 'kubernetes_service');
    const to = tokens.findIndex((t) => t.text === 'kubernetes_secret');
    expect(findTypeReferences(tokens, from, to).map((o) => o.type)).toEqual(['kubernetes_service']);
  });
});
