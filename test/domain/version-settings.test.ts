import { settingsToCarry, variableChanges } from '../../src/domain/version-settings';

describe('settingsToCarry: what a pushed version takes over from the active one', () => {
  test('every variable value, as the active version stored it, and its provisioner tags', () => {
    const settings = settingsToCarry({
      versionName: 'v3',
      variables: [
        { name: 'namespace', value: 'team-a', sensitive: false },
        { name: 'use_kubeconfig', value: 'false', sensitive: false },
      ],
      tags: { scope: 'organization', owner: '', cluster: 'east' },
    });
    expect(settings).toEqual({
      ok: true,
      userVariableValues: [
        { name: 'namespace', value: 'team-a' },
        { name: 'use_kubeconfig', value: 'false' },
      ],
      provisionerTags: { scope: 'organization', owner: '', cluster: 'east' },
    });
  });

  test('a sensitive variable cannot be carried (Coder redacts it): refused, naming it and how to push by hand', () => {
    const settings = settingsToCarry({
      versionName: 'v3',
      variables: [
        { name: 'namespace', value: '*redacted*', sensitive: true },
        { name: 'image', value: 'base', sensitive: false },
      ],
      tags: {},
    });
    expect(settings.ok).toBe(false);
    if (settings.ok) return;
    expect(settings.reason).toContain('template variable(s) namespace of the active version v3 are sensitive');
    expect(settings.reason).toContain('Nothing was pushed');
    expect(settings.reason).toContain('--version <its id>');
    expect(settings.reason).not.toContain('image');
  });

  test("a sensitive variable's value given to the worker is carried; the others still from Coder; a given value for a non-sensitive one is not used", () => {
    const settings = settingsToCarry({
      versionName: 'v3',
      variables: [
        { name: 'namespace', value: '*redacted*', sensitive: true },
        { name: 'image', value: 'base', sensitive: false },
      ],
      tags: {},
      sensitiveValues: { namespace: 'team-s', image: 'other' },
    });
    expect(settings).toEqual({ ok: true, userVariableValues: [{ name: 'namespace', value: 'team-s' }, { name: 'image', value: 'base' }], provisionerTags: {} });
  });

  test('only the sensitive variables without a given value are named, with where to give them; no given value is echoed', () => {
    const settings = settingsToCarry({
      versionName: 'v3',
      variables: [
        { name: 'token', value: '*redacted*', sensitive: true },
        { name: 'namespace', value: '*redacted*', sensitive: true },
      ],
      tags: {},
      sensitiveValues: { namespace: 'team-s-secret' },
      sensitiveValuesHint: 'key "coder/k8s-dev" of /etc/wsmigrate/variables.json',
    });
    expect(settings.ok).toBe(false);
    if (settings.ok) return;
    expect(settings.reason).toContain('template variable(s) token of the active version v3 are sensitive');
    expect(settings.reason).toContain('Give the worker their values (key "coder/k8s-dev" of /etc/wsmigrate/variables.json) and run again');
    expect(settings.reason).not.toContain('team-s-secret');
    expect(settings.reason).toMatch(/variable\(s\) token of /);
  });

  test('a version without variables carries none', () => {
    expect(settingsToCarry({ versionName: 'v1', variables: [], tags: { scope: 'organization', owner: '' } })).toEqual({ ok: true, userVariableValues: [], provisionerTags: { scope: 'organization', owner: '' } });
  });
});

describe('variableChanges: what a build of the target version plans with differently', () => {
  const v = (name: string, value: string, sensitive = false) => ({ name, value, sensitive });
  test('values both versions declare and store differently; new and dropped variables change nothing already built', () => {
    expect(variableChanges([v('namespace', 'team-a'), v('image', 'base'), v('old', 'x')], [v('namespace', 'coder'), v('image', 'base'), v('new', 'y')])).toEqual([{ name: 'namespace', from: 'team-a', to: 'coder' }]);
  });
  test('sensitive ones cannot be compared (Coder redacts both) and are left out', () => {
    expect(variableChanges([v('token', '*redacted*', true)], [v('token', '*redacted*', true)])).toEqual([]);
    expect(variableChanges([v('token', 'a')], [v('token', '*redacted*', true)])).toEqual([]);
  });
});
