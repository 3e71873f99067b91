import { findProtectAnnotations, protectedConfigAddresses } from '../../../src/domain/hcl/protect-annotations';

const file = (path: string, lines: string[]) => ({ path, content: lines.join('\n') + '\n' });

describe('findProtectAnnotations', () => {
  test('only managed resources of native files: an annotated data source and a .tf.json file add nothing', () => {
    const files = [
      file('main.tf', ['# wsmigrate:protect', 'data "kubernetes_secret_v1" "token" {}', '', '# wsmigrate:protect', 'resource "kubernetes_secret_v1" "ssh" {}']),
      { path: 'extra.tf.json', content: JSON.stringify({ resource: { kubernetes_config_map_v1: { c: {} } } }) },
    ];
    expect(findProtectAnnotations(files)).toEqual([{ file: 'main.tf', line: 5, address: 'kubernetes_secret_v1.ssh' }]);
  });


  test('finds `#` and `//` annotations on the line directly above a resource header', () => {
    const files = [
      file('main.tf', [
        '# wsmigrate:protect',
        'resource "kubernetes_secret" "ssh" {}',
        '',
        '  // wsmigrate:protect keeps the cache between restarts',
        'resource "kubernetes_config_map" "cache" {}',
        '',
        'resource "kubernetes_pod" "plain" {}',
      ]),
    ];
    expect(findProtectAnnotations(files)).toEqual([
      { file: 'main.tf', line: 2, address: 'kubernetes_secret.ssh' },
      { file: 'main.tf', line: 5, address: 'kubernetes_config_map.cache' },
    ]);
  });

  test('a blank line between the comment and the block does not count', () => {
    const files = [file('main.tf', ['# wsmigrate:protect', '', 'resource "kubernetes_secret" "ssh" {}'])];
    expect(findProtectAnnotations(files)).toEqual([]);
  });

  test('only the line directly above counts, not an earlier comment line', () => {
    const files = [file('main.tf', ['# wsmigrate:protect', '# the ssh keys', 'resource "kubernetes_secret" "ssh" {}'])];
    expect(findProtectAnnotations(files)).toEqual([]);
  });

  test('a trailing comment on a line of code, a longer word, or a block comment does not count', () => {
    const files = [
      file('main.tf', [
        'locals {} # wsmigrate:protect',
        'resource "kubernetes_secret" "a" {}',
        '# wsmigrate:protected',
        'resource "kubernetes_secret" "b" {}',
        '/* wsmigrate:protect */',
        'resource "kubernetes_secret" "c" {}',
        '# wsmigrate:protect',
        'data "kubernetes_secret" "d" {}',
      ]),
    ];
    expect(findProtectAnnotations(files)).toEqual([]);
  });

  test('works with CRLF line endings and a BOM', () => {
    const files = [{ path: 'main.tf', content: '\uFEFF# wsmigrate:protect\r\nresource "kubernetes_secret" "ssh" {}\r\n' }];
    expect(findProtectAnnotations(files)).toEqual([{ file: 'main.tf', line: 2, address: 'kubernetes_secret.ssh' }]);
  });

  test('ignores files Terraform does not read as configuration', () => {
    const lines = ['# wsmigrate:protect', 'resource "kubernetes_secret" "ssh" {}'];
    expect(findProtectAnnotations([file('notes.tpl', lines), file('main.tftest.hcl', ['run "x" {}'])])).toEqual([]);
  });
});

describe('protectedConfigAddresses', () => {
  test('lists persistent kinds under either name and annotated resources, sorted', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_persistent_volume_claim" "home" {}',
        'resource "kubernetes_persistent_volume_v1" "pv" {}',
        'resource "kubernetes_deployment" "main" {}',
        '// wsmigrate:protect',
        'resource "kubernetes_secret_v1" "ssh" {}',
        'data "kubernetes_persistent_volume_claim" "existing" {}',
      ]),
      { path: 'extra.tf.json', content: '{"resource": {"kubernetes_persistent_volume": {"data": {}}}}' },
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_persistent_volume.data',
      'kubernetes_persistent_volume_claim.home',
      'kubernetes_persistent_volume_v1.pv',
      'kubernetes_secret_v1.ssh',
    ]);
  });

  test('prefixes resources of local modules with every call that reaches them', () => {
    const files = [
      file('main.tf', ['module "a" {', '  source = "./modules/vol"', '}', 'module "b" {', '  source = "./modules/vol"', '}']),
      file('modules/vol/main.tf', ['resource "kubernetes_persistent_volume_claim" "data" {}']),
      file('examples/unused/main.tf', ['resource "kubernetes_persistent_volume_claim" "orphan" {}']),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'module.a.kubernetes_persistent_volume_claim.data',
      'module.b.kubernetes_persistent_volume_claim.data',
    ]);
  });
});

