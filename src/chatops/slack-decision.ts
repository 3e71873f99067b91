import { MigrationNotFoundError, type ApprovalGateway } from '../client/approvals';
import { approvalRefusal, type Decision } from '../domain/approval-policy';
import type { ApprovalReceipt } from '../contracts/approval';

/** A request chatops refuses; `status` is the HTTP status of the reply, `message` what the user reads. */
export class ChatRefusal extends Error {
  constructor(
    readonly status: 401 | 403 | 404,
    message: string,
  ) {
    super(message);
    this.name = 'ChatRefusal';
  }
}

export interface SlackDecisionRequest {
  slackUserId: string;
  workflowId: string;
  decision: Decision;
  /** From a button: exactly what the message showed. From a slash command: whatever is pending now. */
  gateId?: string;
  planHash?: string;
  reason?: string;
}

/**
 * Maps the Slack user to an approver and checks the decision against the pending gate with the
 * workflow's own rule before sending it; the workflow's validator checks it once more. Anything
 * refused here never reaches the workflow.
 */
export async function decideFromSlack(gateway: ApprovalGateway, slackApprovers: Readonly<Record<string, string>>, req: SlackDecisionRequest): Promise<ApprovalReceipt> {
  const approver = Object.prototype.hasOwnProperty.call(slackApprovers, req.slackUserId) ? slackApprovers[req.slackUserId] : undefined;
  if (!approver) {
    throw new ChatRefusal(403, `Slack user ${req.slackUserId} is not mapped to a wsmigrate approver; an admin adds ${req.slackUserId}=<name> to WSMIGRATE_SLACK_APPROVERS`);
  }
  let pending;
  try {
    pending = await gateway.pending(req.workflowId);
  } catch (err) {
    if (err instanceof MigrationNotFoundError) throw new ChatRefusal(404, err.message);
    throw err;
  }
  if (!pending) throw new ChatRefusal(403, `${req.workflowId} is not waiting for an approval (already decided, timed out or finished)`);
  const input = {
    gateId: req.gateId ?? pending.gateId,
    planHash: req.planHash ?? pending.planHash,
    approver,
    decision: req.decision,
    channel: 'slack' as const,
    slackUserId: req.slackUserId,
  };
  // A run started before approvers were exposed leaves the list check to the workflow's validator.
  const rule = pending.approvers ? { approvers: pending.approvers, anyApprover: pending.anyApprover } : { approvers: [], anyApprover: true };
  const why = approvalRefusal(pending, input, rule);
  if (why) throw new ChatRefusal(403, why);
  try {
    return await gateway.decide(req.workflowId, req.decision, {
      approver,
      gateId: input.gateId,
      planHash: input.planHash,
      channel: 'slack',
      slackUserId: req.slackUserId,
      ...(req.reason ? { comment: req.reason } : {}),
    });
  } catch (err) {
    // The validator's own refusal (the gate moved on between our check and the update).
    if (/refused:/.test((err as Error).message)) throw new ChatRefusal(403, (err as Error).message);
    throw err;
  }
}
