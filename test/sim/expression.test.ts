import { evaluateStrict, evaluateValue, referencedResources } from '../../src/sim/expression';

const values: Record<string, unknown> = {
  'data.coder_workspace.me.id': 'ws-1',
  'data.coder_workspace.me.start_count': 1,
  'var.namespace': 'coder',
  'kubernetes_persistent_volume_claim.home.metadata.0.name': 'coder-ws-1-home',
};
const resolve = (path: readonly string[]) => values[path.join('.')];

describe("the simulator's HCL expression evaluation", () => {
  test('interpolations inside strings, whole-expression values keep their type', () => {
    expect(evaluateValue('coder-${data.coder_workspace.me.id}-home', resolve)).toBe('coder-ws-1-home');
    expect(evaluateValue('${data.coder_workspace.me.start_count}', resolve)).toBe(1);
    expect(evaluateValue({ a: ['${var.namespace}', 2, true] }, resolve)).toEqual({ a: ['coder', 2, true] });
  });

  test('index forms [0] and .0 resolve to the same path', () => {
    expect(evaluateValue('${kubernetes_persistent_volume_claim.home.metadata[0].name}', resolve)).toBe('coder-ws-1-home');
    expect(evaluateValue('${kubernetes_persistent_volume_claim.home.metadata.0.name}', resolve)).toBe('coder-ws-1-home');
  });

  test('what cannot be evaluated stays as its source text and is reported as unresolved', () => {
    expect(evaluateStrict('x-${sha512(var.namespace)}', resolve)).toEqual({ value: 'x-${sha512(var.namespace)}', unresolved: ['sha512(var.namespace)'] });
    expect(evaluateStrict('$${literal}', resolve)).toEqual({ value: '${literal}', unresolved: [] });
  });

  test('referenced resources are found, data/var/local roots are not', () => {
    expect(referencedResources({ a: '${kubernetes_persistent_volume_claim.home.metadata.0.name}', b: '${data.coder_workspace.me.id}', c: ['${coder_agent.main.token}'] }).sort()).toEqual([
      'coder_agent.main',
      'kubernetes_persistent_volume_claim.home',
    ]);
  });
});
