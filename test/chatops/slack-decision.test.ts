import { ChatRefusal, decideFromSlack } from '../../src/chatops/slack-decision';
import { parseSlashCommand } from '../../src/chatops/slash-command';
import type { ApprovalGateway } from '../../src/client/approvals';
import type { PendingApproval } from '../../src/domain/approval-policy';

const WF = 'wsmigrate/k8s/alice/dev';
const pending: PendingApproval = { gateId: 'apply', planHash: 'sha256:plan-1', summary: 'Push', requestedAt: '2026-11-30T11:00:00Z', escalated: false, approvers: ['alice'], anyApprover: false };

/** decideFromSlack and the slash command's words, without a receiver: unit speed. */
describe('chatops decisions', () => {
  it("the workflow validator's own refusal (the gate moved on after our check) is a 403 refusal; any other failure is not", async () => {
    const gateway = (err: Error): ApprovalGateway => ({ pending: async () => pending, decide: () => Promise.reject(err), status: () => Promise.reject(err), waiting: () => Promise.reject(err) });
    const req = { slackUserId: 'UALICE', workflowId: WF, decision: 'approve' as const };
    const refused = await decideFromSlack(gateway(new Error("approve refused: gate 'apply' is no longer pending")), { UALICE: 'alice' }, req).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChatRefusal);
    expect((refused as ChatRefusal).status).toBe(403);
    const down = await decideFromSlack(gateway(new Error('connection refused')), { UALICE: 'alice' }, req).catch((e: unknown) => e);
    expect(down).not.toBeInstanceOf(ChatRefusal);
  });

  it('approve and status take exactly one workflow id: extra words are a usage problem, never ignored', () => {
    expect(parseSlashCommand(`approve ${WF} ${WF}-2`)).toMatchObject({ kind: 'help', problem: expect.stringMatching(/takes only a workflow id/) });
    expect(parseSlashCommand(`approve ${WF}`)).toEqual({ kind: 'approve', workflowId: WF });
    expect(parseSlashCommand(`reject ${WF} not now`)).toEqual({ kind: 'reject', workflowId: WF, reason: 'not now' });
  });
});
