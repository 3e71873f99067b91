import { approvalCommands, codeSpan, renderRunDetails, workspaceRunSummary } from '../../src/domain/run-details';

describe('run details for the Temporal Web UI', () => {
  const pending = { gateId: 'apply' as const, planHash: 'sha256:ab12', summary: 'Push the migrated state of alice/dev', requestedAt: '2026-11-30T21:00:00.000Z', escalated: true };

  test('the summary line names the workspace, template and version', () => {
    expect(workspaceRunSummary('alice', 'dev', 'k8s-dev', 'wsmigrate-1a2b')).toBe('alice/dev → k8s-dev @ wsmigrate-1a2b');
  });

  test('a pending gate shows the exact CLI command and the signal JSON that decide it', () => {
    const md = renderRunDetails({ title: 'alice/dev → k8s-dev @ v1', workflowId: 'wsmigrate/k8s-dev/alice/dev', phase: 'awaiting-approval', stepsDone: ['preflight', 'backup'], pending });
    expect(md).toContain('**Phase:** awaiting-approval');
    expect(md).toContain('**Steps done:** preflight → backup');
    expect(md).toContain('#### Waiting for approval: `apply` (escalated)');
    expect(md).toContain('wsmigrate approve wsmigrate/k8s-dev/alice/dev --approver <you> --gate apply --plan sha256:ab12');
    expect(md).toContain('{"gateId":"apply","planHash":"sha256:ab12","approver":"<you>","decision":"approve"}');
  });

  test('a pending gate says on whom it waits: the approvers, anyone, or no one', () => {
    const details = (p: object) => renderRunDetails({ title: 't', workflowId: 'w', phase: 'awaiting-approval', pending: { ...pending, ...p } });
    expect(details({ approvers: ['alice', 'bob'] })).toContain('\n\napprovers: alice, bob\n\n');
    expect(details({ approvers: [], anyApprover: true })).toContain('approvers: any name (the run was started with --any-approver)');
    expect(details({ approvers: [] })).toContain('approvers: no one (the run names no approver and was not started with --any-approver): it can only be rejected');
  });

  test('each fact is its own paragraph (markdown joins consecutive lines), a failure right under the phase', () => {
    const md = renderRunDetails({ title: 't', workflowId: 'w', phase: 'failed (during preflight)', failure: 'preflight failed for nobody/dev: 404', stepsDone: [], verdict: { verdict: 'allow', summary: 'ALLOW' } });
    expect(md).toBe('### t\n\n**Phase:** failed (during preflight)\n\n**Failed:** `preflight failed for nobody/dev: 404`\n\n**Steps done:** –\n\n**Guard:** allow — ALLOW');
  });

  test('a reason is shown as written: no `<name>` eaten as an HTML tag, no -- turned into a dash, backticks inside kept', () => {
    expect(codeSpan("check --template <name>")).toBe('`check --template <name>`');
    expect(codeSpan('run `wsmigrate scan`')).toBe('`` run `wsmigrate scan` ``');
  });

  test('the signal JSON is what the approval signal accepts, and the shell command quotes it', () => {
    const c = approvalCommands('wsmigrate/t/a/b', pending);
    expect(JSON.parse(c.signalJson)).toEqual({ gateId: 'apply', planHash: 'sha256:ab12', approver: '<you>', decision: 'approve' });
    expect(c.signal).toBe(`temporal workflow signal --workflow-id 'wsmigrate/t/a/b' --name approval --input '${c.signalJson}'`);
  });

  test('no gate, a verdict with reasons, an error and extra sections (the fleet’s table)', () => {
    const md = renderRunDetails({
      title: 't',
      workflowId: 'w',
      phase: 'restored',
      verdict: { verdict: 'needs-approval', summary: '1 replace', reasons: ['kubernetes_service_v1.x replaced'] },
      error: 'start build failed',
      sections: [{ heading: 'Progress', markdown: '| migrated | 3 |' }],
    });
    expect(md).not.toContain('Waiting for approval');
    expect(md).toContain('**Guard:** needs-approval — 1 replace\n- kubernetes_service_v1.x replaced');
    expect(md).toContain('**Error:** `start build failed`');
    expect(md).toContain('#### Progress\n| migrated | 3 |');
  });
});
