import { BETWEEN_MILESTONES, countRunningByPhase } from '../../src/domain/running-phases';

describe("a template's running migrations counted by what visibility knows of each", () => {
  it("counts a pending gate as awaiting-approval, a milestone as itself, and nothing as 'in progress'", () => {
    expect(
      countRunningByPhase([
        { phase: 'compensating' },
        { phase: 'compensating', pendingGate: 'none' },
        { pendingGate: 'apply' },
        { phase: 'migrated', pendingGate: 'start' },
        {},
        { pendingGate: 'none' },
      ]),
    ).toEqual({ compensating: 2, 'awaiting-approval': 2, 'in progress': 2 });
    expect(BETWEEN_MILESTONES).toBe('in progress');
    expect(countRunningByPhase([])).toEqual({});
  });
});
