import { emptyCounts } from '../../src/domain/fleet-progress';
import { migrationsThatRan, ranCountsOf, rollbacksNote, ROLLBACKS_NOTED_FROM } from '../../src/domain/fleet-rollbacks';
import { detailsMarkdown, type FleetDetailsView } from '../../src/domain/fleet-details';

const ran = (migrated: number, restored: number, needsAttention = 0, failed = 0) => ({ migrated, restored, needsAttention, failed });
const ID = 'wsmigrate-fleet/coder/k8s';

describe('rollbacksNote: a fleet whose migrations keep rolling back is named, though rollbacks never spend the budget', () => {
  test('from three rolled back that are at least half of what ran: how many, why it goes on, and the pause command', () => {
    expect(rollbacksNote(ran(0, 3), ID)).toBe(
      '3 of the 3 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was). Rollbacks do not spend the failure budget, so the fleet goes on: when their reasons agree, the target version is likely at fault. Pause it (wsmigrate fleet pause wsmigrate-fleet/coder/k8s) and read them.',
    );
    expect(rollbacksNote(ran(3, 3), ID)).toMatch(/^3 of the 6 migrations that ran were rolled back/);
    expect(rollbacksNote(ran(1, 2, 1, 1), ID)).toBeUndefined(); // two: not yet
    expect(rollbacksNote(ran(4, 3), ID)).toBeUndefined(); // a minority of what ran
    expect(rollbacksNote(ran(2, 3, 1, 1), ID)).toBeUndefined(); // 3 of 7
    expect(rollbacksNote(ran(0, ROLLBACKS_NOTED_FROM - 1), ID)).toBeUndefined();
  });

  test('at the end it says to fix the target before running again, not to pause', () => {
    const text = rollbacksNote(ran(1, 5), ID, true);
    expect(text).toBe('5 of the 6 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was): when their reasons agree, the target version is likely at fault; fix it before running the fleet again.');
    expect(text).not.toMatch(/pause/);
  });

  test('only migrations that ran count: not the already migrated, dry runs, declined, skipped or waiting', () => {
    const c = { ...emptyCounts(), migrated: 1, restored: 3, 'needs-attention': 1, failed: 1, 'already-migrated': 50, 'dry-run': 5, declined: 9, skipped: 7, 'waiting-for-build': 4 };
    expect(migrationsThatRan(ranCountsOf(c))).toBe(6);
    expect(rollbacksNote(ranCountsOf(c), ID)).toMatch(/^3 of the 6 migrations/);
  });
});

describe("the Web UI's details say it, in bold, running and ended", () => {
  const view: FleetDetailsView = {
    workflowId: ID,
    organization: 'coder',
    template: 'k8s',
    phase: 'running',
    stage: 'workspaces',
    dryRun: false,
    counts: { ...emptyCounts(), restored: 4, migrated: 1 },
    remaining: 20,
    running: [],
    failures: [],
    childApprovals: [],
    runs: 1,
    concurrency: 2,
    budget: { allowance: 2, failures: 0, accepted: 0 },
    control: [],
  };
  test('running: the pause command', () => {
    expect(detailsMarkdown(view)).toContain(`**4 of the 5 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was). Rollbacks do not spend the failure budget, so the fleet goes on: when their reasons agree, the target version is likely at fault. Pause it (wsmigrate fleet pause ${ID}) and read them.**`);
  });
  test('done: fix the target first', () => {
    expect(detailsMarkdown({ ...view, phase: 'done' })).toContain('fix it before running the fleet again.**');
  });
  test('a fleet that mostly migrated says nothing of it', () => {
    expect(detailsMarkdown({ ...view, counts: { ...emptyCounts(), restored: 4, migrated: 10 } })).not.toMatch(/rolled back/);
  });
});