describe('protectedConfigAddresses: namespaces that hold a protected resource', () => {
  // Deleting a namespace deletes every object in it: the namespace of a workspace's claim is as precious as the claim.
  test('a namespace the claim refers to, directly (`[0]` or `.0`) or through locals, is protected; one it does not refer to is not', () => {
    const files = [
      file('main.tf', [
        'locals {',
        '  home_ns = local.ns_name',
        '  ns_name = kubernetes_namespace_v1.via_local.metadata.0.name',
        '}',
        'resource "kubernetes_namespace" "direct" {',
        '  metadata { name = "a" }',
        '}',
        'resource "kubernetes_namespace_v1" "via_local" {',
        '  metadata { name = "b" }',
        '}',
        'resource "kubernetes_namespace" "scratch" {',
        '  count = data.coder_workspace.me.start_count',
        '  metadata { name = "c" }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata {',
        '    name      = "home"',
        '    namespace = kubernetes_namespace.direct.metadata[0].name',
        '  }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "cache" {',
        '  metadata {',
        '    name      = "cache"',
        '    namespace = "${local.home_ns}"',
        '  }',
        '}',
        'resource "kubernetes_pod" "main" {',
        '  metadata { namespace = kubernetes_namespace.scratch[0].metadata[0].name }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.direct',
      'kubernetes_namespace_v1.via_local',
      'kubernetes_persistent_volume_claim.cache',
      'kubernetes_persistent_volume_claim.home',
    ]);
  });

  test('an annotated resource protects its namespace too; a data source, another module and an attribute named like a namespace do not', () => {
    const files = [
      file('main.tf', [
        'module "vol" {',
        '  source = "./modules/vol"',
        '}',
        'resource "kubernetes_namespace" "ws" {}',
        'data "kubernetes_namespace" "shared" {',
        '  metadata { name = "shared" }',
        '}',
        '# wsmigrate:protect',
        'resource "kubernetes_secret" "ssh" {',
        '  metadata { namespace = kubernetes_namespace.ws.id }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "other" {',
        '  metadata { namespace = data.kubernetes_namespace.shared.metadata[0].name }',
        '  spec { volume_name = var.x.kubernetes_namespace.ws }',
        '}',
      ]),
      file('modules/vol/main.tf', ['resource "kubernetes_namespace" "ws" {}', 'resource "kubernetes_persistent_volume_claim" "data" {}']),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.ws',
      'kubernetes_persistent_volume_claim.other',
      'kubernetes_secret.ssh',
      'module.vol.kubernetes_persistent_volume_claim.data',
    ]);
  });

  test('a local that refers to itself through another does not loop', () => {
    const files = [file('main.tf', ['locals {', '  a = local.b', '  b = local.a', '}', 'resource "kubernetes_persistent_volume_claim" "home" {', '  metadata { namespace = local.a }', '}', 'resource "kubernetes_namespace" "ws" {}'])];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_persistent_volume_claim.home']);
  });
});

describe('protectedConfigAddresses: a namespace named like the claim\'s namespace', () => {
  test('the same expression (a local, or the same text) for both names protects it; another expression does not', () => {
    const files = [
      file('main.tf', [
        'locals {',
        '  ns = "ws-${data.coder_workspace.me.id}"',
        '}',
        'resource "kubernetes_namespace" "by_local" {',
        '  metadata {',
        '    name = local.ns',
        '  }',
        '}',
        'resource "kubernetes_namespace" "by_text" {',
        '  metadata {',
        '    name = "cache-${data.coder_workspace.me.id}"',
        '  }',
        '}',
        'resource "kubernetes_namespace" "other" {',
        '  metadata {',
        '    name = "tools-${data.coder_workspace.me.id}"',
        '  }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata {',
        '    name      = "home"',
        '    namespace = local.ns',
        '  }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "cache" {',
        '  metadata {',
        '    name      = "cache"',
        '    namespace = "cache-${ data.coder_workspace.me.id }"',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.by_local',
      'kubernetes_namespace.by_text',
      'kubernetes_persistent_volume_claim.cache',
      'kubernetes_persistent_volume_claim.home',
    ]);
  });
});

describe('protectedConfigAddresses: a namespace handed to a local module that puts a claim in it', () => {
  test('the input the claim reads protects the namespace; an input it does not read, or a registry module, does not', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {}',
        'resource "kubernetes_namespace" "tools" {}',
        'resource "kubernetes_namespace" "remote" {}',
        'module "home" {',
        '  source    = "./modules/home"',
        '  namespace = kubernetes_namespace.ws.metadata[0].name',
        '  tools_ns  = kubernetes_namespace.tools.metadata[0].name',
        '}',
        'module "elsewhere" {',
        '  source    = "registry.example.com/acme/home/kubernetes"',
        '  namespace = kubernetes_namespace.remote.metadata[0].name',
        '}',
      ]),
      file('modules/home/main.tf', [
        'variable "namespace" {}',
        'variable "tools_ns" {}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata {',
        '    name      = "home"',
        '    namespace = var.namespace',
        '  }',
        '}',
        'resource "kubernetes_config_map" "tools" {',
        '  metadata { namespace = var.tools_ns }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_namespace.ws', 'module.home.kubernetes_persistent_volume_claim.home']);
  });
});

