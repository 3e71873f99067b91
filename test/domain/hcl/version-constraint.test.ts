import { admitsVersionAtLeast } from '../../../src/domain/hcl/version-constraint';

/**
 * Whether a constraint allows some release from a floor up: what refuses a template pinned to a
 * hashicorp/kubernetes without the _v1 types (2.7.0) or a Terraform without removed{} blocks (1.7).
 * A release allowed only in a narrow window above the floor must still count.
 */
describe('admitsVersionAtLeast', () => {
  test.each<[string, boolean]>([
    // Only one patch release allowed, just above a bound.
    ['> 2.8.0, < 2.8.2', true],
    ['> 2.8.0, < 2.8.1', false],
    // Exactly the floor, by a range that closes just after it.
    ['>= 2.7.0, < 2.7.1', true],
    ['> 2.7.0, < 2.7.1', false],
    ['>= 2.6.0, <= 2.7.0', true],
    ['>= 2.6.0, < 2.7.0', false],
    // The floor excluded: the next release counts.
    ['!= 2.7.0', true],
    ['~> 2.7.0, != 2.7.0, != 2.7.1', true],
  ])('%s from 2.7.0: %s', (constraint, admits) => {
    expect(admitsVersionAtLeast(constraint, [2, 7, 0])).toBe(admits);
  });
});
