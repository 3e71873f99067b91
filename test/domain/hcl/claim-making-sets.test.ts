import { protectedConfigAddresses, protectedDeclarations } from '../../../src/domain/hcl/protect-annotations';
import { readTemplateConfig } from '../../../src/domain/hcl/template-config';
import type { ClassifiedChange } from '../../../src/domain/plan/classify';
import { planGuardVerdict } from '../../../src/domain/plan/guard';
import { detectBuildChanges } from '../../../src/domain/build-changes';
import { rewriteTemplate } from '../../../src/domain/template-rewrite';
import { unguardedProtected } from '../../../src/domain/unguarded-protected';

const file = (path: string, lines: string[]) => ({ path, content: lines.join('\n') + '\n' });

/** A stateful set with one claim template, and `policy` lines inside its spec. */
function statefulSet(type: string, name: string, policy: string[], extra: string[] = []): string[] {
  return [
    `resource "${type}" "${name}" {`,
    '  metadata { name = "ws" }',
    '  spec {',
    '    service_name = "ws"',
    ...policy.map((l) => `    ${l}`),
    '    volume_claim_template {',
    '      metadata { name = "home" }',
    '      spec {',
    '        access_modes = ["ReadWriteOnce"]',
    '        resources { requests = { storage = "10Gi" } }',
    '      }',
    '    }',
    '    template { spec { container { name = "dev" } } }',
    '  }',
    ...extra,
    '}',
  ];
}

