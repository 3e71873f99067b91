import { liveOrganizationView, organizationStatusText } from '../../src/client/organization';
import type { OrganizationProgress } from '../../src/contracts/migrate-organization';
import { organizationDetails } from '../../src/domain/organization-details';
import type { FleetProgress } from '../../src/contracts/migrate-fleet';

const summary = { migrated: 1, recovered: 0, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 1, prebuilt: 0 };
const id = 'wsmigrate-org/coder';
const base: OrganizationProgress = {
  workflowId: id,
  organization: 'coder',
  phase: 'running',
  stage: 'rolling',
  templates: [{ template: 'k8s-dev', state: 'canary-done', deprecatedTypes: ['kubernetes_deployment'], summary }],
  summary,
  control: [],
};

/** Hazard drive: what `fleet status wsmigrate-org/…` left out while the run was stuck. */
describe('liveOrganizationView: on whom and why an organization run waits', () => {
  it('paused while it waits at its shared fleet-continue gate: says so beside the gate (it used to show only the gate)', () => {
    const p: OrganizationProgress = {
      ...base,
      phase: 'awaiting-approval',
      stage: 'canary-gate',
      pendingApproval: { gateId: 'fleet-continue', planHash: 'org-canary:1', summary: 'Canaries of coder: …', requestedAt: '2026-12-07T15:00:00.000Z', policy: 'destructive', approvers: ['alice'] } as never,
      control: [{ action: 'pause', by: 'alice', at: '2026-12-07T15:01:00.000Z', reason: 'checking daemons' }],
    };
    const live = liveOrganizationView(id, p, undefined, undefined);
    expect(live.waitingOn).toEqual([{ kind: 'paused', workflowId: id, by: 'alice', since: '2026-12-07T15:01:00.000Z', reason: 'checking daemons', atGate: 'fleet-continue' }]);
    const text = organizationStatusText({ workflowId: id, phase: p.phase, progress: live.progress, waitingOn: live.waitingOn });
    expect(text).toContain(`paused by alice (checking daemons) since 2026-12-07T15:01:00.000Z: it still waits at 'fleet-continue'; once that is approved, no new migration starts until it is resumed: wsmigrate fleet resume ${id} --by <you>`);
    // Resumed: no pause line.
    const resumed = liveOrganizationView(id, { ...p, control: [...p.control, { action: 'resume', by: 'alice', at: '2026-12-07T15:02:00.000Z' }] }, undefined, undefined);
    expect(resumed.waitingOn).toEqual([]);
  });

  it("the template fleet running now waits on Coder's provisioner daemons: the organization's status says so (it used to say nothing)", () => {
    const fleetId = 'wsmigrate-fleet/coder/k8s-dev';
    const p: OrganizationProgress = { ...base, templates: [{ ...base.templates[0], state: 'rolling', workflowId: fleetId }] };
    const child = {
      progress: {
        counts: { migrated: 0 },
        pacing: { mode: 'paced', share: 0.5, width: 1, capacity: { daemons: 0, busy: 0, usersQueued: 0 }, waiting: 'no provisioner daemon is online', checkedAt: '2026-12-07T15:00:00.000Z' },
      } as unknown as FleetProgress,
      waitingOn: [],
    };
    const live = liveOrganizationView(id, p, fleetId, child);
    const text = organizationStatusText({ workflowId: id, phase: 'running', progress: live.progress, waitingOn: live.waitingOn, ...(live.pacing ? { pacing: live.pacing } : {}) }, Date.parse('2026-12-07T15:00:12.000Z'));
    expect(text).toContain(`  ${fleetId}: paced: no provisioner daemon online (none listed for the template's jobs) (read 12s ago) · the fleet waits for one to come back`);
  });

  it("the template the organization's own pause holds: its row says paused, by whom and why, not 'canary' (hazard drive round 2)", () => {
    const control = [{ action: 'pause' as const, by: 'alice', at: '2026-12-08T10:00:00.000Z', reason: 'change freeze' }];
    const held: OrganizationProgress = { ...base, phase: 'paused', stage: 'canary', templates: [{ ...base.templates[0], state: 'canary', summary: undefined }], control };
    const live = liveOrganizationView(id, held, undefined, undefined);
    const text = organizationStatusText({ workflowId: id, phase: 'paused', progress: live.progress, waitingOn: live.waitingOn });
    expect(text).toMatch(/^ {2}k8s-dev {18}paused by alice \(change freeze\) before its canary$/m);
    // Its canary fleet started and was paused with the organization; the rest fleet not started yet (the row names the canary's).
    const started = organizationStatusText({ workflowId: id, phase: 'paused', progress: { ...held, templates: [{ ...held.templates[0], workflowId: 'wsmigrate-fleet/coder/k8s-dev/canary' }] } });
    expect(started).toMatch(/^ {2}k8s-dev {18}canary, paused by alice \(change freeze\)$/m);
    const rest = organizationStatusText({ workflowId: id, phase: 'paused', progress: { ...held, stage: 'rolling', templates: [{ ...held.templates[0], state: 'rolling', workflowId: 'wsmigrate-fleet/coder/k8s-dev/canary' }] } });
    expect(rest).toMatch(/^ {2}k8s-dev {18}paused by alice \(change freeze\) before its rest$/m);
    // The Web UI details' row says the same.
    expect(organizationDetails({ ...held, control })).toContain('| k8s-dev | paused by alice (change freeze) before its canary |');
    // Resumed: the row reads canary again.
    const resumed = { ...held, phase: 'running' as const, control: [...control, { action: 'resume' as const, by: 'alice', at: '2026-12-08T10:05:00.000Z' }] };
    expect(organizationStatusText({ workflowId: id, phase: 'running', progress: resumed })).toMatch(/^ {2}k8s-dev {18}canary$/m);
    expect(organizationDetails(resumed)).toContain('| k8s-dev | canary |');
  });
});
