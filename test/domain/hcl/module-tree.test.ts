import type { ModuleCall } from '../../../src/domain/hcl/config-outline';
import { dirOf, ModuleTree, resolveLocalSource } from '../../../src/domain/hcl/module-tree';

const call = (file: string, name: string, source: string | undefined): ModuleCall => ({ file, name, source, line: 1 });

describe('module paths', () => {
  test.each<[string, string | undefined, string | undefined]>([
    ['', './modules/pod', 'modules/pod'],
    ['modules/pod', '../volume', 'modules/volume'],
    ['modules/pod', './../../shared//x/.', 'shared/x'],
    ['a', '../..', undefined],
    ['', '../outside', undefined],
    ['', 'registry.coder.com/coder/code-server/coder', undefined],
    ['', 'git::https://example.com/m.git', undefined],
    ['', '.hidden', undefined],
    ['', undefined, undefined],
  ])('resolveLocalSource(%j, %j) is %j', (dir, source, expected) => {
    expect(resolveLocalSource(dir, source)).toBe(expected);
  });

  test('dirOf gives the folder part of a template path', () => {
    expect([dirOf('main.tf'), dirOf('modules/pod/main.tf'), dirOf('a/b')]).toEqual(['', 'modules/pod', 'a']);
  });
});

describe('ModuleTree', () => {
  const calls = [
    call('main.tf', 'pod', './modules/pod'),
    call('main.tf', 'code_server', 'registry.coder.com/coder/code-server/coder'),
    call('main.tf', 'missing', './modules/not-there'),
    call('modules/pod/main.tf', 'volume', '../volume'),
    call('modules/pod/main.tf', 'remote', 'git::https://example.com/m.git'),
    call('modules/volume/main.tf', 'again', '../volume'),
  ];
  const tree = new ModuleTree(calls, new Set(['', 'modules/pod', 'modules/volume']));

  test('isRewritten follows a call path from a folder while it stays in the template', () => {
    expect(tree.isRewritten('', ['pod'])).toBe(true);
    expect(tree.isRewritten('', ['pod', 'volume'])).toBe(true);
    expect(tree.isRewritten('modules/pod', ['volume'])).toBe(true);
    expect(tree.isRewritten('', [])).toBe(true);
    expect(tree.isRewritten('', ['code_server'])).toBe(false);
    expect(tree.isRewritten('', ['missing'])).toBe(false);
    expect(tree.isRewritten('', ['volume'])).toBe(false);
    expect(tree.isRewritten('', ['pod', 'remote'])).toBe(false);
  });

  test('prefixesOf lists every address prefix a folder is reached under, a self-calling module cut at 16 levels', () => {
    expect(tree.prefixesOf('')).toEqual(['']);
    expect(tree.prefixesOf('modules/pod')).toEqual(['module.pod.']);
    const volume = tree.prefixesOf('modules/volume');
    expect(volume[0]).toBe('module.pod.module.volume.');
    expect(volume).toHaveLength(15);
    expect(volume[14]).toBe(`module.pod.module.volume.${'module.again.'.repeat(14)}`);
    expect(tree.prefixesOf('modules/not-there')).toEqual([]);
  });

  test('resolve tells a local folder, an external call and a name no call has', () => {
    expect(tree.resolve([])).toEqual({ kind: 'local', dir: '' });
    expect(tree.resolve(['pod', 'volume'])).toEqual({ kind: 'local', dir: 'modules/volume' });
    expect(tree.resolve(['code_server'])).toEqual({ kind: 'external', call: calls[1], address: 'module.code_server' });
    expect(tree.resolve(['pod', 'remote'])).toEqual({ kind: 'external', call: calls[4], address: 'module.pod.module.remote' });
    expect(tree.resolve(['pod', 'nope'])).toEqual({ kind: 'not-called', address: 'module.pod.module.nope' });
  });

  test('externalCalls lists the calls whose code is elsewhere, depth first in the order of the calls, under their addresses', () => {
    expect(tree.externalCalls().map((c) => [c.address, c.call.source])).toEqual([
      ['module.pod.module.remote', 'git::https://example.com/m.git'],
      ['module.code_server', 'registry.coder.com/coder/code-server/coder'],
      ['module.missing', './modules/not-there'],
    ]);
  });
});
