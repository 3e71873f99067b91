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
    expect(md).toContain('| k8s-dev | canary-done | 2 | 1 | 2 | `wsmigrate-fleet/coder/k8s-dev` |');
    expect(md).toContain('| tools | nothing to do (no deprecated type) | 0 | 0 | 0 |  |');
    expect(md).toContain('\n\napprovers: alice\n\n`wsmigrate approve wsmigrate-org/coder --approver <you> --gate canary --plan org-canary:1a2b`');
    expect(md).toContain('- tools: active version already on _v1');
    // A failed template's reason as written: `<name>` is no HTML tag, `--` no dash.
    expect(md).toContain('- gpu: `preflight failed: check --template <name>`');
  });
});
