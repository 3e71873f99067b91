import { Command } from 'commander';
import { addFleetOptions, fleetInputFromOptions } from '../../src/cli/fleet-options';
import { migrateFleetInputSchema } from '../../src/domain/fleet-input';
import { parseInput } from '../../src/domain/migration-input';

function inputOf(...args: string[]) {
  const cmd = addFleetOptions(new Command('start')).exitOverride();
  cmd.parse(['--org', 'coder', '--template', 'k8s-dev', ...args], { from: 'user' });
  return fleetInputFromOptions(cmd.opts(), []);
}

describe('fleet start / schedule create options', () => {
  test('without an approver the fleet is refused with the message naming --any-approver, which these commands accept', () => {
    expect(() => parseInput(migrateFleetInputSchema, inputOf())).toThrow(/--any-approver/);
    const parsed = parseInput(migrateFleetInputSchema, inputOf('--any-approver'));
    expect(parsed.approval).toMatchObject({ approvers: [], anyApprover: true });
  });

  test('--approver names who may decide; --any-approver is off unless asked', () => {
    expect(parseInput(migrateFleetInputSchema, inputOf('--approver', 'alice', 'bob')).approval).toMatchObject({ approvers: ['alice', 'bob'], anyApprover: false });
  });

  test('remote modules are allowed by default (for its template child); --strict-modules refuses them; --allow-remote-modules is a no-op', () => {
    expect(parseInput(migrateFleetInputSchema, inputOf('--approver', 'alice')).allowRemoteModules).toBe(true);
    expect(parseInput(migrateFleetInputSchema, inputOf('--approver', 'alice', '--strict-modules')).allowRemoteModules).toBe(false);
    expect(parseInput(migrateFleetInputSchema, inputOf('--approver', 'alice', '--allow-remote-modules')).allowRemoteModules).toBe(true);
  });
});
