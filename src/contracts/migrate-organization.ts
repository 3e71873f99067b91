/** migrateOrganization's contract: input, progress (query) and result; its pause/resume/cancel are the fleet's (contracts/migrate-fleet). */
import { defineQuery } from '@temporalio/workflow';
import type { PendingApproval } from '../domain/approval-policy';
import type { FleetSummary } from '../domain/fleet-summary';
import type { FleetControlEntry, FleetPhase } from './migrate-fleet';

export type { MigrateOrganizationInput } from '../domain/organization-input';

export type OrganizationStage = 'scan' | 'canary' | 'canary-gate' | 'rolling' | 'done';

export interface OrganizationTemplateRow {
  template: string;
  state: 'nothing-to-do' | 'waiting' | 'canary' | 'canary-done' | 'rolling' | 'done' | 'cancelled' | 'failed';
  deprecatedTypes: string[];
  /** The fleet running for it now (or last). */
  workflowId?: string;
  targetVersionId?: string;
  summary?: FleetSummary;
  note?: string;
}

export interface OrganizationProgress {
  workflowId: string;
  organization: string;
  phase: FleetPhase;
  stage: OrganizationStage;
  templates: OrganizationTemplateRow[];
  summary: FleetSummary;
  pendingApproval?: PendingApproval;
  control: FleetControlEntry[];
}

export interface OrganizationResult {
  phase: 'done' | 'cancelled';
  templates: OrganizationTemplateRow[];
  summary: FleetSummary;
  /** Templates whose active version declares no deprecated type. */
  nothingToDo: string[];
  /** Who cancelled it and why (`fleet cancel`, or the shared fleet-continue gate: rejected by whom, or timed out). */
  cancelledBy?: { by: string; reason?: string };
}

export const organizationProgressQuery = defineQuery<OrganizationProgress>('organizationProgress');
/** The result once the run has ended: a cancelled run ends as Cancelled in Temporal, which keeps no result for it. */
export const organizationResultQuery = defineQuery<OrganizationResult | undefined>('organizationResult');
