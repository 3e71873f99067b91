import { parameterRefusals, parametersLost, sameParameterRules, type VersionParameter } from '../../src/domain/build-parameters';

const size: VersionParameter = { name: 'size', type: 'number', required: false, default_value: '10' };

describe('parameterRefusals: what Coder would refuse in a build that gives no values', () => {
  test.each<[string, VersionParameter[], { name: string; value: string }[], string[]]>([
    ['the last value is carried and valid', [size], [{ name: 'size', value: '20' }], []],
    ['no last value: the default', [size], [], []],
    ['a required one with a last value', [{ ...size, required: true, default_value: '' }], [{ name: 'size', value: '5' }], []],
    ['a required one without', [{ ...size, required: true, default_value: '' }], [], ["'size' is required and the last build has no value for it"]],
    ['a required one with only another parameter\'s value', [{ ...size, required: true }], [{ name: 'other', value: '5' }], ["'size' is required and the last build has no value for it"]],
    ['a value among the options', [{ ...size, type: 'string', options: [{ value: '20' }, { value: '30' }] }], [{ name: 'size', value: '20' }], []],
    ['a value outside them', [{ ...size, type: 'string', options: [{ value: '10' }, { value: '30' }] }], [{ name: 'size', value: '20' }], ["'size' is '20', not one of its options (10, 30)"]],
    ['options win over a range', [{ ...size, options: [{ value: '20' }], validation_max: 5 }], [{ name: 'size', value: '20' }], []],
    ['an ephemeral one takes its default, not the last value', [{ ...size, ephemeral: true, options: [{ value: '10' }] }], [{ name: 'size', value: '20' }], []],
    ['an ephemeral one whose default is outside the options', [{ ...size, ephemeral: true, options: [{ value: '20' }] }], [{ name: 'size', value: '20' }], ["'size' is '10', not one of its options (20)"]],
    ['over the maximum', [{ ...size, validation_max: 15 }], [{ name: 'size', value: '20' }], ["'size' is 20, over its maximum 15"]],
    ['at the maximum', [{ ...size, validation_max: 20 }], [{ name: 'size', value: '20' }], []],
    ['under the minimum', [{ ...size, validation_min: 30 }], [{ name: 'size', value: '20' }], ["'size' is 20, under its minimum 30"]],
    ['at the minimum', [{ ...size, validation_min: 20 }], [{ name: 'size', value: '20' }], []],
    ['a minimum of 0', [{ ...size, validation_min: 0 }], [{ name: 'size', value: '-1' }], ["'size' is -1, under its minimum 0"]],
    ['not a number', [size], [{ name: 'size', value: 'big' }], ["'size' is 'big', not a number"]],
    ['an empty number', [size], [{ name: 'size', value: ' ' }], ["'size' is ' ', not a number"]],
    ['a string is not range-checked', [{ ...size, type: 'string', validation_max: 1 }], [{ name: 'size', value: '20' }], []],
    [
      'every problem, in the version\'s order',
      [{ ...size, validation_max: 15 }, { name: 'quota', type: 'number', required: true, default_value: '' }],
      [{ name: 'size', value: '20' }],
      ["'size' is 20, over its maximum 15", "'quota' is required and the last build has no value for it"],
    ],
  ])('%s', (_, target, last, expected) => {
    expect(parameterRefusals(target, last)).toEqual(expected);
  });
});

describe('sameParameterRules: when the workspace\'s values need no reading', () => {
  test.each<[string, VersionParameter[], VersionParameter[], boolean]>([
    ['the same, in another order', [size, { ...size, name: 'b' }], [{ ...size, name: 'b' }, size], true],
    ['none on either side', [], [], true],
    ['one more parameter', [size], [size, { ...size, name: 'b' }], false],
    ['one fewer', [size, { ...size, name: 'b' }], [size], false],
    ['another type', [size], [{ ...size, type: 'string' }], false],
    ['now required', [size], [{ ...size, required: true }], false],
    ['another default', [size], [{ ...size, default_value: '5' }], false],
    ['now ephemeral', [size], [{ ...size, ephemeral: true }], false],
    ['ephemeral absent reads as false', [size], [{ ...size, ephemeral: false }], true],
    ['options added', [size], [{ ...size, options: [{ value: '10' }] }], false],
    ['null options read as none', [size], [{ ...size, options: null }], true],
    ['a new maximum', [size], [{ ...size, validation_max: 20 }], false],
    ['a new minimum', [size], [{ ...size, validation_min: 1 }], false],
    ['renamed', [size], [{ ...size, name: 'disk' }], false],
  ])('%s', (_, a, b, expected) => {
    expect(sameParameterRules(a, b)).toBe(expected);
  });
});

describe('parametersLost: what a restore gives back', () => {
  it('lists the values the earlier build had that the later one dropped or changed, nothing else', () => {
    const had = [
      { name: 'home_disk_size', value: '20' },
      { name: 'region', value: 'eu-west' },
      { name: 'image', value: 'ubuntu' },
    ];
    const now = [
      { name: 'region', value: 'eu-west' },
      { name: 'image', value: 'debian' },
    ];
    expect(parametersLost(had, now)).toEqual([
      { name: 'home_disk_size', value: '20' },
      { name: 'image', value: 'ubuntu' },
    ]);
    expect(parametersLost(had, had)).toEqual([]);
    expect(parametersLost([], now)).toEqual([]);
  });
});
