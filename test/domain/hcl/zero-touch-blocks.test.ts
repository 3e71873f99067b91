import { blocksOfType } from '../../../src/domain/hcl/body-parser';
import { parseHclFile } from '../../../src/domain/hcl/native-occurrences';
import {
  admitsTerraform17,
  isZeroTouchFile,
  renderZeroTouchFile,
  requiredVersions,
  zeroTouchTarget,
  ZERO_TOUCH_HEADER,
  type ZeroTouchTarget,
} from '../../../src/domain/hcl/zero-touch-blocks';

/** The target (or the refusal) for the first resource of a one-resource snippet, renamed to `newType`. */
function target(body: string, newType = 'kubernetes_persistent_volume_claim_v1', oldType = 'kubernetes_persistent_volume_claim'): ZeroTouchTarget | { reason: string } {
  const source = `resource "${oldType}" "home" {\n${body}\n}\n`;
  const parsed = parseHclFile('main.tf', source, 'config');
  return zeroTouchTarget(parsed, blocksOfType(parsed.items, 'resource')[0], oldType, newType, 'home');
}

const AFTER_APPLY = (what: string, ref: string): string =>
  `its ${what} uses ${ref}, which Terraform only knows after apply: the import lookup would fail with "Invalid for_each argument". ` +
  'Use variables, locals or data.coder_* values for the name, or migrate this template with the runbook';

describe('zeroTouchTarget', () => {
  test('a counted PVC named from coder data and variables: the addresses, the lookup and the import id', () => {
    expect(
      target(
        [
          '  count = data.coder_workspace.me.start_count',
          '  metadata {',
          '    name      = "coder-${lower(data.coder_workspace_owner.me.name)}-${var.x}"  # the name',
          '    namespace = var.namespace',
          '  }',
        ].join('\n'),
      ),
    ).toEqual({
      from: 'kubernetes_persistent_volume_claim.home',
      to: 'kubernetes_persistent_volume_claim_v1.home[0]',
      newType: 'kubernetes_persistent_volume_claim_v1',
      name: 'home',
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      nameExpr: '"coder-${lower(data.coder_workspace_owner.me.name)}-${var.x}"',
      nameTemplate: 'coder-${lower(data.coder_workspace_owner.me.name)}-${var.x}',
      namespaceExpr: 'var.namespace',
      namespaceTemplate: '${var.namespace}',
      countExpr: 'data.coder_workspace.me.start_count',
    });
  });

  test.each<[string, string, string, Partial<ZeroTouchTarget>]>([
    ['a namespaced kind without a namespace is in "default"', 'metadata {\n name = local.n\n}', 'kubernetes_secret_v1', { namespaceExpr: '"default"', namespaceTemplate: 'default', nameTemplate: '${local.n}', to: 'kubernetes_secret_v1.home', countExpr: undefined }],
    ['a cluster-scoped kind has no namespace, even when one is written', 'metadata {\n name = "n"\n namespace = "x"\n}', 'kubernetes_namespace_v1', { namespaceExpr: undefined, namespaceTemplate: undefined, apiVersion: 'v1', kind: 'Namespace' }],
    ['an expression joining strings becomes one interpolation, spaces kept', 'metadata {\n name = "a-${var.b}" != "" ? "x" : "y"\n}', 'kubernetes_role_v1', { nameExpr: '"a-${var.b}" != "" ? "x" : "y"', nameTemplate: '${"a-${var.b}" != "" ? "x" : "y"}', apiVersion: 'rbac.authorization.k8s.io/v1' }],
    ['a provider function and keywords are known at plan', 'metadata {\n name = provider::kubernetes::manifest_encode(true ? null : false)\n}', 'kubernetes_service_v1', { nameTemplate: '${provider::kubernetes::manifest_encode(true ? null : false)}' }],
    ['a name and a generate_name together: the name counts', 'metadata {\n generate_name = "x-"\n name = path.module\n}', 'kubernetes_job_v1', { nameExpr: 'path.module', apiVersion: 'batch/v1', kind: 'Job' }],
    ['a single token that is no string becomes an interpolation', 'metadata {\n name = 42\n}', 'kubernetes_config_map_v1', { nameExpr: '42', nameTemplate: '${42}' }],
    ['a count with an operator', 'count = var.on ? 1 : 0\nmetadata {\n name = terraform.workspace\n}', 'kubernetes_cron_job_v1', { countExpr: 'var.on ? 1 : 0', to: 'kubernetes_cron_job_v1.home[0]' }],
  ])('%s', (_title, body, newType, expected) => {
    expect(target(body, newType)).toMatchObject(expected);
  });

  test.each<[string, string, string, string]>([
    ['a kind wsmigrate does not know', 'metadata {\n name = "n"\n}', 'wsmigrate does not know which Kubernetes kind kubernetes_manifest_v1 manages, so it cannot look the object up', 'kubernetes_manifest_v1'],
    ['for_each', 'for_each = var.names\nmetadata {\n name = each.key\n}', 'it uses for_each; zero-touch handles single and count = start_count resources only', 'kubernetes_persistent_volume_claim_v1'],
    ['no metadata block', 'spec {}', 'it has no metadata block', 'kubernetes_persistent_volume_claim_v1'],
    ['a metadata block without a name', 'metadata {\n namespace = "x"\n}', 'its metadata has no name', 'kubernetes_persistent_volume_claim_v1'],
    ['a generated name', 'metadata {\n generate_name = "coder-"\n}', 'its name comes from generate_name, which is chosen by the API server at apply', 'kubernetes_persistent_volume_claim_v1'],
    ['a name from another resource', 'metadata {\n name = "x-${random_id.home.hex}"\n}', AFTER_APPLY('metadata.name', 'random_id.home'), 'kubernetes_persistent_volume_claim_v1'],
    ['a name from a resource whose name starts like coder\'s data sources', 'metadata {\n name = random_id.coder_home.hex\n}', AFTER_APPLY('metadata.name', 'random_id.coder_home'), 'kubernetes_persistent_volume_claim_v1'],
    ['a name from a function of another resource', 'metadata {\n name = lower(kubernetes_namespace.ns.metadata[0].name)\n}', AFTER_APPLY('metadata.name', 'kubernetes_namespace.ns'), 'kubernetes_persistent_volume_claim_v1'],
    ['a namespace from another resource', 'metadata {\n name = "n"\n namespace = kubernetes_namespace_v1.ns.id\n}', AFTER_APPLY('metadata.namespace', 'kubernetes_namespace_v1.ns'), 'kubernetes_persistent_volume_claim_v1'],
    ['a name from a data source other than coder\'s', 'metadata {\n name = data.http.me.body\n}', AFTER_APPLY('metadata.name', "data.http.me (a data source other than coder's is read at plan only when none of its inputs is computed)"), 'kubernetes_persistent_volume_claim_v1'],
    ['a name from a data source without a name after it', 'metadata {\n name = data.x\n}', AFTER_APPLY('metadata.name', "data.x (a data source other than coder's is read at plan only when none of its inputs is computed)"), 'kubernetes_persistent_volume_claim_v1'],
    ['a count known only after apply', 'count = length(kubernetes_pod.other)\nmetadata {\n name = "n"\n}', 'its count is only known after apply', 'kubernetes_persistent_volume_claim_v1'],
  ])('refuses %s', (_title, body, reason, newType) => {
    expect(target(body, newType)).toEqual({ reason });
  });
});

