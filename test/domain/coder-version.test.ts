import {
  compareCoderVersions,
  CoderVersionError,
  describeVersionGate,
  formatCoderVersion,
  parseCoderVersion,
  supportsStateInBuilds,
  updateRestartStopsFirst,
} from '../../src/domain/coder-version';

describe('parseCoderVersion', () => {
  it.each([
    ['v2.29.2+abc1234', { major: 2, minor: 29, patch: 2, prerelease: [], build: 'abc1234', devel: false }],
    ['v2.29.2', { major: 2, minor: 29, patch: 2, prerelease: [], devel: false }],
    ['2.29.2', { major: 2, minor: 29, patch: 2, prerelease: [], devel: false }],
    ['v0.0.0-devel+abc', { major: 0, minor: 0, patch: 0, prerelease: ['devel'], build: 'abc', devel: true }],
    ['v2.30.0-rc.1', { major: 2, minor: 30, patch: 0, prerelease: ['rc', '1'], devel: false }],
    [' v2.31.1+0123abc\n', { major: 2, minor: 31, patch: 1, build: '0123abc' }],
  ])('reads %j', (raw, expected) => {
    expect(parseCoderVersion(raw)).toMatchObject({ raw, ...expected });
  });

  it.each(['', 'latest', 'v2.29', 'v2.29.2.1', 'v02.29.2', '2.29.x', 'v2.29.2-', '<html>'])('refuses %j with an example of the expected form', (raw) => {
    expect(() => parseCoderVersion(raw)).toThrow(CoderVersionError);
    expect(() => parseCoderVersion(raw)).toThrow(/expected vMAJOR\.MINOR\.PATCH.*v2\.29\.2\+abc1234/);
  });

  it('formats without build metadata', () => {
    expect(formatCoderVersion(parseCoderVersion('v2.30.0-rc.1+abc'))).toBe('v2.30.0-rc.1');
  });
});

describe('compareCoderVersions', () => {
  const order = ['v2.26.9', 'v2.27.0-rc.1', 'v2.27.0-rc.2', 'v2.27.0-rc.10', 'v2.27.0', 'v2.27.10+x', 'v2.30.0-rc.1', 'v2.30.0', 'v3.0.0', 'v0.0.0-devel+abc'];
  it('sorts releases by semver, pre-releases before their release, devel builds last', () => {
    const shuffled = [...order].reverse().map(parseCoderVersion);
    expect(shuffled.sort(compareCoderVersions).map((v) => v.raw)).toEqual(order);
    expect(compareCoderVersions(parseCoderVersion('v2.29.2+aaa'), parseCoderVersion('2.29.2+bbb'))).toBe(0);
  });
});

describe('supportsStateInBuilds', () => {
  // No floor within 2.x: the versions that lacked PUT …/state (2.26, 2.27.9, 2.29.1) migrate too.
  it.each([
    ['v2.0.0', true],
    ['v2.26.99', true],
    ['v2.27.9', true],
    ['v2.29.1', true],
    ['v2.29.2-rc.1', true],
    ['v2.31.7', true],
    ['v3.0.0', true],
    ['v1.99.99', false],
    ['v0.9.0', false],
    ['v0.0.0-devel+abc', true],
  ])('%s -> %s', (raw, expected) => {
    expect(supportsStateInBuilds(parseCoderVersion(raw))).toBe(expected);
  });
});

describe('updateRestartStopsFirst', () => {
  it.each([
    ['v2.29.2', false],
    ['v2.31.0', false],
    ['v2.31.1-rc.0', true],
    ['v2.31.1', true],
    ['v2.31.2', true],
    ['v2.32.0', true],
    ['v2.34.5', true],
    ['v3.0.0', true],
    ['v0.0.0-devel+abc', true],
  ])('%s -> %s', (raw, expected) => {
    expect(updateRestartStopsFirst(parseCoderVersion(raw))).toBe(expected);
  });
});

describe('describeVersionGate', () => {
  it('refuses a Coder older than 2, naming it and what to do', () => {
    expect(describeVersionGate(parseCoderVersion('v1.9.3+abc1234'))).toBe('Coder v1.9.3 predates Coder 2 (builds that carry a state); upgrade to any 2.x release first');
  });

  it('accepts every 2.x, and warns about Update and Restart from 2.31.1', () => {
    expect(describeVersionGate(parseCoderVersion('v2.27.3'))).toBe('Coder v2.27.3 takes the state inside a build (POST /workspaces/{id}/builds with state)');
    expect(describeVersionGate(parseCoderVersion('v2.31.1'))).toMatch(/^Coder v2\.31\.1 takes the state inside a build .*"Update and Restart" stops with the previous template version first/);
    expect(describeVersionGate(parseCoderVersion('v0.0.0-devel+abc'))).toMatch(/^Coder v0\.0\.0-devel \(a development build from main, treated as newest\) takes/);
  });
});
