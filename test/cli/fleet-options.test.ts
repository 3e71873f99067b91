import { Command } from 'commander';
import { addFleetOptions, fleetInputFromOptions, isOrganizationRun } from '../../src/cli/fleet-options';
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

  test("the defaults are the README's safe ones: option A, rename, destructive gates, canary 3 then 10 at once, a 10% (min 2) budget, paced, archive and require-active-version on, not a dry run", () => {
    expect(inputOf('--approver', 'alice')).toMatchObject({
      option: 'A',
      strategy: 'rename',
      approval: { policy: 'destructive', timeout: '4h' },
      workspaceApproval: { policy: 'none' },
      concurrency: 10,
      canary: 3,
      failureBudget: { percent: 10, min: 2 },
      pacing: 'provisioners',
      archiveOldVersions: true,
      requireActiveVersion: true,
      dryRun: false,
    });
  });

  test('each switch does what it says: --dry-run, --no-pacing, --no-archive, --no-require-active-version; WSMIGRATE_APPROVERS when no --approver', () => {
    const cmd = addFleetOptions(new Command('start')).exitOverride();
    cmd.parse(['--org', 'coder', '--template', 'k8s-dev', '--dry-run', '--no-pacing', '--no-archive', '--no-require-active-version'], { from: 'user' });
    expect(fleetInputFromOptions(cmd.opts(), ['carol'])).toMatchObject({ dryRun: true, pacing: 'off', archiveOldVersions: false, requireActiveVersion: false, approval: { approvers: ['carol'] } });
  });

  test('--owner and --exclude reach the fleet (never-touch lists are not dropped); one --template is a fleet, two an organization run', () => {
    expect(inputOf('--approver', 'alice', '--owner', 'alice', 'dave', '--exclude', 'bob/dev', 'carol/api').filters).toMatchObject({ owners: ['alice', 'dave'], exclude: ['bob/dev', 'carol/api'] });
    expect(isOrganizationRun({ template: ['k8s-dev'] })).toBe(false);
    expect(isOrganizationRun({ template: ['k8s-dev', 'k8s-gpu'] })).toBe(true);
  });
});
