/** How a person decides a gate of any wsmigrate workflow (workspace, template, fleet, organization): what the CLI, chat and the Web UI send. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalChannel, ApprovalInput, Decision, PendingApproval } from '../domain/approval-policy';
import type { GateDecision } from '../domain/gate-decision';

/** How a gate ended a run without a yes (rejected, or timed out): what status, the fleet and the tests read. */
export type { GateDecision };

/** What a caller sends to decide; `channel` defaults to `cli` for the update; a signal is always recorded as `signal`. */
export type DecisionPayload = Omit<ApprovalInput, 'decision'>;

/** Approve or reject the pending gate; validated before it is accepted (approver, gate id, plan hash). */
export const approveUpdate = defineUpdate<ApprovalReceipt, [DecisionPayload]>('approve');
export const rejectUpdate = defineUpdate<ApprovalReceipt, [DecisionPayload]>('reject');
/** The same decision as a signal, for `temporal workflow signal` and the Web UI; invalid ones are ignored and logged. */
export const approvalSignal = defineSignal<[ApprovalInput]>('approval');
/** The gate waiting now, in any workflow that uses ApprovalGates (workspace, template, fleet): what chat bridges read. */
export const pendingApprovalQuery = defineQuery<PendingApproval | null>('pendingApproval');

/** The record of one decision, kept in the workflow's status and history. */
export interface ApprovalReceipt {
  gateId: string;
  planHash: string;
  decision: Decision;
  approver: string;
  channel: ApprovalChannel;
  slackUserId?: string;
  comment?: string;
  at: string;
}
