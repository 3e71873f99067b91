/** The simulated deployment's records, as coderd keeps them in its database. */
import type { LogLine } from './build-log';
import type { RoleName } from './rbac';
import type { TemplateConfig } from './template-config';
import type { TemplateMeta } from './template-meta';
import type { Transition } from './workspace-context';

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed';
export type JobType = 'template_version_import' | 'workspace_build';

export const ACTIVE_JOB_STATUSES: ReadonlySet<JobStatus> = new Set(['pending', 'running', 'canceling']);
export const TERMINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'canceled']);

export interface User {
  id: string;
  username: string;
  /**
   * The user's full name (codersdk.User `name`, database users.name): optional in Coder, '' when none
   * was given (POST /users without `name`, `coder users create` without `--full-name`). Coder hands it
   * to the provider as CODER_WORKSPACE_OWNER_NAME (coderd/provisionerdserver/provisionerdserver.go:
   * WorkspaceOwnerName = owner.Name), which is where coder_workspace.owner_name and
   * coder_workspace_owner.full_name come from; the username is CODER_WORKSPACE_OWNER.
   */
  name: string;
  email: string;
  /** Built-in roles beyond member (every user is a member of the one organization). */
  roles: RoleName[];
  token: string;
  createdAt: string;
  /**
   * codersdk.UserStatus; absent is 'active'. PUT /users/{user}/status/suspend and /activate set it
   * (coderd/users.go putUserStatus); 'dormant' is what coderd marks a user unseen for long (Premium),
   * and the user's next API call makes it active again (coderd/httpmw/apikey.go).
   */
  status?: UserStatus;
}

export type UserStatus = 'active' | 'suspended' | 'dormant';

/** The build reasons the lifecycle executor gives (database.BuildReason, coderd/autobuild/lifecycle_executor.go). */
export type AutobuildReason = 'autostart' | 'autostop' | 'dormancy' | 'autodelete';

export interface Organization {
  id: string;
  name: string;
  displayName: string;
  createdAt: string;
}

export interface JobLog extends LogLine {
  id: number;
  createdAt: string;
}

export interface ProvisionerJob {
  id: string;
  type: JobType;
  status: JobStatus;
  error?: string;
  errorCode?: string;
  fileId: string;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  /** Set by PATCH /workspacebuilds/{id}/cancel: a pending job ends canceled at once, a running one when its provisioner stops. */
  canceledAt?: string;
  initiatorId: string;
  workerId?: string;
  logs: JobLog[];
  /** Which daemons may take it (coderd: the version's `provisioner_tags`, a build inherits its version's); Coder's defaults when absent. */
  tags?: Readonly<Record<string, string>>;
}

export interface TemplateRecord {
  id: string;
  name: string;
  organizationId: string;
  activeVersionId: string;
  /** The settings PATCH /templates/{id} writes, as stored (require_active_version before the licence is applied). */
  meta: TemplateMeta;
  /**
   * Every version of the template carries one `coder_workspace_preset` with `prebuilds { instances = N }`
   * (a preset belongs to its version: template_version_presets): Coder's reconciler keeps N prebuilt
   * workspaces of the active version's preset (see prebuilds.ts). Absent: no prebuilds.
   */
  prebuilds?: { desiredInstances: number };
  createdById: string;
  createdAt: string;
  updatedAt: string;
}

export interface TemplateVersionRecord {
  id: string;
  templateId?: string;
  organizationId: string;
  name: string;
  message: string;
  job: ProvisionerJob;
  createdById: string;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  /** Parsed by the import job; present once it succeeded. */
  config?: TemplateConfig;
  /**
   * What the import stored per variable (provisionerdserver UpdateJob: the request's
   * `user_variable_values`, else the default; '' for a required one without a value). Builds of
   * this version plan with these values, never with a later push's.
   */
  variables?: TemplateVersionVariableRecord[];
  /** The version's `data "coder_parameter"` blocks as the import stored them (template_version_parameters). */
  parameters?: TemplateVersionParameterRecord[];
}

export interface TemplateVersionParameterRecord {
  name: string;
  displayName: string;
  description: string;
  type: string;
  mutable: boolean;
  ephemeral: boolean;
  defaultValue: string;
  required: boolean;
  options: { name: string; value: string }[];
  validationMin?: number;
  validationMax?: number;
  validationRegex?: string;
}

/** One value of a build (workspace_build_parameters; codersdk.WorkspaceBuildParameter). */
export interface BuildParameterValue {
  name: string;
  value: string;
}

export interface TemplateVersionVariableRecord {
  name: string;
  description: string;
  type: string;
  value: string;
  defaultValue: string;
  required: boolean;
  sensitive: boolean;
}

export interface FileRecord {
  id: string;
  sha256: string;
  mimetype: string;
  bytes: Buffer;
  createdById: string;
  createdAt: string;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  ownerId: string;
  organizationId: string;
  templateId: string;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string;
  deleted: boolean;
  /** Set by its owner (PUT /workspaces/{id}/favorite); sorts first in that owner's own listings. */
  favorite?: boolean;
  /** PUT /workspaces/{id}/autostart: a weekly cron (see cron-schedule.ts), read by the lifecycle executor. */
  autostartSchedule?: string;
  /** PUT /workspaces/{id}/ttl: a successful start's deadline is its completion plus this. */
  ttlMs?: number;
  /** PUT /workspaces/{id}/autoupdates: 'always' makes autostart build the active version. */
  automaticUpdates?: 'always' | 'never';
  /** PUT /workspaces/{id}/dormant: from then on nobody may start it (rbac workspace_dormant) until made active. */
  dormantAt?: string;
  /**
   * next_start_at as coderd stores it: schedule.NextAllowedAutostart after the latest build completed
   * (provisionerdserver CompleteJob), after the schedule was set (coderd/workspaces.go
   * putWorkspaceAutostart), or after the tick that found it unset (lifecycle_executor.go runOnce).
   */
  nextStartAt?: string;
  buildIds: string[];
}

export interface BuildResource {
  id: string;
  type: string;
  name: string;
  hasAgent: boolean;
  agentId?: string;
  createdAt: string;
}

export interface BuildRecord {
  id: string;
  workspaceId: string;
  buildNumber: number;
  templateVersionId: string;
  transition: Transition;
  initiatorId: string;
  reason: string;
  /** Provisioner state: inherited from the previous build, replaced when the job completes. */
  state: Buffer;
  /** What wsbuilder resolved for this build (template-parameters.ts resolveBuildParameters); the next build starts from these. */
  parameters: BuildParameterValue[];
  job: ProvisionerJob;
  resources: BuildResource[];
  /**
   * template_version_preset_id, as the prebuilds reconciler sets it (the preset of that version): only its
   * builds carry one, so a prebuilt workspace's preset is its latest build's that has one (the
   * workspace_prebuilds view), whatever other builds came after.
   */
  presetVersionId?: string;
  /** Autostop time: set when a start completes on a workspace with a ttl (provisionerdserver CompleteJob). */
  deadline?: string;
  createdAt: string;
  updatedAt: string;
}