describe('renderZeroTouchFile', () => {
  const pvc: ZeroTouchTarget = {
    from: 'kubernetes_persistent_volume_claim.home',
    to: 'kubernetes_persistent_volume_claim_v1.home[0]',
    newType: 'kubernetes_persistent_volume_claim_v1',
    name: 'home',
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    nameExpr: '"coder-${var.id}"',
    nameTemplate: 'coder-${var.id}',
    namespaceExpr: 'var.namespace',
    namespaceTemplate: '${var.namespace}',
    countExpr: 'data.coder_workspace.me.start_count',
  };
  const ns: ZeroTouchTarget = {
    from: 'kubernetes_namespace.ns',
    to: 'kubernetes_namespace_v1.ns',
    newType: 'kubernetes_namespace_v1',
    name: 'ns',
    apiVersion: 'v1',
    kind: 'Namespace',
    nameExpr: 'local.ns',
    nameTemplate: '${local.ns}',
    namespaceExpr: undefined,
    namespaceTemplate: undefined,
    countExpr: undefined,
  };

  test('one lookup, removed and import per target, sorted by old address, exactly', () => {
    const text = renderZeroTouchFile([pvc, ns, { ...pvc, from: 'kubernetes_secret.s', to: 'kubernetes_secret_v1.s[0]', newType: 'kubernetes_secret_v1', name: 's', kind: 'Secret', countExpr: 'var.on ? 1 : 0' }]);
    const blocks = text.split('\n\n');
    expect(blocks[0]).toBe(
      [
        ZERO_TOUCH_HEADER,
        '#',
        '# Each workspace still on the deprecated types migrates itself at its next build: per renamed',
        '# resource, Terraform forgets the old address (removed, destroy = false) and, when the lookup',
        '# finds the live object during plan, imports it into the _v1 address (same object, same uid).',
        '# New workspaces find nothing and create the object; migrated ones have it in state already.',
        '# Never build a migrated workspace with a pre-migration version: that destroys the volume.',
        '# Delete this file once every workspace of this template has been built with this version.',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        'terraform {\n  required_version = ">= 1.7.0"\n}',
        'data "kubernetes_resources" "kubernetes_namespace_v1_ns" {\n  api_version    = "v1"\n  kind           = "Namespace"\n  field_selector = "metadata.name=${local.ns}"\n}',
        'removed {\n  from = kubernetes_namespace.ns\n  lifecycle {\n    destroy = false\n  }\n}',
        'import {\n  for_each = length(data.kubernetes_resources.kubernetes_namespace_v1_ns.objects) > 0 ? toset(["ns"]) : toset([])\n  to       = kubernetes_namespace_v1.ns\n  id       = "${local.ns}"\n}',
        'data "kubernetes_resources" "kubernetes_persistent_volume_claim_v1_home" {\n  api_version    = "v1"\n  kind           = "PersistentVolumeClaim"\n  namespace      = var.namespace\n  field_selector = "metadata.name=coder-${var.id}"\n}',
        'removed {\n  from = kubernetes_persistent_volume_claim.home\n  lifecycle {\n    destroy = false\n  }\n}',
        'import {\n  for_each = data.coder_workspace.me.start_count > 0 && length(data.kubernetes_resources.kubernetes_persistent_volume_claim_v1_home.objects) > 0 ? toset(["home"]) : toset([])\n  to       = kubernetes_persistent_volume_claim_v1.home[0]\n  id       = "${var.namespace}/coder-${var.id}"\n}',
        'data "kubernetes_resources" "kubernetes_secret_v1_s" {',
      ].join('\n\n'),
    );
    expect(text).toContain('  for_each = (var.on ? 1 : 0) > 0 && length(data.kubernetes_resources.kubernetes_secret_v1_s.objects) > 0 ? toset(["s"]) : toset([])\n');
    expect(text.endsWith('  id       = "${var.namespace}/coder-${var.id}"\n}\n')).toBe(true);
    expect(isZeroTouchFile(text)).toBe(true);
  });

  test('a target whose removed block a guard file has already gets only its lookup and import', () => {
    const text = renderZeroTouchFile([pvc, ns], new Set(['kubernetes_persistent_volume_claim.home']));
    expect(text.match(/^removed \{$/gm)).toHaveLength(1);
    expect(text).toContain('removed {\n  from = kubernetes_namespace.ns\n');
    expect(text).toContain('}\n\nimport {\n  for_each = data.coder_workspace.me.start_count > 0');
  });

  test('isZeroTouchFile reads the first line only, past a byte order mark', () => {
    expect(isZeroTouchFile(`\uFEFF${ZERO_TOUCH_HEADER}\n`)).toBe(true);
    expect(isZeroTouchFile(`# x\n${ZERO_TOUCH_HEADER}\n`)).toBe(false);
    expect(isZeroTouchFile(`x\uFEFF${ZERO_TOUCH_HEADER}`)).toBe(false);
  });
});

describe('admitsTerraform17', () => {
  test.each<[string, boolean]>([
    ['>= 1.7.0', true],
    ['>= 1.3', true],
    ['~> 1.6', true],
    ['~> 1.6.0', false],
    ['~> 1.7.2', true],
    ['~> 2.0', true],
    ['~> 0.14', false],
    ['< 1.7', false],
    ['< 1.7.1', true],
    ['<= 1.7.0', true],
    ['<= 1.6.99', false],
    ['> 1.6.99', true],
    ['> 1.20.99', true],
    ['= 1.7.0', true],
    ['1.9.4', true],
    ['1.5.7', false],
    ['v1.8.0', true],
    ['!= 1.7.0', true],
    ['>= 1.0, < 1.7', false],
    ['>= 1.0.0,< 1.8.0', true],
    ['>=1.6, !=1.7.0, <1.7.1', false],
    ['= 1.20.0', true],
    ['= 1.21.0', true],
    ['= 2.1.0', true],
    ['', true],
    ['>= latest', true],
    ['< 1.7,', false],
    ['x < 1.7', true],
    ['< 10.0', true],
    ['1.6', false],
    ['= 1.6', false],
    ['< 1.7, latest', true],
    ['> 2.0.0', true],
    ['!= 1.8.0, <= 1.8.0', true],
    ['> 1.7.0, < 1.7.1', false],
    ['>= 1.8, < 1.8', false],
    ['<= 1.8, >= 1.8.1', false],
    ['~> 1.8, < 1.8', false],
    ['~> 1.8.0, < 1.8.1', true],
    ['~> 1.8.0, >= 2.8.0', false],
  ])('%j is %s', (constraint, admits) => {
    expect(admitsTerraform17(constraint)).toBe(admits);
  });
});

describe('requiredVersions', () => {
  test('the literal required_version of each terraform block, with its line; an expression is not read', () => {
    const source = 'terraform {\n  required_version = ">= 1.3"\n}\nlocals { required_version = "9" }\nterraform {\n  required_providers {}\n}\nterraform {\n  required_version = var.v\n}\nterraform {\n\n  required_version = "~> 1.8"\n}\n';
    expect(requiredVersions(parseHclFile('versions.tf', source, 'config'))).toEqual([
      { line: 2, value: '>= 1.3' },
      { line: 13, value: '~> 1.8' },
    ]);
  });
});
