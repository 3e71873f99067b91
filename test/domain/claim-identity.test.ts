import { identityChanges, parseRootConfig, persistentIdentityChanges, plannedIdentity, type IdentityContext } from '../../src/domain/claim-identity';

const ctx: IdentityContext = {
  variables: { namespace: 'team-a', prefix: 'Coder', secret: undefined },
  workspace: { id: 'ws-1', name: 'Dev', ownerName: 'Alice', ownerId: 'u-1' },
};
const claim = (metadata: string, extra = '') =>
  parseRootConfig([{ path: 'main.tf', content: `${extra}\nresource "kubernetes_persistent_volume_claim_v1" "home" {\n  metadata {\n${metadata}\n  }\n  spec {}\n}\n` }]);
const planned = (metadata: string, extra = '') => plannedIdentity(claim(metadata, extra), 'kubernetes_persistent_volume_claim_v1', 'home', ctx, true);

describe('plannedIdentity: the name and namespace a version gives a claim, when certain before the plan', () => {
  test.each<[string, string, string, { name?: string; namespace?: string }]>([
    ['literals', 'name = "home"\n namespace = "coder"', '', { name: 'home', namespace: 'coder' }],
    ['a variable', 'name = "home"\n namespace = var.namespace', '', { name: 'home', namespace: 'team-a' }],
    ['a template over the workspace', 'name = "coder-${data.coder_workspace.me.id}-home"', '', { name: 'coder-ws-1-home', namespace: 'default' }],
    ['owner fields, lower and upper', 'name = "${lower(data.coder_workspace_owner.me.name)}-${upper(data.coder_workspace.me.name)}"', '', { name: 'alice-DEV', namespace: 'default' }],
    ["coder_workspace's older owner fields", 'name = "${data.coder_workspace.me.owner}-${data.coder_workspace.me.owner_id}-${data.coder_workspace.me.owner_name}"', '', { name: 'Alice-u-1-Alice', namespace: 'default' }],
    ['a local, through another', 'name = local.claim', 'locals {\n  claim = "${local.stem}-home"\n  stem = lower(var.prefix)\n}', { name: 'coder-home', namespace: 'default' }],
    ['generate_name: the name is not compared', 'generate_name = "home-"\n namespace = var.namespace', '', { namespace: 'team-a' }],
    ['a sensitive variable nobody gave', 'name = "home"\n namespace = var.secret', '', { name: 'home' }],
    ['an undeclared variable', 'name = var.nope', '', { namespace: 'default' }],
    ['another function', 'name = replace(data.coder_workspace.me.name, "-", "")', '', { namespace: 'default' }],
    ['a conditional', 'name = var.prefix == "" ? "a" : "b"', '', { namespace: 'default' }],
    ['an index', 'name = var.names[0]', '', { namespace: 'default' }],
    ['an escape in the text', 'name = "a\\\\b"', '', { namespace: 'default' }],
    ['a $${ escape', 'name = "a$${b}"', '', { namespace: 'default' }],
    ['a template directive', 'name = "%{ if true }a%{ endif }"', '', { namespace: 'default' }],
    ['an unknown data source', 'name = data.other.x.id', '', { namespace: 'default' }],
    ['a workspace field it does not know', 'name = data.coder_workspace.me.access_url', '', { namespace: 'default' }],
    ['text after the expression', 'name = "a" "b"', '', { namespace: 'default' }],
  ])('%s', (_, metadata, extra, expected) => {
    expect(planned(metadata, extra)).toEqual(expected);
  });

  test('a local that refers to itself is unknown, not a hang', () => {
    expect(planned('name = local.a', 'locals {\n  a = local.b\n  b = local.a\n}')).toEqual({ namespace: 'default' });
  });

  test('a resource the version does not declare, or with two metadata blocks, gives nothing', () => {
    expect(plannedIdentity(claim('name = "x"'), 'kubernetes_persistent_volume_claim_v1', 'other', ctx, true)).toBeUndefined();
    expect(plannedIdentity(parseRootConfig([{ path: 'main.tf', content: 'resource "kubernetes_persistent_volume_claim_v1" "home" {\n  metadata {\n name = "a"\n}\n  metadata {\n name = "b"\n}\n}\n' }]), 'kubernetes_persistent_volume_claim_v1', 'home', ctx, true)).toBeUndefined();
  });

  test('a cluster-scoped object has no namespace to compare', () => {
    expect(plannedIdentity(claim('name = "pv"'), 'kubernetes_persistent_volume_claim_v1', 'home', ctx, false)).toEqual({ name: 'pv' });
  });

  test('only root .tf files are read', () => {
    expect(parseRootConfig([{ path: 'main.tf', content: '' }, { path: 'modules/x/main.tf', content: 'resource "a" "b" {}' }, { path: 'x.tf.json', content: '{}' }])).toHaveLength(1);
  });
});

describe('identityChanges and persistentIdentityChanges: what the build would replace', () => {
  test('a known, different name or namespace is a change; unknown or equal ones are not', () => {
    expect(identityChanges('a', { name: 'x', namespace: 'n' }, { name: 'x', namespace: 'n' })).toEqual([]);
    expect(identityChanges('a', {}, { name: 'x', namespace: 'n' })).toEqual([]);
    expect(identityChanges('a', { name: 'y', namespace: 'm' }, { name: 'x', namespace: 'n' })).toEqual([
      { address: 'a', field: 'name', from: 'x', to: 'y' },
      { address: 'a', field: 'namespace', from: 'n', to: 'm' },
    ]);
    expect(identityChanges('a', { name: 'y' }, {})).toEqual([]);
  });

  const state = (type: string, name: string, metadata: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    mode: 'managed',
    type,
    name,
    instances: [{ attributes: { metadata: [metadata] } }],
    ...extra,
  });
  const parsed = claim('name = "coder-${data.coder_workspace.me.id}-home"\n namespace = var.namespace');

  test('an old-type claim in the state is compared with the _v1 declaration of the same name', () => {
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'coder-ws-1-home', namespace: 'team-a' })], parsed, ctx)).toEqual([]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'coder-ws-1-home', namespace: 'team-b' })], parsed, ctx)).toEqual([
      { address: 'kubernetes_persistent_volume_claim_v1.home', field: 'namespace', from: 'team-b', to: 'team-a' },
    ]);
  });

  test('counted instances are named with their key; other kinds, data sources and module resources are left alone', () => {
    const counted = { ...state('kubernetes_persistent_volume_claim_v1', 'home', { name: 'old', namespace: 'team-a' }), instances: [{ index_key: 0, attributes: { metadata: [{ name: 'old', namespace: 'team-a' }] } }] };
    expect(persistentIdentityChanges([counted], parsed, ctx)).toEqual([{ address: 'kubernetes_persistent_volume_claim_v1.home[0]', field: 'name', from: 'old', to: 'coder-ws-1-home' }]);
    expect(persistentIdentityChanges([state('kubernetes_deployment', 'home', { name: 'old' })], parsed, ctx)).toEqual([]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'old' }, { mode: 'data' })], parsed, ctx)).toEqual([]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'old' }, { module: 'module.x' })], parsed, ctx)).toEqual([]);
  });
});
