import { canaryThenRest, notMigratedCount, type FleetSummary } from '../../src/domain/fleet-summary';

const none: FleetSummary = { migrated: 0, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 0, prebuilt: 0, dormant: 0 };
const s = (o: Partial<FleetSummary>): FleetSummary => ({ ...none, ...o });

/** Hazard drive: an organization's row counted its canary's workspaces twice (the rest fleet lists them again). */
describe('canaryThenRest: a template counted once across its canary and its rest', () => {
  it('the canary migrated one, the rest five more and found the canary already migrated: 6 migrated, 0 already (it said 1 already)', () => {
    expect(canaryThenRest(s({ migrated: 1, pvcUidsKept: 1 }), s({ migrated: 5, alreadyMigrated: 1, pvcUidsKept: 5 }), true)).toEqual(s({ migrated: 6, pvcUidsKept: 6 }));
  });

  it('a canary needs attention, the rest holds or retries it and counts it again: once (it said 2 not ok)', () => {
    expect(canaryThenRest(s({ needsAttention: 1 }), s({ migrated: 4, needsAttention: 1, pvcUidsKept: 4 }), true)).toEqual(s({ migrated: 4, needsAttention: 1, pvcUidsKept: 4 }));
  });

  it('a canary restored, then migrated by the rest: migrated, not restored', () => {
    expect(canaryThenRest(s({ restored: 1 }), s({ migrated: 2, pvcUidsKept: 2 }), true)).toEqual(s({ migrated: 2, pvcUidsKept: 2 }));
  });

  it('workspaces already migrated before the run are counted by both: once', () => {
    expect(canaryThenRest(s({ alreadyMigrated: 2, migrated: 1, pvcUidsKept: 1 }), s({ alreadyMigrated: 3, migrated: 1, pvcUidsKept: 1 }), true)).toEqual(s({ migrated: 2, alreadyMigrated: 2, pvcUidsKept: 2 }));
  });

  it('a rest that stopped short (a batch, a cancel) may not have reached a canary not migrated: its counts are kept', () => {
    expect(canaryThenRest(s({ migrated: 1, restored: 1, pvcUidsKept: 1 }), s({ migrated: 1, alreadyMigrated: 1, pvcUidsKept: 1 }), false)).toEqual(s({ migrated: 2, restored: 1, pvcUidsKept: 2 }));
  });

  it('declined stays absent when none was', () => {
    expect('declined' in canaryThenRest(s({ migrated: 1 }), s({ alreadyMigrated: 1 }), true)).toBe(false);
    expect(canaryThenRest(s({ migrated: 1 }), s({ declined: 1 }), true).declined).toBe(1);
  });
});

describe('notMigratedCount: what makes --wait exit 3', () => {
  test('failed, needs attention, restored and declined each count; migrated, already, skipped and dry runs do not', () => {
    const zero = { failed: 0, needsAttention: 0, restored: 0 };
    expect(notMigratedCount({ ...zero })).toBe(0);
    expect(notMigratedCount({ ...zero, failed: 1 })).toBe(1);
    expect(notMigratedCount({ ...zero, needsAttention: 2 })).toBe(2);
    expect(notMigratedCount({ ...zero, restored: 3 })).toBe(3);
    expect(notMigratedCount({ ...zero, declined: 4 })).toBe(4);
    expect(notMigratedCount({ failed: 1, needsAttention: 1, restored: 1, declined: 1 })).toBe(4);
  });
});
