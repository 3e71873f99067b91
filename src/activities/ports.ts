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
  | 'workspaceBuilds'
  | 'workspaceBuildLogs'
  | 'createWorkspaceBuild'
  | 'waitForBuild'
  | 'getWorkspaceBuildState'
  | 'putWorkspaceBuildState'
  | 'templateByName'
  | 'currentUser'
  | 'template'
  | 'templateVersion'
  | 'templateVersions'
  | 'downloadFile'
  | 'uploadFile'
  | 'createTemplateVersion'
  | 'waitForTemplateVersion'
  | 'promoteTemplateVersion'
  | 'archiveTemplateVersion'
  | 'setTemplateRequireActiveVersion'
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
  decision?: {
    approver: string;
    decision: 'approve' | 'reject';
    channel: 'cli' | 'signal' | 'slack' | 'ui';
    reason?: string;
    /** The rest of the receipt, so the history holds it for every channel (a signal has no update result). */
    slackUserId?: string;
    at?: string;
  };
  /** On approval events: when the gate opened (workflow time), for the time-to-decision metric. */
  requestedAt?: string;
  /** On fleet events: counts by outcome, for the message body. */
  counts?: Record<string, number>;
  /** Messages posted when the gate opened, so a chat backend edits them in place when it escalates or closes. */
  messageRefs?: MessageRef[];
}

/** Where a backend posted a message it may edit later (a Slack channel and message ts); never a credential. */
export interface MessageRef {
  backend: string;
  channel: string;
  ts: string;
}

/** What a delivery produced that a later notification needs (e.g. the posted message to update). */
export interface NotifyOutcome {
  messageRefs?: MessageRef[];
}

/** Where humans hear about approvals and outcomes (log, webhook, chat). */
export interface Notifier {
  notify(n: Notification): Promise<void | NotifyOutcome>;
}

/**
 * Re-creates state entries by `terraform import` for types a rename cannot carry (DIFFERENT pairs).
 * It needs the template source, a provider and cluster credentials, so it is an adapter of its own.
 */
export interface Importer {
  importInstances(input: { stateText: string; steps: ImportStep[]; templateFiles: TemplateFile[] }): Promise<string>;
}

/** Change kinds wsmigrate watches for in the builds it triggers (seed 003: resource replacements). */
export type ObservedChangeKind = 'replace' | 'destroy' | 'type-rename-delete';

/**
 * What activities count for Prometheus (workflows cannot: they replay). The worker passes the
 * prom-client implementation; tests may pass nothing.
 */
export interface MigrationMetrics {
  workspaceFinished(outcome: 'migrated' | 'restored' | 'needs-attention'): void;
  approvalDecided(gate: string, decision: 'approve' | 'reject' | 'timed-out', seconds: number): void;
  resourceChangeSeen(kind: ObservedChangeKind, template: string, resourceType: string): void;
  deleteBlocked(step: string): void;
  damagedWorkspaceFound(reason: string): void;
}

export interface ActivityDeps {
  coder: CoderApi;
  blobs: BlobStore;
  notifier: Notifier;
  importer?: Importer;
  metrics?: MigrationMetrics;
}
