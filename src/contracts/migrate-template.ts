/** migrateTemplate's contract: input, status (query) and result; shared by the workflow, the fleet, the client and the tests. */
import { defineQuery } from '@temporalio/workflow';
import type { PendingApproval } from '../domain/approval-policy';
import type { BlobRef } from '../domain/blob-ref';
import type { RenamedToken, TemplateRewriteReport } from '../domain/template-rewrite';
import type { ApprovalReceipt } from './approval';

export type { MigrateTemplateInput } from '../domain/migration-input';

/** What the template's rewrite produced (the archive by reference) and reported. */
export interface TemplateRewriteResult {
  /** The rewritten source archive in the blob store; null when nothing needed rewriting. */
  source: BlobRef | null;
  versionName: string;
  unchanged: boolean;
  renamedCount: number;
  renamed: Pick<RenamedToken, 'file' | 'line' | 'from' | 'to'>[];
  refused: TemplateRewriteReport['refused'];
  guards: string[];
  protectedResources: string[];
  /** zeroTouch only: old -> new addresses each workspace adopts at its next build. */
  zeroTouch?: { from: string; to: string }[];
}

export type TemplatePhase = 'preflight' | 'rewriting' | 'awaiting-approval' | 'pushing' | 'promoting' | 'done' | 'unchanged' | 'dry-run';

export interface TemplateMigrationStatus {
  phase: TemplatePhase;
  pendingApproval?: PendingApproval;
  approvals: ApprovalReceipt[];
  report?: Omit<TemplateRewriteResult, 'source'>;
  newVersionId?: string;
}

export interface TemplateMigrationResult {
  outcome: 'promoted' | 'pushed' | 'unchanged' | 'dry-run';
  /** The version workspaces must be migrated to (the new one, or the active one when nothing changed). */
  versionId: string;
  versionName?: string;
  previousActiveVersionId: string;
  report: Omit<TemplateRewriteResult, 'source'>;
}

export const templateStatusQuery = defineQuery<TemplateMigrationStatus>('status');
