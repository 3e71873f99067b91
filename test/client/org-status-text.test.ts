import { organizationStatusText, type OrganizationStatus } from '../../src/client/organization';
import type { FleetSummary } from '../../src/contracts/migrate-fleet';

describe("fleet status of an organization's run: each template's row", () => {
  const summary = (extra: Partial<FleetSummary>): FleetSummary => ({ migrated: 0, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 0, ...extra });
  const status = (sum: FleetSummary): OrganizationStatus => ({
    workflowId: 'wsmigrate-org/coder',
    phase: 'awaiting-approval',
    result: { phase: 'done', templates: [{ template: 'k8s-dev', state: 'canary-done', deprecatedTypes: [], summary: sum }], summary: sum, nothingToDo: [] },
  });

  it("says what '0 migrated' leaves out: already migrated and skipped workspaces", () => {
    expect(organizationStatusText(status(summary({ alreadyMigrated: 5, skipped: 1 })))).toContain('k8s-dev                  canary-done · 0 migrated, 0 not ok, 0 PVC uids kept, 5 already migrated, 1 skipped');
  });

  it('adds nothing when there is nothing of the kind', () => {
    expect(organizationStatusText(status(summary({ migrated: 3, pvcUidsKept: 3 })))).toMatch(/ · 3 migrated, 0 not ok, 3 PVC uids kept$/m);
  });

  it("names the stage beside the phase only when it says more ('done', not 'done (done)')", () => {
    const progress = (phase: string, stage: string) => ({ workflowId: 'wsmigrate-org/coder', phase, progress: { phase, stage, templates: [], control: [] } }) as unknown as OrganizationStatus;
    expect(organizationStatusText(progress('done', 'done')).split('\n')[0]).toBe('wsmigrate-org/coder: done');
    expect(organizationStatusText(progress('running', 'canaries')).split('\n')[0]).toBe('wsmigrate-org/coder: running (canaries)');
  });
});