describe('protectedConfigAddresses: a namespace handed down two levels of local modules', () => {
  test('the root\'s namespace and a middle module\'s namespace are protected when the input reaches the claim; an input that stops halfway does not', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {}',
        'resource "kubernetes_namespace" "scratch" {}',
        'module "workspace" {',
        '  source     = "./modules/workspace"',
        '  ns         = kubernetes_namespace.ws.metadata[0].name',
        '  scratch_ns = kubernetes_namespace.scratch.metadata[0].name',
        '}',
      ]),
      file('modules/workspace/main.tf', [
        'variable "ns" {}',
        'variable "scratch_ns" {}',
        'resource "kubernetes_namespace" "cache" {}',
        'module "storage" {',
        '  source    = "../storage"',
        '  namespace = var.ns',
        '  cache_ns  = kubernetes_namespace.cache.metadata[0].name',
        '  unused    = var.scratch_ns',
        '}',
      ]),
      file('modules/storage/main.tf', [
        'variable "namespace" {}',
        'variable "cache_ns" {}',
        'variable "unused" {}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata { namespace = var.namespace }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "cache" {',
        '  metadata { namespace = var.cache_ns }',
        '}',
        'resource "kubernetes_config_map" "unused" {',
        '  metadata { namespace = var.unused }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.ws',
      'module.workspace.kubernetes_namespace.cache',
      'module.workspace.module.storage.kubernetes_persistent_volume_claim.cache',
      'module.workspace.module.storage.kubernetes_persistent_volume_claim.home',
    ]);
  });

  test('a module that calls itself does not loop', () => {
    const files = [
      file('main.tf', ['resource "kubernetes_namespace" "ws" {}', 'module "a" {', '  source = "./a"', '  ns     = kubernetes_namespace.ws.metadata[0].name', '}']),
      file('a/main.tf', ['variable "ns" {}', 'module "again" {', '  source = "../a"', '  ns     = var.ns', '}', 'resource "kubernetes_persistent_volume_claim" "home" {', '  metadata { namespace = var.ns }', '}']),
    ];
    expect(protectedConfigAddresses(files)).toContain('kubernetes_namespace.ws');
  });
});

describe('protectedConfigAddresses: a claim declared in .tf.json', () => {
  test('the namespace its strings refer to (directly or through a local) is protected; one it does not is not', () => {
    const files = [
      file('main.tf', [
        'locals {',
        '  cache_ns = kubernetes_namespace_v1.cache.metadata[0].name',
        '}',
        'resource "kubernetes_namespace" "ws" {}',
        'resource "kubernetes_namespace_v1" "cache" {}',
        'resource "kubernetes_namespace" "other" {}',
      ]),
      {
        path: 'claims.tf.json',
        content: JSON.stringify({
          resource: {
            kubernetes_persistent_volume_claim: {
              home: { metadata: [{ name: 'home', namespace: '${kubernetes_namespace.ws.metadata[0].name}' }] },
              cache: { metadata: { namespace: '${local.cache_ns}', labels: { note: 'kubernetes_namespace.other is not a reference here' } } },
            },
          },
        }),
      },
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.ws',
      'kubernetes_namespace_v1.cache',
      'kubernetes_persistent_volume_claim.cache',
      'kubernetes_persistent_volume_claim.home',
    ]);
  });
});

