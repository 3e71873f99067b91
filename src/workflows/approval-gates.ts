import type { Duration } from '@temporalio/common';
import { condition, defineSignal, defineUpdate, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import {
  approvalRefusal,
  gateRequiresApproval,
  type ApprovalInput,
  type ApprovalPolicy,
  type Decision,
  type GateId,
  type PendingApproval,
} from '../domain/approval-policy';
import type { Notification } from '../activities/ports';
import { WsmigratePendingApproval } from './search-attributes';

/** Approve or reject the pending gate; validated before it is accepted (approver, gate id, plan hash). */
export const approveUpdate = defineUpdate<ApprovalReceipt, [Omit<ApprovalInput, 'decision'>]>('approve');
export const rejectUpdate = defineUpdate<ApprovalReceipt, [Omit<ApprovalInput, 'decision'>]>('reject');
/** The same decision as a signal, for `temporal workflow signal` and the Web UI; invalid ones are ignored and logged. */
export const approvalSignal = defineSignal<[ApprovalInput]>('approval');

export interface ApprovalReceipt {
  gateId: string;
  decision: Decision;
  approver: string;
  comment?: string;
  at: string;
}

export interface ApprovalSettings {
  policy: ApprovalPolicy;
  approvers: string[];
  timeout: string;
  escalateTo?: string;
}

export type GateResult = 'not-required' | 'approved' | 'rejected' | 'timed-out';

/**
 * The human gates of one workflow run. It never proceeds by itself: a timeout notifies, escalates
 * once, and then reports 'timed-out', which the workflow treats as an abort.
 */
export class ApprovalGates {
  pending: PendingApproval | undefined;
  readonly receipts: ApprovalReceipt[] = [];
  private decided: ApprovalReceipt | undefined;

  constructor(
    private readonly settings: ApprovalSettings,
    private readonly workflowId: string,
    private readonly notify: (n: Notification) => Promise<unknown>,
    /** Called whenever the pending gate changes, so the run's UI details show it. */
    private readonly onPendingChange: () => void = () => undefined,
  ) {
    const validate = (decision: Decision) => (input: Omit<ApprovalInput, 'decision'>) => {
      const why = approvalRefusal(this.pending, { ...input, decision }, settings.approvers);
      if (why) throw new Error(why);
    };
    setHandler(approveUpdate, (input) => this.record({ ...input, decision: 'approve' }), { validator: validate('approve') });
    setHandler(rejectUpdate, (input) => this.record({ ...input, decision: 'reject' }), { validator: validate('reject') });
    setHandler(approvalSignal, (input) => {
      const why = approvalRefusal(this.pending, input, settings.approvers);
      if (why) {
        log.warn('approval signal ignored', { reason: why });
        return;
      }
      this.record(input);
    });
  }

  private decision(): Decision | undefined {
    return this.decided?.decision;
  }

  private record(input: ApprovalInput): ApprovalReceipt {
    const receipt: ApprovalReceipt = {
      gateId: input.gateId,
      decision: input.decision,
      approver: input.approver,
      ...(input.comment ? { comment: input.comment.slice(0, 500) } : {}),
      at: new Date().toISOString(),
    };
    this.decided = receipt;
    this.receipts.push(receipt);
    return receipt;
  }

  /** Asks for approval when the policy (or the guard, with `force`) says so, and waits. */
  async request(gateId: GateId, planHash: string, summary: string, force = false): Promise<GateResult> {
    if (!force && !gateRequiresApproval(this.settings.policy, gateId)) return 'not-required';
    this.decided = undefined;
    this.pending = { gateId, planHash, summary, requestedAt: new Date().toISOString(), escalated: false };
    upsertSearchAttributes([{ key: WsmigratePendingApproval, value: gateId }]);
    this.onPendingChange();
    const base = { workflowId: this.workflowId, gateId, planHash };
    await this.notify({ ...base, kind: 'approval-requested', subject: `Approval needed: ${gateId}`, text: summary });
    let answered = await condition(() => this.decided !== undefined, this.settings.timeout as Duration);
    if (!answered) {
      this.pending.escalated = true;
      this.onPendingChange();
      await this.notify({
        ...base,
        kind: 'approval-escalated',
        subject: `Approval overdue: ${gateId}`,
        text: `No decision within ${this.settings.timeout}. ${summary}`,
        escalateTo: this.settings.escalateTo,
      });
      answered = await condition(() => this.decided !== undefined, this.settings.timeout as Duration);
    }
    this.pending = undefined;
    upsertSearchAttributes([{ key: WsmigratePendingApproval, value: 'none' }]);
    this.onPendingChange();
    if (!answered) {
      await this.notify({ ...base, kind: 'approval-timed-out', subject: `Approval timed out: ${gateId}`, text: 'Aborting and restoring; nothing proceeds without a human.' });
      return 'timed-out';
    }
    return this.decision() === 'approve' ? 'approved' : 'rejected';
  }
}
