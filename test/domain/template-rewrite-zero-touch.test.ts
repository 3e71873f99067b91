import { rewriteTemplate, ZeroTouchRefusedError } from '../../src/domain/template-rewrite';
import { admitsTerraform17, DEFAULT_ZERO_TOUCH_FILE_NAME } from '../../src/domain/hcl/zero-touch-blocks';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';

const zeroTouchFile = (files: { path: string; content: string }[]): string => files.find((f) => f.path === DEFAULT_ZERO_TOUCH_FILE_NAME)?.content ?? '';
const rewrite = (main: string) => rewriteTemplate([{ path: 'main.tf', content: main }], { zeroTouch: true });
const refusal = (main: string): string => {
  try {
    rewrite(main);
  } catch (e) {
    if (e instanceof ZeroTouchRefusedError) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
};

const pvc = (name: string, namespace = 'var.namespace', extra = '') => `
resource "kubernetes_persistent_volume_claim" "home" {
  ${extra}
  metadata {
    name      = ${name}
    namespace = ${namespace}
  }
  spec {}
}
`;

describe('template rewrite --zero-touch', () => {
  test('the seeded template gets, per renamed resource, a lookup, removed{destroy=false} and a conditional import (start_count guard and [0] when counted)', () => {
    const { files, report } = rewrite(K8S_TEMPLATE_MAIN_TF);
    const zt = zeroTouchFile(files);
    expect(report.zeroTouch).toEqual([
      { from: 'kubernetes_persistent_volume_claim.home', to: 'kubernetes_persistent_volume_claim_v1.home', kind: 'PersistentVolumeClaim' },
      { from: 'kubernetes_deployment.main', to: 'kubernetes_deployment_v1.main[0]', kind: 'Deployment' },
    ]);
    expect(report.guards).toEqual([]);
    expect(files.some((f) => f.path === 'wsmigrate_guards.tf')).toBe(false);
    expect(zt).toContain('required_version = ">= 1.7.0"');
    expect(zt).toContain(
      [
        'data "kubernetes_resources" "kubernetes_persistent_volume_claim_v1_home" {',
        '  api_version    = "v1"',
        '  kind           = "PersistentVolumeClaim"',
        '  namespace      = var.namespace',
        '  field_selector = "metadata.name=coder-${data.coder_workspace.me.id}-home"',
        '}',
        '',
        'removed {',
        '  from = kubernetes_persistent_volume_claim.home',
        '  lifecycle {',
        '    destroy = false',
        '  }',
        '}',
        '',
        'import {',
        '  for_each = length(data.kubernetes_resources.kubernetes_persistent_volume_claim_v1_home.objects) > 0 ? toset(["home"]) : toset([])',
        '  to       = kubernetes_persistent_volume_claim_v1.home',
        '  id       = "${var.namespace}/coder-${data.coder_workspace.me.id}-home"',
        '}',
      ].join('\n'),
    );
    expect(zt).toContain(
      '  for_each = data.coder_workspace.me.start_count > 0 && length(data.kubernetes_resources.kubernetes_deployment_v1_main.objects) > 0 ? toset(["main"]) : toset([])\n' +
        '  to       = kubernetes_deployment_v1.main[0]\n',
    );
    expect(zt).toContain('  api_version    = "apps/v1"\n  kind           = "Deployment"');
    expect(files.find((f) => f.path === 'main.tf')!.content).toContain('resource "kubernetes_deployment_v1" "main"');
  });

  test('a rerun on the rewritten template keeps the zero-touch file and never renames its old addresses', () => {
    const first = rewrite(K8S_TEMPLATE_MAIN_TF).files;
    const second = rewriteTemplate(first, { zeroTouch: true });
    expect(second.report.unchanged).toBe(true);
    expect(zeroTouchFile(second.files)).toBe(zeroTouchFile(first));
    expect(zeroTouchFile(second.files)).toContain('from = kubernetes_deployment.main');
  });

  test('a count expression other than a plain reference is parenthesised; a namespace left out is "default"', () => {
    const { files } = rewrite(`resource "kubernetes_config_map" "c" {
  count = var.on ? 1 : 0
  metadata {
    name = "cfg"
  }
}
`);
    expect(zeroTouchFile(files)).toContain('for_each = (var.on ? 1 : 0) > 0 && length(');
    expect(zeroTouchFile(files)).toContain('id       = "default/cfg"');
    expect(zeroTouchFile(files)).toContain('namespace      = "default"');
  });

  test('a cluster-scoped object is imported by its name alone', () => {
    const { files } = rewrite(`resource "kubernetes_namespace" "ns" {\n  metadata {\n    name = "team-\${local.team}"\n  }\n}\n`);
    expect(zeroTouchFile(files)).toContain('id       = "team-${local.team}"');
    expect(zeroTouchFile(files)).not.toContain('namespace      =');
  });

  test('refuses, naming the resource, a name or namespace only known after apply; data.coder_*, var and local are fine', () => {
    expect(refusal(pvc('"home-${random_string.suffix.result}"'))).toMatch(/main\.tf:2: kubernetes_persistent_volume_claim\.home: its metadata\.name uses random_string\.suffix.*after apply/);
    expect(refusal(pvc('"home"', 'kubernetes_namespace_v1.ws.metadata[0].name'))).toMatch(/kubernetes_persistent_volume_claim\.home: its metadata\.namespace uses kubernetes_namespace_v1\.ws/);
    expect(refusal(pvc('"home"', 'data.kubernetes_namespace_v1.ns.metadata[0].name'))).toMatch(/metadata\.namespace uses data\.kubernetes_namespace_v1\.ns/);
    expect(refusal(pvc('"home"', '"default"', 'for_each = var.names'))).toMatch(/for_each/);
    expect(() => rewrite(pvc('"home-${lower(data.coder_workspace_owner.me.name)}-${local.x}"'))).not.toThrow();
    // Nothing is half-written: the refusal is an exception, not a report.
  });

  test('refuses a template whose required_version rules out Terraform 1.7', () => {
    const template = (c: string) => `terraform {\n  required_version = "${c}"\n}\n${pvc('"home"')}`;
    expect(refusal(template('~> 1.6.0'))).toMatch(/main\.tf:2: required_version = "~> 1\.6\.0" rules out Terraform 1\.7/);
    expect(refusal(template('< 1.7'))).toMatch(/rules out Terraform 1\.7/);
    expect(() => rewrite(template('>= 1.3'))).not.toThrow();
    expect(() => rewrite(template('~> 1.5'))).not.toThrow();
  });

  test('admitsTerraform17 reads Terraform constraint syntax', () => {
    expect(admitsTerraform17('>= 1.0, < 2.0')).toBe(true);
    expect(admitsTerraform17('1.6.6')).toBe(false);
    expect(admitsTerraform17('= 1.9.2')).toBe(true);
    expect(admitsTerraform17('~> 1.7.0')).toBe(true);
    expect(admitsTerraform17('<= 1.6.99')).toBe(false);
    expect(admitsTerraform17('~> 0.14')).toBe(false);
  });

  test('without --zero-touch nothing changes: guard file, no zero-touch file', () => {
    const { files, report } = rewriteTemplate([{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    expect(report.zeroTouch).toBeUndefined();
    expect(zeroTouchFile(files)).toBe('');
    expect(report.guards).toEqual([{ from: 'kubernetes_persistent_volume_claim.home' }]);
  });
});
