import { PREBUILDS_SYSTEM_USER_ID, isPrebuiltWorkspace } from '../../src/domain/prebuilt-workspaces';
import { fleetDoneText, summaryOf } from '../../src/domain/fleet-summary';
import { emptyCounts } from '../../src/domain/fleet-progress';

describe('prebuilt workspaces: owned by Coder\'s prebuilds system user', () => {
  it('is one when Coder says is_prebuild, or when the prebuilds user owns it (a release without the field), in any case', () => {
    expect(isPrebuiltWorkspace({ owner_id: PREBUILDS_SYSTEM_USER_ID })).toBe(true);
    expect(isPrebuiltWorkspace({ owner_id: PREBUILDS_SYSTEM_USER_ID.toUpperCase() })).toBe(true);
    expect(isPrebuiltWorkspace({ owner_id: '0a3b2a6e-0000-4000-8000-000000000001', is_prebuild: true })).toBe(true);
    // Claimed: a person owns it now, and it is theirs to migrate.
    expect(isPrebuiltWorkspace({ owner_id: '0a3b2a6e-0000-4000-8000-000000000001', is_prebuild: false })).toBe(false);
    expect(isPrebuiltWorkspace({ owner_id: '0a3b2a6e-0000-4000-8000-000000000001' })).toBe(false);
  });

  it("a fleet's end says how many it left to Coder, and nothing when there were none", () => {
    const summary = summaryOf({ ...emptyCounts(), migrated: 3, prebuilt: 2, pvcUidsKept: 3 });
    expect(summary.prebuilt).toBe(2);
    expect(fleetDoneText(summary, false)).toBe('3 migrated, 0 already migrated, 0 restored, 0 need attention, 0 failed, 0 skipped, 2 prebuilt left to Coder (its reconciler replaces them on the active version); 3 PVC uid(s) kept.');
    expect(fleetDoneText(summaryOf({ ...emptyCounts(), migrated: 1 }), false)).not.toContain('prebuilt');
  });
});
