import { Command } from 'commander';
import { organizationOption } from '../../src/cli/organization-option';

describe('--org', () => {
  const parse = (args: string[]): string => {
    const cmd = new Command().exitOverride().addOption(organizationOption());
    cmd.parse(args, { from: 'user' });
    return cmd.opts<{ org: string }>().org;
  };
  afterEach(() => {
    delete process.env.CODER_ORGANIZATION;
  });

  test('is read as the Coder CLI reads it: the flag, else CODER_ORGANIZATION, else "coder"', () => {
    expect(parse([])).toBe('coder');
    process.env.CODER_ORGANIZATION = 'platform';
    expect(parse([])).toBe('platform');
    expect(parse(['--org', 'data'])).toBe('data');
  });

  test('its help names the variable and the default', () => {
    const cmd = new Command('x').addOption(organizationOption());
    expect(cmd.helpInformation().replace(/\s+/g, " ")).toContain('--org <organization> Coder organization name (default: "coder", env: CODER_ORGANIZATION)');
  });
});
