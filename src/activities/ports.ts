import type { CoderClient } from '../adapters/coder';
import type { BlobStore } from '../ports/blob-store';
import type { Importer } from '../ports/importer';
import type { MigrationMetrics } from '../ports/metrics';
import type { Notifier } from '../ports/notifier';
import type { TemplateVariableValues } from '../ports/template-variables';
import type { OtherRuns } from '../ports/other-runs';

/** The Coder calls the runbook makes; the real client or one pointed at the simulator. */
export type CoderApi = Pick<
  CoderClient,
  | 'buildInfo'
  | 'authCheck'
  | 'workspaceByOwnerAndName'
  | 'userByName'
  | 'workspace'
  | 'workspacesOfTemplate'
  | 'workspacesOfTemplatePage'
  | 'workspaceBuild'
  | 'workspaceBuilds'
  | 'workspaceBuildLogs'
  | 'createWorkspaceBuild'
  | 'waitForBuild'
  | 'getWorkspaceBuildState'
  | 'templateByName'
  | 'currentUser'
  | 'template'
  | 'templateVersion'
  | 'templateVersions'
  | 'templateVersionVariables'
  | 'templateVersionRichParameters'
  | 'workspaceBuildParameters'
  | 'downloadFile'
  | 'uploadFile'
  | 'createTemplateVersion'
  | 'waitForTemplateVersion'
  | 'promoteTemplateVersion'
  | 'archiveTemplateVersion'
  | 'setTemplateRequireActiveVersion'
  | 'currentUser'
  | 'templatesOfOrganization'
  | 'provisionerDaemons'
  | 'provisionerJobs'
>;

export interface ActivityDeps {
  coder: CoderApi;
  blobs: BlobStore;
  notifier: Notifier;
  importer?: Importer;
  metrics?: MigrationMetrics;
  /** Values for templates' sensitive variables, which Coder redacts (WSMIGRATE_TEMPLATE_VARIABLES). */
  templateVariables?: TemplateVariableValues;
  /** Temporal's running fleets (the worker's client); without it a window's check of them finds none. */
  otherRuns?: OtherRuns;
}

// The ports activities are given, under the names activities have always imported them by.
export type { Importer } from '../ports/importer';
export type { OtherRun, OtherRuns, OtherRunsQuery } from '../ports/other-runs';
export type { TemplateVariableValues } from '../ports/template-variables';
export type { MigrationMetrics, ObservedChangeKind } from '../ports/metrics';
export type { MessageRef, Notification, NotificationKind, Notifier, NotifyOutcome } from '../ports/notifier';
