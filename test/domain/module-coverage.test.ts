import { deprecatedInstancesOutsideTemplate } from '../../src/domain/module-coverage';
import { redactModuleSource } from '../../src/domain/hcl/module-source';
import type { StateResourceView } from '../../src/domain/state';

const res = (module: string | undefined, type: string, name: string, keys: (number | string | undefined)[] = [undefined]): StateResourceView => ({
  ...(module ? { module } : {}),
  mode: 'managed',
  type,
  name,
  instances: keys.map((k) => (k === undefined ? {} : { index_key: k })),
});

describe('deprecatedInstancesOutsideTemplate', () => {
  const target = [
    { path: 'main.tf', content: 'module "home" {\n  source = "git::https://git.example.com/home.git"\n}\nmodule "app" {\n  source = "./app"\n}\nmodule "old" {\n  source = "./old"\n}\n' },
    { path: 'app/main.tf', content: 'resource "kubernetes_pod_v1" "p" {}\n' },
    { path: 'old/main.tf', content: 'resource "kubernetes_secret" "s" {}\n' },
  ];

  test('a deprecated instance in a git module is named with the call that makes it uncheckable', () => {
    const out = deprecatedInstancesOutsideTemplate([res('module.home', 'kubernetes_persistent_volume_claim', 'data', [0, 1])], target);
    expect(out.map((u) => u.address)).toEqual(['module.home.kubernetes_persistent_volume_claim.data[0]', 'module.home.kubernetes_persistent_volume_claim.data[1]']);
    expect(out[0].reason).toContain('module.home is called at main.tf:1 from a source outside the template');
  });

  test('a local module the target rewrote is fine; one still declaring the old type is not', () => {
    expect(deprecatedInstancesOutsideTemplate([res('module.app', 'kubernetes_pod', 'p')], target)).toEqual([]);
    const out = deprecatedInstancesOutsideTemplate([res('module.old', 'kubernetes_secret', 's')], target);
    expect(out).toEqual([{ address: 'module.old.kubernetes_secret.s', reason: 'the target version\'s module folder "old" still declares kubernetes_secret.s' }]);
  });

  test('root instances, versioned types and data sources are not its concern', () => {
    const data: StateResourceView = { module: 'module.home', mode: 'data', type: 'kubernetes_secret', name: 'd', instances: [{}] };
    expect(deprecatedInstancesOutsideTemplate([res(undefined, 'kubernetes_pod', 'p'), res('module.home', 'kubernetes_pod_v1', 'p'), data], target)).toEqual([]);
  });

  test('keyed module instances resolve through the call name', () => {
    const out = deprecatedInstancesOutsideTemplate([res('module.home["alice"]', 'kubernetes_persistent_volume_claim', 'data')], target);
    expect(out.map((u) => u.address)).toEqual(['module.home["alice"].kubernetes_persistent_volume_claim.data']);
  });
});

describe('redactModuleSource', () => {
  test.each([
    ['git::https://user:tok@github.com/a/b.git?ref=v1', 'git::https://***@github.com/a/b.git?ref=v1'],
    ['git::ssh://git@github.com/a/b.git', 'git::ssh://git@github.com/a/b.git'],
    ['git::https://github.com/a/b.git?ref=v1&sshkey=AAAAB3', 'git::https://github.com/a/b.git?ref=v1&sshkey=***'],
    ['s3::https://s3.amazonaws.com/b/m.zip?aws_access_key_id=AK&aws_access_key_secret=SEC', 's3::https://s3.amazonaws.com/b/m.zip?aws_access_key_id=***&aws_access_key_secret=***'],
    ['registry.coder.com/modules/code-server/coder', 'registry.coder.com/modules/code-server/coder'],
  ])('%s', (source, shown) => expect(redactModuleSource(source)).toBe(shown));
});