describe('a stateful set whose claims Kubernetes deletes with it is protected', () => {
  test('when_deleted = "Delete" protects it; "Retain", no policy, or no claim template does not', () => {
    const files = [
      file('main.tf', [
        ...statefulSet('kubernetes_stateful_set', 'deletes', ['persistent_volume_claim_retention_policy {', '  when_deleted = "Delete"', '  when_scaled  = "Retain"', '}']),
        ...statefulSet('kubernetes_stateful_set_v1', 'retains', ['persistent_volume_claim_retention_policy {', '  when_deleted = "Retain"', '  when_scaled  = "Delete"', '}']),
        ...statefulSet('kubernetes_stateful_set', 'default', []),
        'resource "kubernetes_stateful_set" "no_claims" {',
        '  spec {',
        '    persistent_volume_claim_retention_policy { when_deleted = "Delete" }',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_stateful_set.deletes']);
    const why = protectedDeclarations(readTemplateConfig(files)).map((d) => [`${d.resource.type}.${d.resource.name}`, d.why]);
    expect(why).toEqual([['kubernetes_stateful_set.deletes', 'deletes-its-claims']]);
  });

  test('a policy it cannot read (a variable, an interpolation) counts as Delete: the guard fails closed', () => {
    const files = [
      file('main.tf', [
        ...statefulSet('kubernetes_stateful_set_v1', 'by_var', ['persistent_volume_claim_retention_policy { when_deleted = var.claim_policy }']),
        ...statefulSet('kubernetes_stateful_set_v1', 'by_template', ['persistent_volume_claim_retention_policy { when_deleted = "${var.claim_policy}" }']),
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_stateful_set_v1.by_template', 'kubernetes_stateful_set_v1.by_var']);
  });

  test('dynamic blocks count as the blocks they make', () => {
    const files = [
      file('main.tf', [
        ...statefulSet('kubernetes_stateful_set', 'dyn', [
          'dynamic "persistent_volume_claim_retention_policy" {',
          '  for_each = var.delete_claims ? [1] : []',
          '  content { when_deleted = "Delete" }',
          '}',
        ]),
        'resource "kubernetes_stateful_set" "dyn_template" {',
        '  spec {',
        '    persistent_volume_claim_retention_policy { when_deleted = "Delete" }',
        '    dynamic "volume_claim_template" {',
        '      for_each = var.volumes',
        '      content { metadata { name = volume_claim_template.value } }',
        '    }',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_stateful_set.dyn', 'kubernetes_stateful_set.dyn_template']);
  });

  test('in .tf.json too, and inside a local module under its call\'s prefix', () => {
    const json = {
      resource: {
        kubernetes_stateful_set: {
          deletes: { spec: [{ volume_claim_template: [{ metadata: [{ name: 'home' }] }], persistent_volume_claim_retention_policy: [{ when_deleted: 'Delete' }] }] },
          retains: { spec: { volume_claim_template: { metadata: { name: 'home' } }, persistent_volume_claim_retention_policy: { when_deleted: 'Retain' } } },
          templated: { spec: { volume_claim_template: {}, persistent_volume_claim_retention_policy: { when_deleted: '${var.p}' } } },
        },
      },
    };
    const files = [
      { path: 'main.tf.json', content: JSON.stringify(json, null, 2) },
      file('main.tf', ['module "db" {', '  source = "./db"', '}']),
      file('db/main.tf', statefulSet('kubernetes_stateful_set', 'pg', ['persistent_volume_claim_retention_policy { when_deleted = "Delete" }'])),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_stateful_set.deletes',
      'kubernetes_stateful_set.templated',
      'module.db.kubernetes_stateful_set.pg',
    ]);
  });

  test('a namespace holding a stateful set\'s claims is protected even when the set retains them', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {',
        '  metadata { name = "ws-${data.coder_workspace.me.id}" }',
        '}',
        'resource "kubernetes_namespace" "scratch" {}',
        ...statefulSet('kubernetes_stateful_set', 'dev', [], []).map((l) =>
          l === '  metadata { name = "ws" }' ? '  metadata {\n    name = "ws"\n    namespace = kubernetes_namespace.ws.metadata[0].name\n  }' : l,
        ),
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_namespace.ws']);
  });
});

describe('the template rewrite guards such a set as it guards a claim', () => {
  const files = [
    file('main.tf', [
      ...statefulSet('kubernetes_stateful_set', 'dev', ['persistent_volume_claim_retention_policy { when_deleted = "Delete" }']),
      ...statefulSet('kubernetes_stateful_set', 'cache', []),
    ]),
  ];

  test('reports it as protected and writes a removed { destroy = false } block for its old address only', () => {
    const { files: out, report } = rewriteTemplate(files);
    expect(report.protectedResources).toEqual([{ file: 'main.tf', line: 1, address: 'kubernetes_stateful_set.dev', why: 'deletes-its-claims' }]);
    const guard = out.find((f) => f.path !== 'main.tf');
    expect(guard?.content).toContain('from = kubernetes_stateful_set.dev');
    expect(guard?.content).not.toContain('kubernetes_stateful_set.cache');
    expect(unguardedProtected(out)).toEqual([]);
  });

  test('a _v1 version without that guard is named as missing it', () => {
    const { files: out } = rewriteTemplate(files);
    const withoutGuard = out.filter((f) => f.path === 'main.tf');
    expect(unguardedProtected(withoutGuard)).toEqual(['kubernetes_stateful_set.dev']);
  });
});

describe('a kubernetes_manifest of a PersistentVolumeClaim or PersistentVolume is protected as the claim types are', () => {
  test('read from its object\'s `kind` (bare or quoted key, `=` or `:`), not from a nested kind or another kind', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_manifest" "home" {',
        '  manifest = {',
        '    apiVersion = "v1"',
        '    kind       = "PersistentVolumeClaim"',
        '    metadata   = { name = "home-${data.coder_workspace.me.id}", namespace = var.namespace }',
        '    spec       = { accessModes = ["ReadWriteOnce"], resources = { requests = { storage = "10Gi" } } }',
        '  }',
        '}',
        'resource "kubernetes_manifest" "pv" {',
        '  manifest = { "apiVersion": "v1", "kind": "PersistentVolume" }',
        '}',
        'resource "kubernetes_manifest" "snapshot" {',
        '  manifest = {',
        '    apiVersion = "snapshot.storage.k8s.io/v1"',
        '    kind       = "VolumeSnapshot"',
        '    spec       = { source = { kind = "PersistentVolumeClaim" } }',
        '  }',
        '}',
        'resource "kubernetes_manifest" "from_yaml" {',
        '  manifest = yamldecode(file("${path.module}/pvc.yaml"))',
        '}',
      ]),
      { path: 'more.tf.json', content: JSON.stringify({ resource: { kubernetes_manifest: { cache: { manifest: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' } }, cm: { manifest: { kind: 'ConfigMap' } } } } }) },
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_manifest.cache', 'kubernetes_manifest.home', 'kubernetes_manifest.pv']);
    const why = new Set(protectedDeclarations(readTemplateConfig(files)).map((d) => d.why));
    expect(why).toEqual(new Set(['persistent-kind']));
  });

  test('the plan guard denies its replacement in a start, and the build-log check counts its destroy as a protected loss', () => {
    const files = [file('main.tf', ['resource "kubernetes_manifest" "home" {', '  manifest = { kind = "PersistentVolumeClaim" }', '}'])];
    const protectedAddresses = protectedConfigAddresses(files);
    const verdict = planGuardVerdict(
      [{ address: 'kubernetes_manifest.home', configAddress: 'kubernetes_manifest.home', mode: 'managed', type: 'kubernetes_manifest', name: 'home', kind: 'replace' } as ClassifiedChange],
      { transition: 'start', protectedAddresses },
    );
    expect(verdict.verdict).toBe('deny');
    // Its state holds no uid (the provider keeps object.metadata.uid null): the build's log is what shows the loss.
    const report = detectBuildChanges(['  # kubernetes_manifest.home must be replaced', 'kubernetes_manifest.home: Destroying...'], protectedAddresses);
    expect(report.protectedDestroyed).toEqual(['kubernetes_manifest.home']);
  });
});

describe('what is not read as a claim-deleting set or a volume manifest', () => {
  test('a data source, another type with the same blocks, a dynamic block of another name, Retain through dynamic content', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {}',
        'data "kubernetes_stateful_set" "peer" {',
        '  metadata { namespace = kubernetes_namespace.ws.metadata[0].name }',
        '  spec {',
        '    persistent_volume_claim_retention_policy { when_deleted = "Delete" }',
        '    volume_claim_template { metadata { name = "x" } }',
        '  }',
        '}',
        'resource "kubernetes_deployment" "not_a_set" {',
        '  spec {',
        '    persistent_volume_claim_retention_policy { when_deleted = "Delete" }',
        '    volume_claim_template { metadata { name = "x" } }',
        '  }',
        '}',
        ...statefulSet('kubernetes_stateful_set', 'other_dynamic', ['dynamic "something_else" {', '  for_each = [1]', '  content { when_deleted = "Delete" }', '}']),
        ...statefulSet('kubernetes_stateful_set', 'dynamic_retain', [
          'dynamic "persistent_volume_claim_retention_policy" {',
          '  for_each = [1]',
          '  content { when_deleted = "Retain" }',
          '}',
        ]),
        'resource "kubernetes_config_map" "not_a_manifest" {',
        '  manifest = { kind = "PersistentVolumeClaim" }',
        '}',
        'resource "kubernetes_manifest" "no_manifest" {}',
      ]),
      {
        path: 'more.tf.json',
        content: JSON.stringify({
          resource: {
            kubernetes_stateful_set: {
              no_template: { spec: { persistent_volume_claim_retention_policy: { when_deleted: 'Delete' } } },
              json_dynamic_retain: {
                spec: { volume_claim_template: {}, dynamic: { persistent_volume_claim_retention_policy: { for_each: '${[1]}', content: { when_deleted: 'Retain' } } } },
              },
              other_key: { spec: { volume_claim_template: {}, persistent_volume_claim_retention_policy: { when_scaled: 'Delete' } } },
            },
            kubernetes_manifest: { not_an_object: { manifest: '${yamldecode(file("pvc.yaml"))}' } },
          },
        }),
      },
    ];
    expect(protectedConfigAddresses(files)).toEqual([]);
  });

  test('.tf.json dynamic content that deletes is read', () => {
    const files = [
      {
        path: 'main.tf.json',
        content: JSON.stringify({
          resource: {
            kubernetes_stateful_set_v1: {
              dev: { spec: { volume_claim_template: [{}], dynamic: { persistent_volume_claim_retention_policy: { for_each: '${[1]}', content: { when_deleted: 'Delete' } } } } },
            },
          },
        }),
      },
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_stateful_set_v1.dev']);
  });

  test('a manifest\'s kind is its top-level one: after nested objects, through merge(), in a YAML heredoc; never a nested kind', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_manifest" "kind_last" {',
        '  manifest = {',
        '    metadata = { name = "home", labels = { app = "ws" } }',
        '    spec     = { dataSourceRef = { kind = "VolumeSnapshot", name = "s" } }',
        '    "kind"   = "PersistentVolumeClaim"',
        '  }',
        '}',
        'resource "kubernetes_manifest" "nested_claim" {',
        '  manifest = {',
        '    spec = { source = { kind = "PersistentVolumeClaim" } }',
        '    kind = "VolumeSnapshot"',
        '  }',
        '}',
        'resource "kubernetes_manifest" "merged" {',
        '  manifest = merge(local.base, { kind = "PersistentVolume", spec = { capacity = { storage = "1Gi" } } })',
        '}',
        'resource "kubernetes_manifest" "yaml" {',
        '  manifest = yamldecode(<<-EOT',
        '    # the home volume',
        '    apiVersion: v1',
        '    kind: PersistentVolumeClaim',
        '    metadata:',
        '      name: "home-${data.coder_workspace.me.id}"',
        '    EOT',
        '  )',
        '}',
        'resource "kubernetes_manifest" "yaml_nested" {',
        '  manifest = yamldecode(<<-EOT',
        '    apiVersion: snapshot.storage.k8s.io/v1',
        '    spec:',
        '      source:',
        '        kind: PersistentVolumeClaim',
        '    kind: VolumeSnapshot',
        '    EOT',
        '  )',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_manifest.kind_last', 'kubernetes_manifest.merged', 'kubernetes_manifest.yaml']);
  });
});

describe('the retention policy as the plugin-framework provider takes it: a list attribute', () => {
  test('`= [{ when_deleted = "Delete" }]` protects; Retain or no when_deleted does not; a reference or a non-plain value counts as Delete', () => {
    const files = [
      file('main.tf', [
        ...statefulSet('kubernetes_stateful_set_v1', 'deletes', ['persistent_volume_claim_retention_policy = [{ when_scaled = "Retain", when_deleted = "Delete" }]']),
        ...statefulSet('kubernetes_stateful_set_v1', 'retains', ['persistent_volume_claim_retention_policy = [{', '  "when_deleted" = "Retain"', '  when_scaled    = "Delete"', '}]']),
        ...statefulSet('kubernetes_stateful_set_v1', 'unset', ['persistent_volume_claim_retention_policy = [{ when_scaled = "Delete" }]']),
        ...statefulSet('kubernetes_stateful_set_v1', 'whole_var', ['persistent_volume_claim_retention_policy = var.claim_policy']),
        ...statefulSet('kubernetes_stateful_set_v1', 'var_value', ['persistent_volume_claim_retention_policy = [{ when_deleted = var.on_delete, when_scaled = "Retain" }]']),
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_stateful_set_v1.deletes', 'kubernetes_stateful_set_v1.var_value', 'kubernetes_stateful_set_v1.whole_var']);
  });
});

// KubeVirt workspaces (public Coder templates on Cluster API + KubeVirt): the VM's disk is a CDI
// DataVolume, a claim with an importer in front; a VirtualMachine's dataVolumeTemplates and a
// manifest StatefulSet's volumeClaimTemplates make claims in the namespace as the typed set does.
describe('manifests of kinds that are or make claims', () => {
  test('a DataVolume is protected as a claim is; the namespace holding it, a VirtualMachine or a manifest StatefulSet is protected too', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "vm" {',
        '  metadata { name = "vm-${data.coder_workspace.me.id}" }',
        '}',
        'resource "kubernetes_manifest" "disk" {',
        '  manifest = {',
        '    apiVersion = "cdi.kubevirt.io/v1beta1"',
        '    kind       = "DataVolume"',
        '    metadata   = { name = "disk", namespace = "vm-${data.coder_workspace.me.id}" }',
        '  }',
        '  depends_on = [kubernetes_namespace.vm]',
        '}',
        'resource "kubernetes_namespace" "kv" {',
        '  metadata { name = "kv" }',
        '}',
        'resource "kubernetes_manifest" "machine" {',
        '  manifest = {',
        '    apiVersion = "kubevirt.io/v1"',
        '    kind       = "VirtualMachine"',
        '    metadata   = { name = "m", namespace = kubernetes_namespace.kv.metadata[0].name }',
        '  }',
        '}',
        'resource "kubernetes_namespace" "db" {',
        '  metadata { name = "db" }',
        '}',
        'resource "kubernetes_manifest" "db" {',
        '  manifest = {',
        '    apiVersion = "apps/v1"',
        '    kind       = "StatefulSet"',
        '    metadata   = { name = "db", namespace = kubernetes_namespace.db.metadata[0].name }',
        '  }',
        '}',
        'resource "kubernetes_namespace" "plain" {',
        '  metadata { name = "plain" }',
        '}',
        'resource "kubernetes_manifest" "cm" {',
        '  manifest = { kind = "ConfigMap", metadata = { name = "c", namespace = kubernetes_namespace.plain.metadata[0].name } }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_manifest.disk', 'kubernetes_namespace.db', 'kubernetes_namespace.kv', 'kubernetes_namespace.vm']);
  });
});

// A chart's persistence (grafana, n8n, a vcluster's syncer) is claims Terraform never sees.
describe('a helm release in a namespace the template creates', () => {
  test('protects the namespace it installs into; the release itself and a namespace no release uses are not protected', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "apps" {',
        '  count = 1',
        '  metadata { name = "apps" }',
        '}',
        'resource "helm_release" "grafana" {',
        '  name      = "grafana"',
        '  chart     = "grafana"',
        '  namespace = kubernetes_namespace.apps[0].metadata[0].name',
        '  values    = [yamlencode({ persistence = { enabled = true } })]',
        '}',
        'resource "kubernetes_namespace" "empty" {',
        '  metadata { name = "empty" }',
        '}',
        'data "helm_template" "t" {',
        '  name      = "t"',
        '  chart     = "t"',
        '  namespace = kubernetes_namespace.empty.metadata[0].name',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_namespace.apps']);
  });
});
