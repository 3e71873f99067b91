import {
  AddressError,
  formatConfigAddress,
  formatInstanceAddress,
  parseModulePath,
  parseResourceAddress,
} from '../../../src/domain/plan/address';

describe('resource addresses', () => {
  it.each([
    'kubernetes_persistent_volume_claim.home',
    'kubernetes_deployment.main[0]',
    'kubernetes_secret.s["a.b"]',
    'data.coder_workspace.me',
    'module.ws[0].kubernetes_deployment_v1.main[0]',
    'module.a["k"].module.b.data.kubernetes_secret.x["y"]',
    'module.data.kubernetes_secret.s',
  ])('reads and prints %s unchanged', (address) => {
    expect(formatInstanceAddress(parseResourceAddress(address))).toBe(address);
  });

  it('tells data sources and modules apart', () => {
    expect(parseResourceAddress('module.data.kubernetes_secret.s')).toEqual({
      modules: [{ name: 'data' }],
      mode: 'managed',
      type: 'kubernetes_secret',
      name: 's',
    });
    expect(parseResourceAddress('module.m.data.kubernetes_secret.s').mode).toBe('data');
  });

  it('keeps string keys with dots, brackets and quotes intact', () => {
    const a = parseResourceAddress('kubernetes_secret.s["a.]\\"b"]');
    expect(a.index).toBe('a.]"b');
    expect(formatInstanceAddress(a)).toBe('kubernetes_secret.s["a.]\\"b"]');
  });

  it('drops every instance key in the config address', () => {
    expect(formatConfigAddress(parseResourceAddress('module.a[0].module.b["x"].kubernetes_pod.p[3]'))).toBe(
      'module.a.module.b.kubernetes_pod.p',
    );
  });

  it('reads module paths, including the empty root', () => {
    expect(parseModulePath(undefined)).toEqual([]);
    expect(parseModulePath('module.app[2].module.db')).toEqual([{ name: 'app', key: 2 }, { name: 'db' }]);
  });

  it.each(['kubernetes_pod', 'kubernetes_pod.p.extra', 'kubernetes_pod.p[x]', 'module.m', 'kubernetes_pod.p["open]'])(
    'refuses %s with a message naming it',
    (bad) => {
      expect(() => parseResourceAddress(bad)).toThrow(AddressError);
      expect(() => parseResourceAddress(bad)).toThrow(bad);
    },
  );
});