describe('protectedConfigAddresses: what a namespace-holding read must not take for a holder', () => {
  test('a service account and a data namespace named like the claim\'s namespace are not protected', () => {
    const files = [
      file('main.tf', [
        'locals {',
        '  ns = "ws-${data.coder_workspace.me.id}"',
        '}',
        'resource "kubernetes_namespace" "ws" {',
        '  metadata { name = local.ns }',
        '}',
        'data "kubernetes_namespace" "seen" {',
        '  metadata { name = local.ns }',
        '}',
        'resource "kubernetes_service_account" "ws" {',
        '  metadata { name = local.ns }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  lifecycle { ignore_changes = [metadata[0].annotations] }',
        '  metadata {',
        '    name      = "home"',
        '    namespace = local.ns',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_namespace.ws', 'kubernetes_persistent_volume_claim.home']);
  });

  test('a namespace reached only through another root (var.x.kubernetes_namespace.y) is not one the claim refers to', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "other" {}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata { namespace = "home" }',
        '  spec { volume_name = var.x.kubernetes_namespace.other }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_persistent_volume_claim.home']);
  });

  test('JSON-syntax files beside the native ones are left to the other checks: the native namespace holding a native claim is still found', () => {
    const json = (o: unknown) => ({ path: 'extra.tf.json', content: JSON.stringify(o) });
    const files = [
      json({
        resource: {
          kubernetes_namespace: { j: { metadata: { name: 'ws' } } },
          kubernetes_persistent_volume_claim: { jhome: { metadata: { name: 'jhome', namespace: 'ws' } } },
        },
      }),
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {',
        '  metadata { name = "ws" }',
        '}',
        'module "jm" {',
        '  source    = "./modules/home"',
        '  namespace = kubernetes_namespace.ws.metadata[0].name',
        '}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata { namespace = kubernetes_namespace.ws.metadata[0].name }',
        '}',
      ]),
      { path: 'modules/home/main.tf.json', content: JSON.stringify({ resource: { kubernetes_persistent_volume_claim: { data: { metadata: { namespace: '${var.namespace}' } } } } }) },
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.ws',
      'kubernetes_persistent_volume_claim.home',
      'kubernetes_persistent_volume_claim.jhome',
      'module.jm.kubernetes_persistent_volume_claim.data',
    ]);
  });
});

describe('protectedConfigAddresses: a module call whose source is not its first argument', () => {
  test('the namespace handed to it is protected all the same; an input named like a local the claim reads is not', () => {
    const files = [
      file('main.tf', [
        'resource "kubernetes_namespace" "ws" {}',
        'resource "kubernetes_namespace" "tools" {}',
        'module "home" {',
        '  count     = 1',
        '  namespace = kubernetes_namespace.ws.metadata[0].name',
        '  tools_ns  = kubernetes_namespace.tools.metadata[0].name',
        '  source    = "./modules/home"',
        '}',
      ]),
      file('modules/home/main.tf', [
        'variable "namespace" {}',
        'variable "tools_ns" {}',
        'locals {',
        '  tools_ns = "tools"',
        '}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata {',
        '    namespace = var.namespace',
        '    labels    = { tools = local.tools_ns }',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual(['kubernetes_namespace.ws', 'module.home.kubernetes_persistent_volume_claim.home']);
  });
});

describe('protectedConfigAddresses: how the claim may spell its namespace', () => {
  test('inside a function call, over lines with a comment, through a local that a parameter\'s name does not shadow, or from another file of the module', () => {
    const files = [
      file('main.tf', [
        'locals {',
        '  name = kubernetes_namespace.by_local.metadata[0].name',
        '}',
        'data "coder_parameter" "size" {',
        '  name = "size"',
        '}',
        'resource "kubernetes_namespace" "in_call" {}',
        'resource "kubernetes_namespace" "by_local" {}',
        'resource "kubernetes_persistent_volume_claim" "home" {',
        '  metadata { namespace = one(kubernetes_namespace.in_call[*].metadata[0].name) }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "cache" {',
        '  metadata { namespace = local.name }',
        '}',
        'resource "kubernetes_persistent_volume_claim" "data" {',
        '  metadata { namespace = join("-", ["data", data.coder_workspace.me.id]) }',
        '}',
      ]),
      file('namespaces.tf', [
        'resource "kubernetes_namespace" "other" {',
        '  metadata { name = "other" }',
        '}',
        'resource "kubernetes_namespace" "by_name" {',
        '  metadata {',
        '    name = join("-", [',
        '      "data", # the claim\'s namespace',
        '      data.coder_workspace.me.id',
        '    ])',
        '  }',
        '}',
      ]),
    ];
    expect(protectedConfigAddresses(files)).toEqual([
      'kubernetes_namespace.by_local',
      'kubernetes_namespace.by_name',
      'kubernetes_namespace.in_call',
      'kubernetes_persistent_volume_claim.cache',
      'kubernetes_persistent_volume_claim.data',
      'kubernetes_persistent_volume_claim.home',
    ]);
  });
});
