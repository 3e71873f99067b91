import {
  formatIndexKey,
  formatInstanceAddress,
  formatResourceAddress,
  parseConfigResourceAddress,
  parseResourceInstanceAddress,
  withType,
} from '../../../src/domain/state/address';

describe('instance addresses', () => {
  it.each([
    [{ mode: 'managed', type: 'kubernetes_deployment', name: 'main' }, undefined, 'kubernetes_deployment.main'],
    [{ mode: 'managed', type: 'kubernetes_deployment', name: 'main' }, 0, 'kubernetes_deployment.main[0]'],
    [{ mode: 'managed', type: 'kubernetes_deployment', name: 'main' }, 'key', 'kubernetes_deployment.main["key"]'],
    [{ module: 'module.x[1]', mode: 'managed', type: 'kubernetes_deployment', name: 'main' }, 'key', 'module.x[1].kubernetes_deployment.main["key"]'],
    [{ mode: 'data', type: 'kubernetes_secret', name: 's' }, undefined, 'data.kubernetes_secret.s'],
    [{ module: 'module.a["k"].module.b', mode: 'data', type: 'kubernetes_secret', name: 's' }, 3, 'module.a["k"].module.b.data.kubernetes_secret.s[3]'],
    [{ mode: 'managed', type: 'kubernetes_config_map', name: 'c' }, 'a "q"', 'kubernetes_config_map.c["a \\"q\\""]'],
  ] as const)('formats %j key %j as %s', (resource, key, expected) => {
    expect(formatInstanceAddress(resource, key)).toBe(expected);
  });

  it('formats index keys: numbers as-is, strings JSON-quoted', () => {
    expect([formatIndexKey(10), formatIndexKey('10'), formatIndexKey('a.b')]).toEqual(['[10]', '["10"]', '["a.b"]']);
    expect(formatResourceAddress({ module: 'module.m', mode: 'managed', type: 't', name: 'n' })).toBe('module.m.t.n');
  });
});

describe('dependency and check addresses', () => {
  it('parses dependencies with module prefixes and data sources', () => {
    expect(parseConfigResourceAddress('module.x.kubernetes_secret.s')).toMatchObject({
      modules: [{ name: 'x' }],
      mode: 'managed',
      type: 'kubernetes_secret',
      name: 's',
    });
    expect(parseConfigResourceAddress('data.kubernetes_secret.x')).toMatchObject({ modules: [], mode: 'data', type: 'kubernetes_secret', name: 'x' });
    expect(parseConfigResourceAddress('module.a.module.b.data.kubernetes_secret.x')?.modules.map((m) => m.name)).toEqual(['a', 'b']);
  });

  it('tells module names from types when a module is named like a type', () => {
    const text = 'module.kubernetes_secret.kubernetes_secret.kubernetes_secret';
    const parsed = parseConfigResourceAddress(text);
    expect(parsed).toMatchObject({ modules: [{ name: 'kubernetes_secret' }], type: 'kubernetes_secret', name: 'kubernetes_secret' });
    expect(parsed && withType(text, parsed, 'kubernetes_secret_v1')).toBe('module.kubernetes_secret.kubernetes_secret_v1.kubernetes_secret');
  });

  it('parses check object addresses with keys anywhere, and keeps the key text when renaming', () => {
    const text = 'module.ws["a.b"].kubernetes_deployment.main["x\\"y"]';
    const parsed = parseResourceInstanceAddress(text);
    expect(parsed).toMatchObject({ modules: [{ name: 'ws', key: 'a.b' }], type: 'kubernetes_deployment', key: 'x"y' });
    expect(parsed && withType(text, parsed, 'kubernetes_deployment_v1')).toBe('module.ws["a.b"].kubernetes_deployment_v1.main["x\\"y"]');
    expect(parseResourceInstanceAddress('kubernetes_pod.p[12]')?.key).toBe(12);
  });

  it('rejects keys in config addresses and anything that is not a resource address', () => {
    for (const text of ['kubernetes_deployment.main[0]', 'module.x[0].kubernetes_secret.s', 'kubernetes_deployment', 'var.x.y.z', 'a.b.', '', 'kubernetes_deployment.main extra']) {
      expect([text, parseConfigResourceAddress(text)]).toEqual([text, undefined]);
    }
    expect(parseResourceInstanceAddress('kubernetes_pod.p[01]')).toBeUndefined();
    expect(parseResourceInstanceAddress('kubernetes_pod.p["open]')).toBeUndefined();
    // Instance addresses broken anywhere: a module without a name, key or dot, a key not closed
    // right after its quote, a type or name missing, a bad module key.
    for (const text of ['module..t.n', 'module.m[x].t.n', 'module.m["k"]x.t.n', 'module.m["k"].', 'module.mt.n', '.n', 't', 't.', 't.n["k"x]', 't.n["k"', 'module.m[01].t.n', 'module.m["k"x.t.n', 't n', 't/n']) {
      expect([text, parseResourceInstanceAddress(text)]).toEqual([text, undefined]);
    }
  });
});

