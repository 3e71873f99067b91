import { organizationDetails } from '../../src/domain/organization-details';

describe("an organization run's Web UI details", () => {
  it('a row per template with its counts and fleet, and the exact command that decides the pending gate', () => {
    const md = organizationDetails({
      workflowId: 'wsmigrate-org/coder',
      organization: 'coder',
      phase: 'awaiting-approval',
      stage: 'canary-gate',
      templates: [
        { template: 'k8s-dev', state: 'canary-done', workflowId: 'wsmigrate-fleet/coder/k8s-dev', summary: { migrated: 2, alreadyMigrated: 0, restored: 1, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 2, recovered: 0 } },
        { template: 'tools', state: 'nothing-to-do', note: 'active version already on _v1' },
        { template: 'gpu', state: 'failed', note: "preflight failed: check --template <name>" },
      ],
      pendingApproval: { gateId: 'canary', planHash: 'org-canary:1a2b', summary: 'Canaries: 2 of 3 ok', requestedAt: 'x', escalated: false, approvers: ['alice'] },
    });
    expect(md).toContain('| k8s-dev | canary-done | 2 | 0 | 1 | 0 | 2 | `wsmigrate-fleet/coder/k8s-dev` |');
    expect(md).toContain('| tools | nothing to do (no deprecated type) | 0 | 0 | 0 | 0 | 0 |  |');
    expect(md).toContain('\n\napprovers: alice\n\n`wsmigrate approve wsmigrate-org/coder --approver <you> --gate canary --plan org-canary:1a2b`');
    expect(md).toContain('- tools: active version already on _v1');
    // A failed template's reason as written: `<name>` is no HTML tag, `--` no dash.
    expect(md).toContain('- gpu: `preflight failed: check --template <name>`');
  });

  it('says what "0 migrated" hides, which template fleet runs now (whose details say on whom it waits), and who paused the run', () => {
    const summary = { migrated: 0, alreadyMigrated: 4, restored: 0, needsAttention: 0, failed: 0, skipped: 1, dryRun: 0, pvcUidsKept: 0, recovered: 0 };
    const md = organizationDetails({
      workflowId: 'wsmigrate-org/coder',
      organization: 'coder',
      phase: 'paused',
      stage: 'canary',
      templates: [
        { template: 'gpu', state: 'canary-done', workflowId: 'wsmigrate-fleet/coder/gpu/canary', summary },
        { template: 'k8s-dev', state: 'canary', workflowId: 'wsmigrate-fleet/coder/k8s-dev/canary' },
      ],
      control: [{ action: 'pause', by: 'alice', reason: 'lunch', at: '2026-12-07T18:00:00.000Z' }],
    });
    expect(md).toContain('| gpu | canary-done | 0 | 4 | 0 | 1 | 0 | `wsmigrate-fleet/coder/gpu/canary` |');
    expect(md).toContain("**Running now:** k8s-dev's fleet `wsmigrate-fleet/coder/k8s-dev/canary`: its details, and `wsmigrate fleet status wsmigrate-org/coder`, say what it waits on and who may approve");
    expect(md).not.toContain("gpu's fleet");
    expect(md).toContain('**paused by alice (lunch) since 2026-12-07T18:00:00.000Z: no new migration starts until it is resumed: wsmigrate fleet resume wsmigrate-org/coder --by <you>**');
  });

  it('a cancelled run says who cancelled it and why in its heading', () => {
    const view = { workflowId: 'wsmigrate-org/coder', organization: 'coder', stage: 'done', templates: [], control: [{ action: 'pause', by: 'bob' }, { action: 'cancel', by: 'alice', reason: 'wrong week' }] };
    expect(organizationDetails({ ...view, phase: 'cancelled' }).split('\n')[0]).toBe('### Organization coder · CANCELLED by alice (wrong week)');
    expect(organizationDetails({ ...view, phase: 'cancelling', stage: 'rest' }).split('\n')[0]).toBe('### Organization coder · cancelling (rest) by alice (wrong week)');
    expect(organizationDetails({ ...view, phase: 'running', stage: 'rest' }).split('\n')[0]).toBe('### Organization coder · running (rest)');
  });
});
