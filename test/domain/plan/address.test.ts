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

describe('addresses, exact parses and messages', () => {
  it.each([
    ['module.module.t.n', { modules: [{ name: 'module' }], mode: 'managed', type: 't', name: 'n' }],
    ['module.m.data.data.n', { modules: [{ name: 'm' }], mode: 'data', type: 'data', name: 'n' }],
    ['data.data.n', { modules: [], mode: 'data', type: 'data', name: 'n' }],
    ['data.t.n[0]', { modules: [], mode: 'data', type: 't', name: 'n', index: 0 }],
    ['module.data.data.x.y', { modules: [{ name: 'data' }], mode: 'data', type: 'x', name: 'y' }],
    ['  t-1.n_2  ', { modules: [], mode: 'managed', type: 't-1', name: 'n_2' }],
    ['t.n["a\\\\"]', { modules: [], mode: 'managed', type: 't', name: 'n', index: 'a\\' }],
    ['module.a["k"].module.b[2].t.n["x"]', { modules: [{ name: 'a', key: 'k' }, { name: 'b', key: 2 }], mode: 'managed', type: 't', name: 'n', index: 'x' }],
  ])('%s', (text, expected) => {
    expect(parseResourceAddress(text)).toEqual(expected);
  });

  it.each([
    ['module.m.module', '"module.m.module" names a module, not a resource: expected [module.NAME.]…TYPE.NAME'],
    ['module[0].m.t.n', '"module[0].m.t.n" names a module, not a resource: expected [module.NAME.]…TYPE.NAME'],
    ['module.m.data[0].t.n', '"module.m.data[0].t.n" is not a resource address: expected [module.NAME.]…[data.]TYPE.NAME[key]'],
    ['t[0].n', '"t[0].n" is not a resource address: expected [module.NAME.]…[data.]TYPE.NAME[key]'],
    ['module.m.t', '"module.m.t" is not a resource address: expected [module.NAME.]…[data.]TYPE.NAME[key]'],
    ['1t.n', '"1t.n" is not a resource address: expected a name at "1t.n"'],
    ['t.n.', '"t.n." is not a resource address: expected a name at ""'],
    ['t.n x', '"t.n x" is not a resource address: unexpected " x"'],
    ['t.n["a"', '"t.n["a"" has a malformed instance key at "["a"": use [0] or ["key"]'],
    ['t.n["a"x', '"t.n["a"x" has a malformed instance key at "["a"x": use [0] or ["key"]'],
    ['t.n[x]', '"t.n[x]" has a malformed instance key at "[x]": use [0] or ["key"]'],
  ])('refuses %s: %s', (text, message) => {
    expect(() => parseResourceAddress(text)).toThrow(new AddressError(message));
  });

  it.each([
    ['', []],
    ['  ', []],
    ['module.a["k"].module.b[2]', [{ name: 'a', key: 'k' }, { name: 'b', key: 2 }]],
  ])('reads the module path %j', (text, expected) => {
    expect(parseModulePath(text)).toEqual(expected);
  });

  it.each([
    ['module.a.module', '"module.a.module" is not a module path: expected module.NAME pairs'],
    ['module.a.b', '"module.a.b" is not a module path: expected module.NAME pairs'],
    ['mod.a', '"mod.a" is not a module path: expected "module" at segment 1'],
    ['module[1].a', '"module[1].a" is not a module path: expected "module" at segment 1'],
    ['module.a.mod.b', '"module.a.mod.b" is not a module path: expected "module" at segment 3'],
  ])('refuses the module path %s', (text, message) => {
    expect(() => parseModulePath(text)).toThrow(new AddressError(message));
  });

  it('prints module keys in instance addresses only, and data sources with their prefix', () => {
    const a = { modules: [{ name: 'a', key: 0 }, { name: 'b', key: 'k' }], mode: 'data' as const, type: 't', name: 'n', index: 'i' };
    expect(formatInstanceAddress(a)).toBe('module.a[0].module.b["k"].data.t.n["i"]');
    expect(formatConfigAddress(a)).toBe('module.a.module.b.data.t.n');
    expect(formatInstanceAddress({ modules: [], mode: 'managed', type: 't', name: 'n' })).toBe('t.n');
    expect(formatConfigAddress({ modules: [], mode: 'managed', type: 't', name: 'n' })).toBe('t.n');
  });
});
