import { renameStateTypes, StateRenameError } from '../../src/domain/state-rename';

/** A v4 state of the resources given, each with its instances; the serial given unless `null`. */
function state(resources: unknown[], serial: number | null = 4, more: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 4, terraform_version: '1.11.4', ...(serial === null ? {} : { serial }), lineage: 'l-1', outputs: {}, resources, ...more }, null, 2);
}
const resource = (type: string, name: string, instances: unknown[] = [{ schema_version: 0, attributes: { id: `coder/${name}` } }], mode = 'managed') => ({
  mode,
  type,
  name,
  provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
  instances,
});
const refusal = (text: string): StateRenameError => {
  try {
    renameStateTypes(text);
  } catch (e) {
    if (e instanceof StateRenameError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
};

describe('the state rename at its edges', () => {
  test("a renamed resource's own dependencies on other resources keep their types; one on a renamed type is renamed", () => {
    const text = state([
      resource('kubernetes_secret', 's', [{ schema_version: 0, attributes: { id: 'coder/s' }, dependencies: ['coder_agent.main', 'kubernetes_config_map.c', 'not an address!'] }]),
      resource('kubernetes_config_map', 'c'),
      resource('coder_agent', 'main'),
    ]);
    const { stateText, report } = renameStateTypes(text);
    const out = JSON.parse(stateText) as { resources: { type: string; instances: { dependencies?: string[] }[] }[] };
    expect(out.resources.map((r) => r.type)).toEqual(['kubernetes_secret_v1', 'kubernetes_config_map_v1', 'coder_agent']);
    expect(out.resources[0].instances[0].dependencies).toEqual(['coder_agent.main', 'kubernetes_config_map_v1.c', 'not an address!']);
    expect(report.counts).toEqual({ resources: 2, instances: 2, dependencies: 1, checkResults: 0 });
  });

  test('a resource with no instances is still renamed, reported under its address without a key; a module path is kept', () => {
    const moduled = { ...resource('kubernetes_secret', 'm'), module: 'module.ws' };
    const { report } = renameStateTypes(state([resource('kubernetes_secret', 'empty', []), moduled]));
    expect(report.renamed).toEqual([
      { from: 'kubernetes_secret.empty', to: 'kubernetes_secret_v1.empty' },
      { from: 'module.ws.kubernetes_secret.m', to: 'module.ws.kubernetes_secret_v1.m' },
    ]);
  });

  test("check results are renamed for resources only: another kind's address is left as it is", () => {
    const checks = [
      { object_kind: 'resource', config_addr: 'kubernetes_secret.s', status: 'pass', objects: [{ object_addr: 'kubernetes_secret.s', status: 'pass' }] },
      { object_kind: 'output', config_addr: 'kubernetes_secret.s', status: 'pass', objects: [{ object_addr: 'kubernetes_secret.s', status: 'pass' }] },
    ];
    const { stateText, report } = renameStateTypes(state([resource('kubernetes_secret', 's')], 4, { check_results: checks }));
    const out = JSON.parse(stateText) as { check_results: { config_addr: string; objects: { object_addr: string }[] }[] };
    expect(out.check_results.map((c) => [c.config_addr, c.objects[0].object_addr])).toEqual([
      ['kubernetes_secret_v1.s', 'kubernetes_secret_v1.s'],
      ['kubernetes_secret.s', 'kubernetes_secret.s'],
    ]);
    expect(report.counts.checkResults).toBe(2);
  });

  test('refusals say what is wrong: no serial, one problem without an address, several with theirs', () => {
    const noSerial = refusal(state([resource('kubernetes_secret', 's')], null));
    expect(noSerial).toMatchObject({ name: 'StateRenameError', kind: 'invalid-state', message: 'Cannot rename the state: The state does not have the shape of a Terraform v4 state: serial: missing.' });
    const notJson = refusal('{ not json');
    expect(notJson.kind).toBe('invalid-state');
    expect(notJson.message).toMatch(/^Cannot rename the state: /);
    const two = refusal(state([resource('kubernetes_secret', 'a'), resource('kubernetes_secret_v1', 'a'), resource('kubernetes_ingress', 'web')]));
    expect(two.kind).toBe('refused');
    expect(two.message).toMatch(
      /^Cannot rename the state \(2 problems\):\n {2}- kubernetes_ingress\.web: kubernetes_ingress and kubernetes_ingress_v1 are different implementations \(v1beta1 vs v1 schema; HCL needs restructuring\), so renaming the type would corrupt the state; needs strategy import .*\n {2}- kubernetes_secret\.a: renaming it would collide with kubernetes_secret_v1\.a, which the state already holds/,
    );
  });
});
