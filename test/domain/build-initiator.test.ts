import { builtBy } from '../../src/domain/build-initiator';

describe('builtBy: who made a build, as an approver reads it', () => {
  test("Coder's own builds are named by their reason, not by the owner Coder records as their initiator", () => {
    expect(builtBy({ initiator: 'alice', reason: 'autostart' })).toBe("Coder's autostart");
    expect(builtBy({ initiator: 'alice', reason: 'autostop' })).toBe("Coder's autostop");
    expect(builtBy({ initiator: 'alice', reason: 'autodelete' })).toBe("Coder's autodelete");
    expect(builtBy({ initiator: 'alice', reason: 'failedstop' })).toBe("Coder's failedstop");
  });

  test('a person\'s build (initiator, dashboard, cli, an ssh connection) is named by its initiator', () => {
    for (const reason of ['initiator', 'dashboard', 'cli', 'ssh_connection', undefined]) expect(builtBy({ initiator: 'bob', ...(reason ? { reason } : {}) })).toBe('bob');
    expect(builtBy({})).toBe('someone else');
    expect(builtBy({}, 'someone')).toBe('someone');
  });
});
