import { approvalRefusal, gateRequiresApproval, recoveryNeedsPerson, updateDecisionRefusal, whoMayApprove, type PendingApproval } from '../../src/domain/approval-policy';

const pending: PendingApproval = {
  gateId: 'apply',
  planHash: 'sha256:aaa',
  summary: 'push migrated state',
  requestedAt: '2026-11-30T10:00:00Z',
  escalated: false,
};

describe('gateRequiresApproval', () => {
  it('asks nothing under policy none', () => {
    for (const gate of ['stop', 'apply', 'start', 'template-push', 'template-promote', 'canary'] as const) {
      expect(gateRequiresApproval('none', gate)).toBe(false);
    }
  });
  it('asks before destructive gates only under policy destructive', () => {
    expect(gateRequiresApproval('destructive', 'apply')).toBe(true);
    expect(gateRequiresApproval('destructive', 'template-promote')).toBe(true);
    expect(gateRequiresApproval('destructive', 'canary')).toBe(true);
    expect(gateRequiresApproval('destructive', 'stop')).toBe(false);
    expect(gateRequiresApproval('destructive', 'start')).toBe(false);
    expect(gateRequiresApproval('destructive', 'template-push')).toBe(false);
  });
  it('asks before a recovery under destructive and all, not under none (a recovery that is more than a repair is forced by recoveryNeedsPerson)', () => {
    expect(gateRequiresApproval('none', 'recover')).toBe(false);
    expect(gateRequiresApproval('destructive', 'recover')).toBe(true);
    expect(gateRequiresApproval('all', 'recover')).toBe(true);
  });
  it('asks before every gate under policy all', () => {
    expect(gateRequiresApproval('all', 'stop')).toBe(true);
    expect(gateRequiresApproval('all', 'start')).toBe(true);
  });
});

