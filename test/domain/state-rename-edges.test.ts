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

/**
 * Shapes met in real public states (docs/real-templates.md, round 3), each in a minimal state of
 * its own: the output must be the input with exactly the listed string tokens and the serial changed.
 */
describe('the state rename on shapes of real public states', () => {
  const expectOnly = (input: string, output: string, changes: [string, string][]): void => {
    let expected = input.replace('"serial": 4,', '"serial": 5,');
    for (const [from, to] of changes) {
      expect(expected).toContain(from);
      expected = expected.replace(from, to);
    }
    expect(output).toBe(expected);
  };

  test('Terraform 0.12: legacy provider strings, "each", provider 1.x schema_version 0 and the legacy instance "depends_on" are kept as written', () => {
    // Terraform 0.12 wrote `depends_on` in instances; 0.13 and later ignore it and drop it on their next write.
    const input = state([
      {
        module: 'module.k8s',
        mode: 'managed',
        type: 'kubernetes_replication_controller',
        name: 'rc',
        each: 'list',
        provider: 'module.k8s.provider.kubernetes',
        instances: [{ index_key: 0, schema_version: 0, attributes: { id: 'default/rc' }, private: 'bnVsbA==', depends_on: ['kubernetes_service.svc'] }],
      },
      { module: 'module.k8s', mode: 'managed', type: 'kubernetes_service', name: 'svc', provider: 'module.k8s.provider.kubernetes', instances: [{ schema_version: 0, attributes: { id: 'default/svc' } }] },
    ]);
    const { stateText, report } = renameStateTypes(input);
    expectOnly(input, stateText, [
      ['"type": "kubernetes_replication_controller"', '"type": "kubernetes_replication_controller_v1"'],
      ['"type": "kubernetes_service"', '"type": "kubernetes_service_v1"'],
    ]);
    expect(report.counts).toEqual({ resources: 2, instances: 2, dependencies: 0, checkResults: 0 });
  });

  test('an OpenTofu state (registry.opentofu.org provider address) is renamed like a Terraform one', () => {
    const input = state([{ ...resource('kubernetes_namespace', 'envoy'), provider: 'provider["registry.opentofu.org/hashicorp/kubernetes"]' }]);
    expectOnly(input, renameStateTypes(input).stateText, [['"type": "kubernetes_namespace"', '"type": "kubernetes_namespace_v1"']]);
  });

  test('a dependency on a deprecated type no longer in the state (a registry module dropped it) is renamed, and the state is not "already migrated"', () => {
    const input = state([resource('aws_eks_node_group', 'ng', [{ schema_version: 0, attributes: { id: 'ng' }, dependencies: ['module.eks.kubernetes_config_map.aws_auth'] }])]);
    const { stateText, report } = renameStateTypes(input);
    expectOnly(input, stateText, [['"module.eks.kubernetes_config_map.aws_auth"', '"module.eks.kubernetes_config_map_v1.aws_auth"']]);
    expect(report).toMatchObject({ alreadyMigrated: false, renamed: [], counts: { resources: 0, instances: 0, dependencies: 1, checkResults: 0 } });
  });

  test('Terraform 1.12+ identity on a renamed resource and a data source with identity_schema_version 0 and no identity stay byte for byte', () => {
    const input = state([
      resource('kubernetes_role', 'vault', [
        {
          schema_version: 0,
          attributes: { id: 'vault/vault' },
          sensitive_attributes: [],
          identity_schema_version: 1,
          identity: { api_version: 'rbac.authorization.k8s.io/v1', kind: 'Role', name: 'vault', namespace: 'vault' },
          private: 'bnVsbA==',
        },
      ]),
      resource('kubernetes_namespace', 'vault', [{ schema_version: 0, attributes: { id: 'vault' }, sensitive_attributes: [], identity_schema_version: 0 }], 'data'),
    ]);
    expectOnly(input, renameStateTypes(input).stateText, [
      ['"type": "kubernetes_role"', '"type": "kubernetes_role_v1"'],
      ['"type": "kubernetes_namespace"', '"type": "kubernetes_namespace_v1"'],
    ]);
  });

  test("a check block's scoped data source is renamed as a data source; the check's own result keeps its address", () => {
    const checks = [{ object_kind: 'check', config_addr: 'check.ns_exists', status: 'pass', objects: [{ object_addr: 'check.ns_exists', status: 'pass' }] }];
    const input = state([resource('kubernetes_namespace', 'probe', undefined, 'data'), resource('kubernetes_namespace', 'ws')], 4, { check_results: checks });
    const { stateText, report } = renameStateTypes(input);
    expectOnly(input, stateText, [
      ['"type": "kubernetes_namespace"', '"type": "kubernetes_namespace_v1"'],
      ['"type": "kubernetes_namespace"', '"type": "kubernetes_namespace_v1"'],
    ]);
    expect(report.renamed.map((c) => c.to)).toEqual(['data.kubernetes_namespace_v1.probe', 'kubernetes_namespace_v1.ws']);
    expect(report.counts.checkResults).toBe(0);
  });
});
