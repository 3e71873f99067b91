import { defineSignal } from '@temporalio/workflow';
import type { ChildReport } from '../domain/fleet-progress';

export type { ChildReport } from '../domain/fleet-progress';

/**
 * How a migration started by a fleet tells the fleet about itself. By workflow id, never run id:
 * after the fleet continues-as-new, its newest run gets the signal (Temporal's sliding-window pattern).
 */
export const childDoneSignal = defineSignal<[ChildReport]>('fleetChildDone');
export const childApprovalSignal = defineSignal<[ChildApprovalNote]>('fleetChildApproval');
/** From a fleet about to continue-as-new, to each child it started: its next run will not see your result, so signal. */
export const reportBySignalRequest = defineSignal('fleetReportBySignal');

export interface ChildApprovalNote {
  workflowId: string;
  gateId: string;
  pending: boolean;
  summary?: string;
  since?: string;
  /** Who may decide it, in words (whoMayApprove): the fleet's details say on whom its migrations wait. */
  approvers?: string;
}