describe('recoveryNeedsPerson', () => {
  it('lets a plain repair (entries forgotten, or only a failed build, and a plan the guard allows) follow the policy', () => {
    expect(recoveryNeedsPerson(['forgotten'], 'allow')).toBeUndefined();
    expect(recoveryNeedsPerson(['forgotten', 'forgotten'], 'allow')).toBeUndefined();
    expect(recoveryNeedsPerson([], 'allow')).toBeUndefined();
  });
  it('asks a person when an object was destroyed or the guard does not simply allow', () => {
    expect(recoveryNeedsPerson(['forgotten', 'destroyed'], 'allow')).toBe('a protected object was destroyed');
    expect(recoveryNeedsPerson(['forgotten'], 'needs-approval')).toBe("the guard's verdict is needs-approval");
    expect(recoveryNeedsPerson([], 'deny')).toBe("the guard's verdict is deny");
  });
  it('asks a person when a new object took a protected one\'s place (the workspace may have written to the new one)', () => {
    expect(recoveryNeedsPerson(['forgotten', 'orphaned'], 'allow')).toMatch(/new object took a protected object's place: check which holds the data/);
    expect(recoveryNeedsPerson(['orphaned', 'destroyed'], 'allow')).toBe('a protected object was destroyed');
  });
});

describe('approvalRefusal', () => {
  const any = { approvers: [], anyApprover: true };
  const ok = { gateId: 'apply', planHash: 'sha256:aaa', approver: 'alice', decision: 'approve' as const };

  it('accepts a matching approval from an allowed approver', () => {
    expect(approvalRefusal(pending, ok, { approvers: ['alice', 'bob'] })).toBeUndefined();
    expect(approvalRefusal(pending, { ...ok, decision: 'reject' }, any)).toBeUndefined();
  });
  it('refuses when nothing is pending', () => {
    expect(approvalRefusal(undefined, ok, any)).toMatch(/nothing is waiting/);
  });
  it('refuses approvers outside the allow-list and names them', () => {
    expect(approvalRefusal(pending, { ...ok, approver: 'mallory' }, { approvers: ['alice'] })).toMatch(/'mallory' is not an approver.*alice/);
    expect(approvalRefusal(pending, { ...ok, approver: 'mallory' }, { approvers: ['alice', 'bob'] })).toBe("'mallory' is not an approver for this run (allowed: alice, bob)");
  });
  it('refuses another gate or a stale plan hash', () => {
    expect(approvalRefusal(pending, { ...ok, gateId: 'start' }, any)).toMatch(/not the pending gate 'apply'/);
    expect(approvalRefusal(pending, { ...ok, planHash: 'sha256:old' }, any)).toMatch(/does not match the pending plan/);
    // A hand-written update (temporal workflow update) without the field: say it is missing and what is pending, not 'plan hash undefined'.
    expect(approvalRefusal(pending, { ...ok, planHash: undefined as never }, any)).toBe(`planHash is required: the pending plan of gate 'apply' is ${pending.planHash} (what you approve; 'wsmigrate status' shows it)`);
    expect(approvalRefusal(pending, { ...ok, gateId: undefined as never }, any)).toBe(`gateId is required: the pending gate is 'apply' (its planHash is ${pending.planHash})`);
  });
  it('refuses malformed payloads with what to send', () => {
    expect(approvalRefusal(pending, { ...ok, approver: ' ' }, any)).toMatch(/approver is required/);
    expect(approvalRefusal(pending, { ...ok, decision: 'maybe' as never }, any)).toMatch(/'approve' or 'reject'/);
    expect(approvalRefusal(pending, undefined as never, any)).toMatch(/payload missing/);
    expect(approvalRefusal(pending, 'approve' as never, any)).toBe('approval payload missing: send {gateId, planHash, approver, decision}');
    expect(approvalRefusal(pending, { ...ok, approver: 42 as never }, any)).toBe('approver is required');
  });
  it('with no approver list, refuses every approval unless the run was started with --any-approver; a rejection stays possible', () => {
    expect(approvalRefusal(pending, ok, { approvers: [] })).toMatch(/names no approver.*--any-approver/);
    expect(approvalRefusal(pending, { ...ok, decision: 'reject' }, { approvers: [] })).toBeUndefined();
    expect(approvalRefusal(pending, ok, { approvers: [], anyApprover: true })).toBeUndefined();
  });
  it('refuses an unknown channel and accepts the known ones', () => {
    expect(approvalRefusal(pending, { ...ok, channel: 'email' as never }, any)).toMatch(/channel must be one of cli, signal, slack, ui/);
    expect(approvalRefusal(pending, { ...ok, channel: 'slack', slackUserId: 'U1' }, any)).toBeUndefined();
  });

  it('refuses a field no approval has, naming it and the near one, before anything else is judged', () => {
    const fields = 'an approval has gateId, planHash, approver, decision, comment, channel, slackUserId';
    expect(approvalRefusal(pending, { ...ok, gateid: 'apply' } as never, any)).toBe(`unknown field 'gateid' (did you mean gateId?): ${fields}`);
    expect(approvalRefusal(pending, { ...ok, color: 'red', plan_hash: 'x' } as never, any)).toBe(`unknown field 'color', 'plan_hash' (did you mean planHash?): ${fields}`);
    // Even with nothing pending: the typo is what the sender must fix.
    expect(approvalRefusal(undefined, { ...ok, aprover: 'bob' } as never, any)).toMatch(/^unknown field 'aprover' \(did you mean approver\?\)/);
    expect(approvalRefusal(pending, { ...ok, comment: 'ok', channel: 'cli' }, any)).toBeUndefined();
  });
});

describe('updateDecisionRefusal', () => {
  it("refuses a payload whose decision is not the update's, and takes one that says nothing or the same", () => {
    expect(updateDecisionRefusal({ decision: 'reject' }, 'approve')).toBe(
      "the 'approve' update carries decision 'reject': send the update named for your decision (--name approve or --name reject), or leave decision out",
    );
    expect(updateDecisionRefusal({ decision: 'approve' }, 'reject')).toMatch(/^the 'reject' update carries decision 'approve'/);
    expect(updateDecisionRefusal({ decision: 'approve' }, 'approve')).toBeUndefined();
    expect(updateDecisionRefusal({ gateId: 'apply' }, 'approve')).toBeUndefined();
    expect(updateDecisionRefusal(undefined, 'approve')).toBeUndefined();
    expect(updateDecisionRefusal('reject', 'approve')).toBeUndefined();
    expect(updateDecisionRefusal({ decision: null }, 'approve')).toBe("the 'approve' update carries decision 'null': send the update named for your decision (--name approve or --name reject), or leave decision out");
  });
});

describe('whoMayApprove: on whom a gate waits, as status and approvals say it', () => {
  it('names the approvers, says any name for --any-approver, and says no one can approve a run with neither', () => {
    expect(whoMayApprove({ approvers: ['alice', 'bob'] })).toBe('alice, bob');
    expect(whoMayApprove({ approvers: [], anyApprover: true })).toBe('any name (the run was started with --any-approver)');
    expect(whoMayApprove({})).toMatch(/^no one .*: it can only be rejected$/);
  });
});
