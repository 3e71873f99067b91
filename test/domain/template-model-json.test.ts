import { buildTemplateModel, TemplateModelError } from '../../src/domain/template-model';

/** buildTemplateModel on hand-written hcl2json-shaped JSON: every rule of the reader, without the parser. */
const model = (files: Record<string, unknown>, protectedAddresses: string[] = []) =>
  buildTemplateModel(Object.entries(files).map(([file, json]) => ({ file, json })), protectedAddresses);
const pod = (body: Record<string, unknown>) => ({ resource: [{ kubernetes_pod: [{ p: [body] }] }] });
const refusal = (files: Record<string, unknown>): string => {
  try {
    model(files);
  } catch (e) {
    if (e instanceof TemplateModelError) return e.message;
    throw e;
  }
  throw new Error('expected a TemplateModelError');
};

describe('template model from parsed JSON', () => {
  it('reads bodies given bare or in arrays, and skips array elements that are not bodies', () => {
    const m = model({ 'main.tf': { resource: ['junk', 7, null, { kubernetes_pod: { p: {} } }], data: { coder_workspace: [{ me: [{}] }] }, module: [{ b: [{}], a: {} }, 'x', null] } });
    expect(m).toEqual({
      resources: [
        { mode: 'managed', type: 'kubernetes_pod', name: 'p', file: 'main.tf' },
        { mode: 'data', type: 'coder_workspace', name: 'me', file: 'main.tf' },
      ],
      removed: [],
      moved: [],
      modules: ['a', 'b'],
      protectedAddresses: [],
    });
  });

  it.each<[unknown, unknown]>([
    [2, 2],
    [0, 0],
    ['12', 12],
    [-1, 'unknown'],
    [1.5, 'unknown'],
    ['1.5', 'unknown'],
    ['x2', 'unknown'],
    ['${data.coder_workspace.me.start_count}', { startCountOf: 'data.coder_workspace.me' }],
    ['${ data.coder_workspace.ws-1.start_count }', { startCountOf: 'data.coder_workspace.ws-1' }],
    ['${1 + data.coder_workspace.me.start_count}', 'unknown'],
    ['x${data.coder_workspace.me.start_count}', 'unknown'],
    ['${data.coder_workspace.me.start_count}x', 'unknown'],
    [true, 'unknown'],
    // A one-element list is not a number, even when its only element would be one.
    [['3'], 'unknown'],
    [['${data.coder_workspace.me.start_count}'], 'unknown'],
  ])('count %j is %j', (count, expected) => {
    expect(model({ 'main.tf': pod({ count }) }).resources[0].count).toEqual(expected);
  });

  it.each<[unknown, unknown]>([
    [{ z: 1, a: 2 }, { keys: ['a', 'z'] }],
    [{ '${var.k}': 1, a: 2 }, 'unknown'],
    ['${toset(["b", "a", "b"])}', { keys: ['a', 'b'] }],
    ['${toset([])}', { keys: [] }],
    ['${toset(["a", "${var.x}"])}', 'unknown'],
    ['${toset(["a", 1])}', 'unknown'],
    ['${toset([a])}', 'unknown'],
    ['${toset(["a"]) }x', 'unknown'],
    ['${["a"]}', 'unknown'],
    [['a'], 'unknown'],
    [['${toset(["a"])}'], 'unknown'],
  ])('for_each %j is %j', (forEach, expected) => {
    expect(model({ 'main.tf': pod({ for_each: forEach }) }).resources[0].forEach).toEqual(expected);
  });

  it('reads removed and moved blocks: addresses in either spelling, destroy false only when written false', () => {
    const m = model({
      'guard.tf': {
        removed: [
          { from: '${kubernetes_pod.a}', lifecycle: [{ destroy: false }] },
          { from: 'kubernetes_pod.b', lifecycle: { destroy: 'false' } },
          { from: '  module.m  ' },
          { from: 'kubernetes_pod.c', lifecycle: [{}] },
        ],
        moved: { from: '${ kubernetes_pod.x }', to: 'kubernetes_pod.y' },
      },
    });
    expect(m.removed).toEqual([
      { from: 'kubernetes_pod.a', destroy: false, file: 'guard.tf' },
      { from: 'kubernetes_pod.b', destroy: true, file: 'guard.tf' },
      { from: 'module.m', destroy: true, file: 'guard.tf' },
      { from: 'kubernetes_pod.c', destroy: true, file: 'guard.tf' },
    ]);
    expect(m.moved).toEqual([{ from: 'kubernetes_pod.x', to: 'kubernetes_pod.y', file: 'guard.tf' }]);
    expect(model({ 'g.tf': { moved: [{ from: 'a${b}c', to: 't.n' }] } }).moved[0].from).toBe('a${b}c');
  });

  it.each([
    // Only a whole "${…}" is the interpolation hcl2json writes; text around it is kept as written.
    ['${ kubernetes_pod.a["k 1"] }', 'kubernetes_pod.a["k 1"]'],
    ['module.m.${kubernetes_pod.a}', 'module.m.${kubernetes_pod.a}'],
    ['${kubernetes_pod.a}.b', '${kubernetes_pod.a}.b'],
  ])('a moved block from %j moves %j', (from, address) => {
    expect(model({ 'g.tf': { moved: { from, to: 'kubernetes_pod.b' } } }).moved).toEqual([{ from: address, to: 'kubernetes_pod.b', file: 'g.tf' }]);
  });

  it('refuses with an error named TemplateModelError, the failure type an activity reports', () => {
    expect(() => model({ 'a.tf': [] })).toThrow(expect.objectContaining({ name: 'TemplateModelError' }));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a removed block without from', { 'g.tf': { removed: [{ from: 'kubernetes_pod.a' }, { lifecycle: {} }] } }, 'g.tf: removed block #2 has no "from" address'],
    ['a removed block with an empty from', { 'g.tf': { removed: { from: '${ }' } } }, 'g.tf: removed block #1 has no "from" address'],
    ['a removed block with a blank from', { 'g.tf': { removed: { from: '  ' } } }, 'g.tf: removed block #1 has no "from" address'],
    ['a moved block without to', { 'g.tf': { moved: [{ from: 'a.b', to: 'c.d' }, { from: 'a.b' }] } }, 'g.tf: moved block #2 needs "from" and "to"'],
    ['a moved block without from', { 'g.tf': { moved: { to: 'a.b' } } }, 'g.tf: moved block #1 needs "from" and "to"'],
    ['a file that is an array', { 'a.tf': [] }, 'a.tf: expected the parsed file to be an object, got an array'],
    ['a file that is a string', { 'a.tf': 'x' }, 'a.tf: expected the parsed file to be an object, got string'],
    [
      'a block declared twice',
      { 'a.tf': pod({}), 'b.tf': pod({ count: 1 }) },
      'b.tf: kubernetes_pod.p is declared twice (also in a.tf); Terraform rejects duplicate blocks. Keep one.',
    ],
    [
      'a data source declared twice',
      { 'a.tf': { data: { t: { n: {} } } }, 'b.tf': { data: { t: { n: {} } } } },
      'b.tf: data.t.n is declared twice (also in a.tf); Terraform rejects duplicate blocks. Keep one.',
    ],
  ])('refuses %s', (_, files, message) => {
    expect(refusal(files)).toBe(message);
  });

  it('a resource and a data source of one type and name are two blocks', () => {
    expect(model({ 'a.tf': { resource: { t: { n: {} } }, data: { t: { n: {} } } } }).resources.map((r) => r.mode)).toEqual(['managed', 'data']);
  });

  it.each([
    ['override.tf', true],
    ['override.tf.json', true],
    ['a_override.tf', true],
    ['dir/x_override.tf', true],
    ['dir\\override.tf', true],
    ['main_override.tf', true],
    ['xoverride.tf', false],
    ['override.tf.bak', false],
    ['override_x.tf', false],
    ['dir_override/main.tf', false],
  ])('%s is an override file: %s', (file, isOverride) => {
    // An override file merges into the block of the same address instead of declaring it again.
    const files = { [file]: pod({ count: 3 }), 'main.tf': pod({ for_each: { a: 1 } }) };
    if (isOverride) {
      expect(model(files).resources).toEqual([{ mode: 'managed', type: 'kubernetes_pod', name: 'p', count: 3, file: 'main.tf' }]);
    } else {
      expect(refusal(files)).toBe(`main.tf: kubernetes_pod.p is declared twice (also in ${file}); Terraform rejects duplicate blocks. Keep one.`);
    }
  });

  it('an override replaces count by for_each and back, and is ignored for a block no file declares', () => {
    expect(model({ 'main.tf': pod({ count: 2 }), 'override.tf': pod({ for_each: { b: 1 } }) }).resources).toEqual([
      { mode: 'managed', type: 'kubernetes_pod', name: 'p', forEach: { keys: ['b'] }, file: 'main.tf' },
    ]);
    expect(model({ 'main.tf': pod({}), 'override.tf': { resource: { kubernetes_pod: { q: { count: 1 } } } } }).resources).toEqual([
      { mode: 'managed', type: 'kubernetes_pod', name: 'p', file: 'main.tf' },
    ]);
    expect(model({ 'main.tf': pod({ count: 2 }), 'override.tf': pod({}) }).resources[0]).toEqual({ mode: 'managed', type: 'kubernetes_pod', name: 'p', count: 2, file: 'main.tf' });
  });

  it('keeps the protected addresses it is given, as a copy', () => {
    const given = ['kubernetes_pod.p'];
    const m = model({ 'main.tf': pod({}) }, given);
    given.push('x.y');
    expect(m.protectedAddresses).toEqual(['kubernetes_pod.p']);
    expect(buildTemplateModel([{ file: 'main.tf', json: pod({}) }]).protectedAddresses).toEqual([]);
  });
});