describe('parsed addresses, field by field', () => {
  it.each([
    ['kubernetes_secret.s', false, { modules: [], mode: 'managed', type: 'kubernetes_secret', name: 's', typeStart: 0, typeEnd: 17 }],
    ['data.kubernetes_secret.s', false, { modules: [], mode: 'data', type: 'kubernetes_secret', name: 's', typeStart: 5, typeEnd: 22 }],
    ['module.a.module.b_2.data.t.n', false, { modules: [{ name: 'a' }, { name: 'b_2' }], mode: 'data', type: 't', name: 'n', typeStart: 25, typeEnd: 26 }],
    ['module.a[0].module.b["x.y"].t.n[10]', true, { modules: [{ name: 'a', key: 0 }, { name: 'b', key: 'x.y' }], mode: 'managed', type: 't', name: 'n', key: 10, typeStart: 28, typeEnd: 29 }],
    ['t-1.n-2["a\\\\"]', true, { modules: [], mode: 'managed', type: 't-1', name: 'n-2', key: 'a\\', typeStart: 0, typeEnd: 3 }],
    ['t.n[0]', true, { modules: [], mode: 'managed', type: 't', name: 'n', key: 0, typeStart: 0, typeEnd: 1 }],
    ['t.n', true, { modules: [], mode: 'managed', type: 't', name: 'n', typeStart: 0, typeEnd: 1 }],
  ] as const)('%s (keys allowed: %s)', (text, keys, expected) => {
    const parsed = keys ? parseResourceInstanceAddress(text) : parseConfigResourceAddress(text);
    expect(parsed).toEqual(expected);
    expect(parsed && text.slice(parsed.typeStart, parsed.typeEnd)).toBe(expected.type);
  });

  it.each([
    'module.', 'module.a', 'module.a.', 'module.a[0]t.n', 'module.1a.t.n', 'data.t', 'data.', '.t.n', 't..n', 't.n.', 't.n[', 't.n[]', 't.n[1a]', 't.n[-1]', 't.n[0]x',
    't.n["a"', 't.n["a"]x', 't.n["a\\"]', 't.n["\\q"]', 't.n[0][1]', 't.n ', ' t.n', 'module.a["k"]]t.n', 'module.a["k"].t',
  ])('refuses %j as an instance address', (text) => {
    expect([text, parseResourceInstanceAddress(text)]).toEqual([text, undefined]);
  });

  it('keeps the bytes of a key whose escapes hide a quote and a bracket', () => {
    const text = 'module.m["a\\"]"].t.n';
    const parsed = parseResourceInstanceAddress(text);
    expect(parsed).toMatchObject({ modules: [{ name: 'm', key: 'a"]' }], type: 't', typeStart: 17, typeEnd: 18 });
    expect(parsed && withType(text, parsed, 'kubernetes_secret_v1')).toBe('module.m["a\\"]"].kubernetes_secret_v1.n');
  });
});
