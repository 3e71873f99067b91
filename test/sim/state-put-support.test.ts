import { supportsStatePut } from '../../src/sim/state-put-support';

describe('which Coder releases serve PUT /workspacebuilds/{id}/state', () => {
  test.each([
    ['v2.27.10', true],
    ['v2.27.9', false],
    ['v2.28.7+abc1234', true],
    ['v2.28.6', false],
    ['v2.29.2', true],
    ['2.29.1', false],
    ['v2.30.0', true],
    ['v2.31.7+sim0001', true],
    ['v2.26.99', false],
    ['v3.0.0', true],
    ['v0.0.0-devel+deadbee', true],
    ['not a version', false],
  ])('%s → %s', (version, expected) => {
    expect(supportsStatePut(version)).toBe(expected);
  });
});
