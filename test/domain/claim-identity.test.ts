import { describeIdentityChanges, identityChanges, parseRootConfig, persistentIdentityChanges, plannedIdentity, type IdentityContext } from '../../src/domain/claim-identity';

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
    ["coder_workspace's older owner fields", 'name = "${data.coder_workspace.me.owner}-${data.coder_workspace.me.owner_id}"', '', { name: 'Alice-u-1', namespace: 'default' }],
    // owner_name is the owner's full name (Coder's WorkspaceOwnerName = owner.Name; provider: "use coder_workspace_owner.full_name"),
    // not the username the API calls the workspace's owner_name: not known here, never compared.
    ["coder_workspace's owner_name (the owner's full name)", 'name = "${lower(data.coder_workspace.me.owner_name)}-home"', '', { namespace: 'default' }],
    ["coder_workspace_owner's full_name", 'name = data.coder_workspace_owner.me.full_name', '', { namespace: 'default' }],
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
    ['a variable with an attribute', 'name = var.prefix.x', '', { namespace: 'default' }],
    ['a local with an attribute', 'name = local.claim.x', 'locals {\n  claim = "home"\n}', { namespace: 'default' }],
    // Two-part references under other roots are not locals, even where a local of that name exists.
    ['count.index beside a local named index', 'name = "home-${count.index}"', 'locals {\n  index = "x"\n}', { namespace: 'default' }],
    ['each.key beside a local named key', 'name = each.key', 'locals {\n  key = "home"\n}', { namespace: 'default' }],
    ['a workspace data source without its field', 'name = data.coder_workspace.me', '', { namespace: 'default' }],
    ['a workspace field with an attribute after it', 'name = data.coder_workspace.me.id.x', '', { namespace: 'default' }],
    ['a workspace field under another root', 'name = resource.coder_workspace.me.id', '', { namespace: 'default' }],
    ['a number', 'name = 5', '', { namespace: 'default' }],
    ['a function other than lower and upper', 'name = trimspace("Home")', '', { namespace: 'default' }],
    ['lower with two arguments', 'name = lower("Home", "x")', '', { namespace: 'default' }],
    ['an undeclared variable inside a template', 'name = "${var.nope}-home"', '', { namespace: 'default' }],
    ['a chain of locals as deep as it reads', 'name = local.l1', `locals {\n${[1, 2, 3, 4, 5, 6, 7].map((i) => `  l${i} = local.l${i + 1}`).join('\n')}\n  l8 = "deep"\n}`, { name: 'deep', namespace: 'default' }],
    ['a chain of locals deeper than it reads', 'name = local.l1', `locals {\n${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => `  l${i} = local.l${i + 1}`).join('\n')}\n  l9 = "deep"\n}`, { namespace: 'default' }],
  ])('%s', (_, metadata, extra, expected) => {
    expect(planned(metadata, extra)).toEqual(expected);
  });

  test('another kind of resource with the same name is not the claim', () => {
    const other = 'resource "kubernetes_config_map_v1" "home" {\n  metadata {\n    name = "cfg"\n  }\n}';
    expect(planned('name = "home"', other)).toEqual({ name: 'home', namespace: 'default' });
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
    // A deployment the version renames is re-created with no data lost: not a refusal, though its name is known and differs.
    const renamedDeployment = claim('name = "home"', 'resource "kubernetes_deployment_v1" "main" {\n  metadata {\n    name = "new-name"\n  }\n}');
    expect(persistentIdentityChanges([state('kubernetes_deployment', 'main', { name: 'old-name', namespace: 'default' })], renamedDeployment, ctx)).toEqual([]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'old' }, { mode: 'data' })], parsed, ctx)).toEqual([]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'old' }, { module: 'module.x' })], parsed, ctx)).toEqual([]);
  });

  test('a _v1 claim whose namespace the version changes; a claim the version still declares under the old type', () => {
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim_v1', 'home', { name: 'coder-ws-1-home', namespace: 'team-b' })], parsed, ctx)).toEqual([
      { address: 'kubernetes_persistent_volume_claim_v1.home', field: 'namespace', from: 'team-b', to: 'team-a' },
    ]);
    const oldDeclared = parseRootConfig([{ path: 'main.tf', content: 'resource "kubernetes_persistent_volume_claim" "home" {\n  metadata {\n    name = "renamed"\n  }\n}\n' }]);
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'home', namespace: 'default' })], oldDeclared, ctx)).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', field: 'name', from: 'home', to: 'renamed' },
    ]);
  });

  test("a claim named after coder_workspace's owner_name (the owner's full name, or the provider's \"default\" when empty) is not reported changed", () => {
    const byFullName = claim('name = "coder-${lower(data.coder_workspace.me.owner_name)}-home"\n namespace = var.namespace');
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'home', { name: 'coder-default-home', namespace: 'team-a' })], byFullName, ctx)).toEqual([]);
  });

  test('a claim the version does not declare, or an instance without attributes or metadata, is no change and no error', () => {
    expect(persistentIdentityChanges([state('kubernetes_persistent_volume_claim', 'other', { name: 'x' })], parsed, ctx)).toEqual([]);
    const bare = (attributes: unknown) => ({ mode: 'managed', type: 'kubernetes_persistent_volume_claim_v1', name: 'home', instances: [{ attributes }] }) as never;
    expect(persistentIdentityChanges([bare(null), bare({}), bare({ metadata: [] })], parsed, ctx)).toEqual([]);
  });
});

describe('describeIdentityChanges: the refusal in words', () => {
  const change = (i: number, to = `new-${i}`, from = `old-${i}`) => ({ address: `kubernetes_persistent_volume_claim_v1.c${i}`, field: 'name' as const, from, to });

  test('names the field, the new value and the one the build has, five at most, joined by "; "', () => {
    expect(describeIdentityChanges([change(1), change(2)], [], 'build #4')).toBe(
      "give kubernetes_persistent_volume_claim_v1.c1 the name 'new-1' where build #4 has 'old-1'; give kubernetes_persistent_volume_claim_v1.c2 the name 'new-2' where build #4 has 'old-2'",
    );
    expect(describeIdentityChanges([1, 2, 3, 4, 5, 6, 7].map((i) => change(i)), [], 'build #4').split('; ')).toHaveLength(5);
  });

  test('a value computed from a secret, new or old, is shown as neither; an empty secret hides nothing', () => {
    for (const c of [change(1, 'home-s3cr3t'), change(1, 'home', 'home-s3cr3t')]) {
      const text = describeIdentityChanges([c], ['', 's3cr3t'], 'build #4');
      expect(text).toBe('give kubernetes_persistent_volume_claim_v1.c1 another name (computed from a sensitive variable) than build #4 has');
      expect(text).not.toContain('s3cr3t');
    }
    expect(describeIdentityChanges([change(1)], [''], 'build #4')).toContain("the name 'new-1'");
    expect(describeIdentityChanges([change(1, 'a-s3cr3t'), change(2)], ['s3cr3t', 'other'], 'build #4')).toContain("the name 'new-2'");
  });
});
