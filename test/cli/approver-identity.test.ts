import { registerApprovalCommands } from '../../src/cli/commands/approvals';
import { registerChatopsCommand } from '../../src/cli/commands/chatops';
import { registerMigrateCommands } from '../../src/cli/commands/migrate';
import { registerRecoverCommand } from '../../src/cli/commands/recover';
import { EXIT } from '../../src/cli/io';
import { runCommand } from '../harness/cli';

// Nothing here reaches Temporal: each refusal comes before a connection (the address below has no server).
describe('approver identity on the command line', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env = { ...saved, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    delete process.env.WSMIGRATE_APPROVERS;
    delete process.env.WSMIGRATE_APPROVER;
    delete process.env.SLACK_SIGNING_SECRET;
  });
  afterAll(() => {
    process.env = saved;
  });
  const version = '0b3c6f7e-1d2a-4b5c-8d9e-0f1a2b3c4d5e';

  it('migrate refuses approvals with no approver named, saying how to name one', async () => {
    const r = await runCommand(registerMigrateCommands, 'migrate', 'workspace', 'alice/dev', '--template', 'k8s', '--version', version);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/--approver: this run asks for approvals but names no approver: .*--approver <name>.*WSMIGRATE_APPROVERS=alice,bob.*--any-approver/);
    const t = await runCommand(registerMigrateCommands, 'migrate', 'template', '--org', 'coder', 'k8s', '--approval', 'all');
    expect(t.exitCode).toBe(EXIT.usage);
    expect(t.err).toMatch(/--approver/);
  });

  it('recover asks always, so it refuses to start with no approver, naming --any-approver, which it accepts', async () => {
    const r = await runCommand(registerRecoverCommand, 'recover', 'alice/dev', '--template', 'k8s', '--version', version);
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.err).toMatch(/--approver: this run asks for approvals but names no approver: .*--any-approver/);
    // Accepted: it gets as far as connecting to Temporal (which is not there).
    const any = await runCommand(registerRecoverCommand, 'recover', 'alice/dev', '--template', 'k8s', '--version', version, '--any-approver').catch((err: Error) => ({ exitCode: -1, err: err.message }));
    expect(any.err).not.toMatch(/names no approver/);
  });

  it('approve and reject need a name: --approver or WSMIGRATE_APPROVER', async () => {
    for (const verb of ['approve', 'reject']) {
      const r = await runCommand(registerApprovalCommands, verb, 'wsmigrate/k8s/alice/dev');
      expect(r.exitCode).toBe(EXIT.usage);
      expect(r.err).toMatch(/--approver <your name>, or set WSMIGRATE_APPROVER/);
    }
  });

  it('chatops will not start without the signing secret it verifies every request with', async () => {
    await expect(runCommand(registerChatopsCommand, 'chatops')).rejects.toThrow(/SLACK_SIGNING_SECRET is not set; chatops refuses every request it cannot verify/);
  });
});
