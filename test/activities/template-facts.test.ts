import { protectionOf, rootDeclarationsOf } from '../../src/activities/template-facts';

const source = (pvcName: string) => [
  {
    path: 'main.tf',
    content: `resource "kubernetes_persistent_volume_claim" "${pvcName}" {\n  metadata { name = "x" }\n}\n\n# wsmigrate:protect\nresource "kubernetes_secret" "keys" {\n  metadata { name = "k" }\n}\n`,
  },
];
/** What the build watch reads: the protection's addresses. */
const protectedAddressesOf = (files: ReturnType<typeof source>) => protectionOf(files).annotatedAddresses;

describe("a template version's facts, read once per source", () => {
  it('reads one source once however many workspaces ask (the same answer, not a new parse), and a new version again', () => {
    const v1 = source('home');
    const first = { addresses: protectedAddressesOf(v1), protection: protectionOf(v1), declared: rootDeclarationsOf(v1) };
    expect(first.addresses).toEqual(['kubernetes_persistent_volume_claim.home', 'kubernetes_secret.keys']);
    expect(first.protection).toEqual({ annotatedAddresses: ['kubernetes_persistent_volume_claim.home', 'kubernetes_secret.keys'], usesV1Types: false });
    expect([...first.declared].sort()).toEqual(['kubernetes_persistent_volume_claim.home', 'kubernetes_secret.keys']);
    for (let i = 0; i < 50; i++) {
      expect(protectedAddressesOf(v1)).toBe(first.addresses);
      expect(protectionOf(v1)).toBe(first.protection);
      expect(rootDeclarationsOf(v1)).toBe(first.declared);
    }
    const v2 = source('data');
    expect(protectedAddressesOf(v2)).not.toBe(first.addresses);
    expect(protectedAddressesOf(v2)).toEqual(['kubernetes_persistent_volume_claim.data', 'kubernetes_secret.keys']);
  });

  it('hands out frozen results, so one caller cannot change what the next workspace is checked against', () => {
    const addresses = protectedAddressesOf(source('home')) as string[];
    expect(() => addresses.push('kubernetes_pod.x')).toThrow(TypeError);
    const protection = protectionOf(source('home'));
    expect(Object.isFrozen(protection) && Object.isFrozen(protection.annotatedAddresses)).toBe(true);
  });
});
