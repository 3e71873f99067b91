import type { CoderClient } from '../adapters/coder';
import type { BlobStore } from '../adapters/blob-store';
import type { ImportStep } from '../domain/import-plan';
import type { TemplateFile } from '../domain/template-rewrite';

/** The Coder calls the runbook makes; the real client or one pointed at the simulator. */
export type CoderApi = Pick<
  CoderClient,
  | 'buildInfo'
  | 'workspaceByOwnerAndName'
  | 'workspace'
  | 'workspacesOfTemplate'
  | 'workspacesOfTemplatePage'
  | 'workspaceBuild'
  | 'workspaceBuildLogs'
  | 'createWorkspaceBuild'
  | 'waitForBuild'
  | 'getWorkspaceBuildState'
  | 'putWorkspaceBuildState'
  | 'templateByName'
  | 'template'
  | 'templateVersion'
  | 'templateVersions'
  | 'downloadFile'
  | 'uploadFile'
  | 'createTemplateVersion'
  | 'waitForTemplateVersion'
  | 'promoteTemplateVersion'
  | 'archiveTemplateVersion'
>;

export type NotificationKind =
  | 'approval-requested'
  | 'approval-escalated'
  | 'approval-timed-out'
  | 'approval-closed'
  | 'migration-failed'
  | 'migration-done'
  | 'restored'
  | 'replacements-detected'
  | 'fleet-canary-done'
  | 'fleet-budget-hit'
  | 'fleet-paused'
  | 'fleet-done';

export interface Notification {
  kind: NotificationKind;
  workflowId: string;
  subject: string;
  text: string;
  gateId?: string;
  planHash?: string;
  escalateTo?: string;
  /** On approval-closed: who decided, how, and what. */
  decision?: { approver: string; decision: 'approve' | 'reject'; channel: 'cli' | 'signal' | 'slack' | 'ui'; reason?: string };
  /** On fleet events: counts by outcome, for the message body. */
  counts?: Record<string, number>;
}

/** Where humans hear about approvals and outcomes (log, webhook, chat). */
export interface Notifier {
  notify(n: Notification): Promise<void>;
}

/**
 * Re-creates state entries by `terraform import` for types a rename cannot carry (DIFFERENT pairs).
 * It needs the template source, a provider and cluster credentials, so it is an adapter of its own.
 */
export interface Importer {
  importInstances(input: { stateText: string; steps: ImportStep[]; templateFiles: TemplateFile[] }): Promise<string>;
}

export interface ActivityDeps {
  coder: CoderApi;
  blobs: BlobStore;
  notifier: Notifier;
  importer?: Importer;
}
