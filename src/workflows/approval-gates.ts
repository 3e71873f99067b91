import type { Duration } from '@temporalio/common';
import { condition, isCancellation, log, setHandler, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import {
  approvalRefusal,
  gateRequiresApproval,
  updateDecisionRefusal,
  notAnObjectRefusal,
  whoMayApprove,
  type ApprovalChannel,
  type ApprovalInput,
  type ApprovalPolicy,
  type Decision,
  type GateId,
  type PendingApproval,
} from '../domain/approval-policy';
import type { MessageRef, Notification } from '../activities/ports';
import { approvalSignal, approveUpdate, pendingApprovalQuery, rejectUpdate, type ApprovalReceipt, type DecisionPayload } from '../contracts/approval';
import { WsmigratePendingApproval } from '../contracts/search-attributes';
import type { GateDecision } from '../domain/gate-decision';
import { noteApprovalToFleet } from './fleet-report';

export interface ApprovalSettings {
  policy: ApprovalPolicy;
  approvers: string[];
  /** The operator chose, at start, to accept any approver name (the list is empty). */
  anyApprover?: boolean;
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
  /** How the last gate that was not approved ended (who rejected it, or how long it waited unanswered). */
  lastDecision: GateDecision | undefined;
  private decided: ApprovalReceipt | undefined;
  /** The pending gate's chat messages, edited in place by every later notification of it. */
  private refs: MessageRef[] = [];

  constructor(
    private readonly settings: ApprovalSettings,
    private readonly workflowId: string,
    private readonly notify: (n: Notification) => Promise<unknown>,
    /** Called whenever the pending gate changes, so the run's UI details show it. */
    private readonly onPendingChange: () => void = () => undefined,
  ) {
    const rule = { approvers: settings.approvers, anyApprover: settings.anyApprover ?? false };
    const validate = (decision: Decision) => (input: DecisionPayload) => {
      const why = notAnObjectRefusal(input) ?? updateDecisionRefusal(input, decision) ?? approvalRefusal(this.pending, { ...input, decision }, rule);
      if (why) throw new Error(why);
    };
    setHandler(approveUpdate, (input) => this.record({ ...input, decision: 'approve' }, 'cli'), { validator: validate('approve') });
    setHandler(rejectUpdate, (input) => this.record({ ...input, decision: 'reject' }, 'cli'), { validator: validate('reject') });
    setHandler(approvalSignal, (input) => {
      const why = approvalRefusal(this.pending, input, rule);
      if (why) {
        log.warn('approval signal ignored', { reason: why });
        return;
      }
      // A signal cannot prove where it came from, so it is recorded as a signal whatever it claims.
      this.record({ ...input, channel: 'signal', slackUserId: undefined }, 'signal');
    });
    setHandler(pendingApprovalQuery, () => this.pending ?? null);
    if (rule.anyApprover && rule.approvers.length === 0) {
      upsertMemo({ approvers: 'any (started with --any-approver)' });
    }
  }

  /** A method, not the field, so TypeScript does not keep the `undefined` it narrowed to before the wait. */
  private decisionMade(): ApprovalReceipt | undefined {
    return this.decided;
  }

  private record(input: ApprovalInput, defaultChannel: ApprovalChannel): ApprovalReceipt {
    const receipt: ApprovalReceipt = {
      gateId: input.gateId,
      planHash: input.planHash,
      decision: input.decision,
      approver: input.approver,
      channel: input.channel ?? defaultChannel,
      ...(input.slackUserId ? { slackUserId: String(input.slackUserId).slice(0, 64) } : {}),
      ...(input.comment ? { comment: input.comment.slice(0, 500) } : {}),
      at: new Date().toISOString(),
    };
    this.decided = receipt;
    this.receipts.push(receipt);
    return receipt;
  }

  /** Notifies, and keeps any message a backend posted so the next notification of this gate edits it. */
  private async tell(n: Notification, refs: MessageRef[]): Promise<MessageRef[]> {
    const result = (await this.notify(refs.length ? { ...n, messageRefs: refs } : n)) as { messageRefs?: MessageRef[] } | undefined;
    return result?.messageRefs?.length ? result.messageRefs : refs;
  }

  /**
   * Answers the pending gate with a rejection on someone's behalf (a fleet cancel), so the wait ends
   * now instead of at the approval timeout. The caller has already checked that `by` may decide.
   */
  rejectPending(by: string, comment: string, channel: ApprovalChannel): void {
    if (!this.pending || this.decided) return;
    this.record({ gateId: this.pending.gateId, planHash: this.pending.planHash, decision: 'reject', approver: by, comment }, channel);
  }

  /** No decision within the timeout: says so once, to whom it escalates, and waits as long again. */
  private async escalate(base: { workflowId: string; gateId: GateId; planHash: string; requestedAt: string }): Promise<boolean> {
    if (this.pending) this.pending.escalated = true;
    this.onPendingChange();
    this.refs = await this.tell(
      {
        ...base,
        kind: 'approval-escalated',
        subject: `Approval overdue: ${base.gateId}`,
        text: `No decision within ${this.settings.timeout}. ${this.pending?.summary ?? ''}`,
        escalateTo: this.settings.escalateTo,
      },
      this.refs,
    );
    return condition(() => this.decided !== undefined, this.settings.timeout as Duration);
  }

  /**
   * What the pending gate's summary describes is no longer so (someone built the workspace under it):
   * `note` goes first in its summary, wherever an approver reads it (status, the Web UI's details,
   * the fleet's list, the chat message, edited in place). The plan hash stays: the decision is the
   * same question, and `note` says what each answer does now.
   */
  async amendPending(note: string): Promise<void> {
    const p = this.pending;
    if (!p || this.decided) return;
    p.summary = `${note} Before: ${p.summary}`;
    this.onPendingChange();
    await noteApprovalToFleet({ gateId: p.gateId, pending: true, summary: p.summary.slice(0, 300), since: p.requestedAt });
    // Decided meanwhile: the message says so already; editing it back would offer buttons for a closed gate.
    if (this.pending !== p || this.decided) return;
    this.refs = await this.tell(
      { workflowId: this.workflowId, gateId: p.gateId, planHash: p.planHash, requestedAt: p.requestedAt, kind: 'approval-changed', subject: `Changed under the gate: ${p.gateId}`, text: p.summary },
      this.refs,
    );
  }

  private clearPending(): void {
    this.pending = undefined;
    upsertSearchAttributes([{ key: WsmigratePendingApproval, value: 'none' }]);
    this.onPendingChange();
  }

  /** Asks for approval when the policy (or the guard, with `force`) says so, and waits. */
  async request(gateId: GateId, planHash: string, summary: string, force = false): Promise<GateResult> {
    if (!force && !gateRequiresApproval(this.settings.policy, gateId)) return 'not-required';
    this.decided = undefined;
    this.pending = {
      gateId,
      planHash,
      summary,
      requestedAt: new Date().toISOString(),
      escalated: false,
      approvers: [...this.settings.approvers],
      anyApprover: this.settings.anyApprover ?? false,
    };
    upsertSearchAttributes([{ key: WsmigratePendingApproval, value: gateId }]);
    this.onPendingChange();
    await noteApprovalToFleet({ gateId, pending: true, summary: summary.slice(0, 300), since: this.pending.requestedAt, approvers: whoMayApprove(this.pending).slice(0, 200) });
    // Every message about this wait says on whom it waits.
    const base = { workflowId: this.workflowId, gateId, planHash, requestedAt: this.pending.requestedAt, approvers: whoMayApprove(this.pending) };
    this.refs = [];
    let answered: boolean;
    try {
      this.refs = await this.tell({ ...base, kind: 'approval-requested', subject: `Approval needed: ${gateId}`, text: summary }, []);
      answered = await condition(() => this.decided !== undefined, this.settings.timeout as Duration);
      if (!answered) answered = await this.escalate(base);
    } catch (err) {
      // Cancelled while waiting: the run goes on to restore and ends; no gate is pending any more, for
      // the UI's details, `approvals` and a `WsmigratePendingApproval != "none"` search alike.
      if (isCancellation(err)) this.clearPending();
      throw err;
    }
    // As the approver last saw it (amendPending may have added to it).
    const shown = this.pending?.summary ?? summary;
    const escalated = this.pending?.escalated === true;
    const refs = this.refs;
    this.clearPending();
    await noteApprovalToFleet({ gateId, pending: false });
    const d = this.decisionMade();
    if (!answered || !d) {
      this.lastDecision = { gateId, how: 'timed-out', requestedAt: base.requestedAt, at: new Date().toISOString(), ...(escalated ? { escalated } : {}) };
      await this.tell({ ...base, kind: 'approval-timed-out', subject: `Approval timed out: ${gateId}`, text: `Aborting and restoring; nothing proceeds without a human. ${shown}` }, refs);
      return 'timed-out';
    }
    if (d.decision === 'reject') {
      this.lastDecision = { gateId, how: 'rejected', by: d.approver, ...(d.comment ? { comment: d.comment } : {}), requestedAt: base.requestedAt, at: d.at };
    }
    const verb = d.decision === 'approve' ? 'Approved' : 'Rejected';
    await this.tell(
      {
        ...base,
        kind: 'approval-closed',
        subject: `${verb}: ${gateId} by ${d.approver} (${d.channel})`,
        text: shown,
        decision: { approver: d.approver, decision: d.decision, channel: d.channel, at: d.at, ...(d.slackUserId ? { slackUserId: d.slackUserId } : {}), ...(d.comment ? { reason: d.comment } : {}) },
      },
      refs,
    );
    return d.decision === 'approve' ? 'approved' : 'rejected';
  }
}
