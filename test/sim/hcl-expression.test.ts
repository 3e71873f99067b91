import { evaluateHclExpression, UNRESOLVED } from '../../src/sim/hcl-expression';

const refs: Record<string, unknown> = {
  'data.coder_workspace.me.owner': 'Alice',
  'data.coder_workspace.me.name': 'Dev-1',
  'data.coder_workspace.me.start_count': 1,
  'data.coder_parameter.code_server.value': 'true',
  'data.coder_parameter.ide.value': 'vscs',
  'var.namespace': 'coder',
  'local.labels': { team: 'a' },
  'kubernetes_persistent_volume_claim.home.metadata': [{ name: 'coder-x-home' }],
};
const resolve = (path: readonly string[]) => {
  for (const [k, v] of Object.entries(refs)) {
    const parts = k.split('.');
    if (path.length >= parts.length && parts.every((p, i) => p === path[i])) {
      let value: unknown = v;
      for (const step of path.slice(parts.length)) value = Array.isArray(value) ? value[Number(step)] : (value as Record<string, unknown> | undefined)?.[step];
      return value;
    }
  }
  return undefined;
};

describe('the simulator evaluates the HCL expressions real Coder templates use', () => {
  test.each([
    ['lower(data.coder_workspace.me.owner)', 'alice'],
    ['"coder-${x}"', UNRESOLVED],
    ['upper(lower(data.coder_workspace.me.name))', 'DEV-1'],
    ['data.coder_parameter.code_server.value ? 1 : 0', 1],
    ['data.coder_parameter.ide.value != "nocs" ? 1 : 0', 1],
    ['data.coder_parameter.ide.value == "nocs" ? 1 : 0', 0],
    ['data.coder_workspace.me.start_count * 2', 2],
    ['!(data.coder_workspace.me.start_count > 0)', false],
    ['replace(data.coder_workspace.me.name, "-", "_")', 'Dev_1'],
    ['join("-", ["a", var.namespace])', 'a-coder'],
    ['kubernetes_persistent_volume_claim.home.metadata.0.name', 'coder-x-home'],
    ['kubernetes_persistent_volume_claim.home.metadata[0].name', 'coder-x-home'],
    ['local.labels["team"]', 'a'],
    ['tobool("true") && true', true],
    ['format("%s-%d", "ws", 3)', 'ws-3'],
    ['substr("abcdef", 1, 3)', 'bcd'],
    ['length(jsondecode("[1,2,3]"))', 3],
    ['coalesce("", var.namespace)', 'coder'],
  ])('%s', (src, expected) => {
    expect(evaluateHclExpression(src, resolve)).toEqual(expected);
  });

  test('what it cannot evaluate is UNRESOLVED, never a guess', () => {
    for (const src of ['var.missing', 'no_such_function(1)', 'lower(var.missing)', '1 +', 'a ? b', 'data.coder_parameter.ide.value ? ']) {
      expect(evaluateHclExpression(src, resolve)).toBe(UNRESOLVED);
    }
  });
});
