import { approvalRefusal, gateRequiresApproval, type PendingApproval } from '../../src/domain/approval-policy';

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
  it('always asks before a recovery, whatever the policy', () => {
    for (const policy of ['none', 'destructive', 'all'] as const) expect(gateRequiresApproval(policy, 'recover')).toBe(true);
  });
  it('asks before every gate under policy all', () => {
    expect(gateRequiresApproval('all', 'stop')).toBe(true);
    expect(gateRequiresApproval('all', 'start')).toBe(true);
  });
});

describe('approvalRefusal', () => {
  const ok = { gateId: 'apply', planHash: 'sha256:aaa', approver: 'alice', decision: 'approve' as const };

  it('accepts a matching approval from an allowed approver', () => {
    expect(approvalRefusal(pending, ok, ['alice', 'bob'])).toBeUndefined();
    expect(approvalRefusal(pending, { ...ok, decision: 'reject' }, [])).toBeUndefined();
  });
  it('refuses when nothing is pending', () => {
    expect(approvalRefusal(undefined, ok, [])).toMatch(/nothing is waiting/);
  });
  it('refuses approvers outside the allow-list and names them', () => {
    expect(approvalRefusal(pending, { ...ok, approver: 'mallory' }, ['alice'])).toMatch(/'mallory' is not an approver.*alice/);
  });
  it('refuses another gate or a stale plan hash', () => {
    expect(approvalRefusal(pending, { ...ok, gateId: 'start' }, [])).toMatch(/not the pending gate 'apply'/);
    expect(approvalRefusal(pending, { ...ok, planHash: 'sha256:old' }, [])).toMatch(/does not match the pending plan/);
  });
  it('refuses malformed payloads with what to send', () => {
    expect(approvalRefusal(pending, { ...ok, approver: ' ' }, [])).toMatch(/approver is required/);
    expect(approvalRefusal(pending, { ...ok, decision: 'maybe' as never }, [])).toMatch(/'approve' or 'reject'/);
    expect(approvalRefusal(pending, undefined as never, [])).toMatch(/payload missing/);
  });
});
