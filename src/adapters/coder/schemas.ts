import { z } from 'zod';

/*
 * Shapes of the Coder REST answers wsmigrate reads (reference/coder-api.md).
 * Each object requires only the fields the runbook uses and keeps every other field (looseObject),
 * because newer Coder releases keep adding fields and the client must not break on them.
 * IDs and timestamps are plain strings: the client passes them back to Coder, it never computes with them.
 */

const id = z.string().min(1);
/** uuid.Nil as Go prints it: what a nullable id column's zero value reads as through a `*uuid.UUID`. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const timestamp = z.string();
/** Go encodes a nil slice as null; treat it as an empty list. */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((items) => items ?? []);

export const ProvisionerJobStatusSchema = z.enum(['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'unknown']);
export type ProvisionerJobStatus = z.infer<typeof ProvisionerJobStatusSchema>;

/** A job is finished once it reaches one of these; Coder's `jobIsComplete` uses the same three. */
export const TERMINAL_JOB_STATUSES: readonly ProvisionerJobStatus[] = ['succeeded', 'failed', 'canceled'];

export function isTerminalJobStatus(status: ProvisionerJobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}

export const WorkspaceTransitionSchema = z.enum(['start', 'stop', 'delete']);
export type WorkspaceTransition = z.infer<typeof WorkspaceTransitionSchema>;

export const WorkspaceStatusSchema = z.enum([
  'pending',
  'starting',
  'running',
  'stopping',
  'stopped',
  'failed',
  'canceling',
  'canceled',
  'deleting',
  'deleted',
]);
export type WorkspaceStatus = z.infer<typeof WorkspaceStatusSchema>;

export const BuildInfoSchema = z.looseObject({
  version: z.string().min(1),
  external_url: z.string().optional(),
  dashboard_url: z.string().optional(),
});
export type BuildInfo = z.infer<typeof BuildInfoSchema>;

/** `GET /users/me`: only what proves whose token it is. */
/** codersdk.User; `status` (active, suspended, dormant) is read where a suspended owner changes who must act. */
/** `organization_ids`: the organizations the user is a member of (the lock keeper looks for wsmigrate's marks in their templates). */
export const CurrentUserSchema = z.looseObject({ id: z.string().min(1), username: z.string().min(1), status: z.string().optional(), organization_ids: z.array(z.string()).optional() });
export type CurrentUser = z.infer<typeof CurrentUserSchema>;

export const ProvisionerJobSchema = z.looseObject({
  id,
  status: ProvisionerJobStatusSchema,
  // Go omits these when empty (omitempty) or sends null; both mean "none".
  error: z.string().nullish(),
  error_code: z.string().nullish(),
  file_id: id,
  created_at: timestamp,
  started_at: timestamp.nullish(),
  completed_at: timestamp.nullish(),
  canceled_at: timestamp.nullish(),
  worker_id: z.string().nullish(),
  queue_position: z.number().optional(),
  queue_size: z.number().optional(),
  // Which daemons may take it; a new version pushed without them gets Coder's defaults only.
  tags: z.record(z.string(), z.string()).nullish(),
});
export type ProvisionerJob = z.infer<typeof ProvisionerJobSchema>;

/** `GET /templateversions/{id}/variables` (codersdk.TemplateVersionVariable); a sensitive one's value reads `*redacted*`. */
export const TemplateVersionVariableSchema = z.looseObject({
  name: z.string().min(1),
  type: z.string(),
  value: z.string(),
  default_value: z.string(),
  required: z.boolean(),
  sensitive: z.boolean(),
});
export type TemplateVersionVariable = z.infer<typeof TemplateVersionVariableSchema>;

/** `GET /templateversions/{id}/rich-parameters` (codersdk.TemplateVersionParameter): the fields a build's validation reads. */
export const TemplateVersionParameterSchema = z.looseObject({
  name: z.string().min(1),
  type: z.string(),
  default_value: z.string(),
  required: z.boolean(),
  ephemeral: z.boolean().optional(),
  options: z.array(z.looseObject({ value: z.string() })).nullish(),
  validation_min: z.number().nullish(),
  validation_max: z.number().nullish(),
});
export type TemplateVersionParameter = z.infer<typeof TemplateVersionParameterSchema>;

/** `GET /workspacebuilds/{id}/parameters` (codersdk.WorkspaceBuildParameter). */
export const WorkspaceBuildParameterSchema = z.looseObject({ name: z.string(), value: z.string() });
export type WorkspaceBuildParameter = z.infer<typeof WorkspaceBuildParameterSchema>;

export const WorkspaceResourceSchema = z.looseObject({
  id,
  type: z.string(),
  name: z.string(),
  workspace_transition: WorkspaceTransitionSchema.optional(),
});
export type WorkspaceResource = z.infer<typeof WorkspaceResourceSchema>;

export const WorkspaceBuildSchema = z.looseObject({
  id,
  build_number: z.number().int(),
  workspace_id: id,
  workspace_name: z.string(),
  workspace_owner_id: z.string().optional(),
  workspace_owner_name: z.string().optional(),
  template_version_id: id,
  template_version_name: z.string().optional(),
  transition: WorkspaceTransitionSchema,
  status: WorkspaceStatusSchema,
  reason: z.string().optional(),
  initiator_id: z.string().optional(),
  initiator_name: z.string().optional(),
  job: ProvisionerJobSchema,
  resources: list(WorkspaceResourceSchema),
});
export type WorkspaceBuild = z.infer<typeof WorkspaceBuildSchema>;

export const WorkspaceBuildsSchema = list(WorkspaceBuildSchema);

export const WorkspaceSchema = z.looseObject({
  id,
  name: z.string().min(1),
  owner_id: id,
  owner_name: z.string().min(1),
  organization_id: id,
  organization_name: z.string().optional(),
  template_id: id,
  template_name: z.string().min(1),
  template_active_version_id: id,
  template_require_active_version: z.boolean().optional(),
  latest_build: WorkspaceBuildSchema,
  outdated: z.boolean(),
  // 'always' matters to the runbook: such a workspace applies the active version on any start.
  automatic_updates: z.string().optional(),
  // codersdk Workspace.AutostartSchedule / NextStartAt (coderd computes next_start_at from the schedule; null when none or unknown).
  autostart_schedule: z.string().nullish(),
  next_start_at: timestamp.nullish(),
  dormant_at: timestamp.nullish(),
  deleting_at: timestamp.nullish(),
  // Premium's prebuilt workspaces (codersdk Workspace.IsPrebuild): owned by the prebuilds system user.
  is_prebuild: z.boolean().optional(),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const WorkspacesResponseSchema = z.looseObject({
  workspaces: list(WorkspaceSchema),
  count: z.number().int().nonnegative(),
});
export type WorkspacesResponse = z.infer<typeof WorkspacesResponseSchema>;

export const BuildLogSchema = z.looseObject({
  id: z.number().int(),
  created_at: timestamp,
  log_source: z.string(),
  log_level: z.string(),
  stage: z.string(),
  output: z.string(),
});
export type BuildLog = z.infer<typeof BuildLogSchema>;

export const BuildLogsSchema = list(BuildLogSchema);

export const TemplateSchema = z.looseObject({
  id,
  name: z.string().min(1),
  organization_id: id,
  active_version_id: id,
  provisioner: z.string().optional(),
  require_active_version: z.boolean().optional(),
  allow_user_cancel_workspace_jobs: z.boolean().optional(),
  deprecated: z.boolean().optional(),
});
export type Template = z.infer<typeof TemplateSchema>;

export const TemplateVersionSchema = z.looseObject({
  id,
  // A version can exist without a template (created before its template). Go does not omit the field then:
  // coderd/templateversions.go convertTemplateVersion sends `&version.TemplateID.UUID`, the nil UUID. Read as
  // absent, so `template_id` is either a template's id or nothing, never an id no template has.
  template_id: id
    .nullish()
    .transform((v) => (v === NIL_UUID ? undefined : v)),
  organization_id: id,
  name: z.string(),
  message: z.string().optional(),
  job: ProvisionerJobSchema,
  readme: z.string().optional(),
  archived: z.boolean().optional(),
  warnings: list(z.string()),
  created_at: timestamp.optional(),
});
export type TemplateVersion = z.infer<typeof TemplateVersionSchema>;

/** `POST /files` answers `{hash}`; despite its name, `hash` is the file ID. */
export const UploadResponseSchema = z.looseObject({
  hash: id,
});
export type UploadResponse = z.infer<typeof UploadResponseSchema>;

export const OrganizationSchema = z.looseObject({
  id,
  name: z.string(),
});
export type Organization = z.infer<typeof OrganizationSchema>;

/** codersdk.Response: the body of every error, and of a few 200s (promote, cancel). */
export const CoderResponseSchema = z.looseObject({
  message: z.string(),
  detail: z.string().optional(),
  validations: list(z.looseObject({ field: z.string(), detail: z.string() })),
});
export type CoderResponse = z.infer<typeof CoderResponseSchema>;

/** codersdk.ProvisionerDaemon (2.19+ adds status and current_job; older releases answer without them). */
export const ProvisionerDaemonSchema = z.looseObject({
  id,
  name: z.string(),
  tags: z.record(z.string(), z.string()).nullish().transform((tags) => tags ?? {}),
  status: z.enum(['offline', 'idle', 'busy']).nullish(),
  current_job: z.looseObject({ id, status: ProvisionerJobStatusSchema }).nullish(),
  /** When coderd last heard from it: for an offline daemon, about when it went away. */
  last_seen_at: z.string().nullish(),
});
export type ProvisionerDaemon = z.infer<typeof ProvisionerDaemonSchema>;
export const ProvisionerDaemonsSchema = list(ProvisionerDaemonSchema);

/** An entry of `GET /organizations/{org}/provisionerjobs`: a job plus who started it. */
export const OrganizationJobSchema = ProvisionerJobSchema.extend({
  initiator_id: z.string().optional(),
  type: z.string().optional(),
});
export type OrganizationJob = z.infer<typeof OrganizationJobSchema>;
export const OrganizationJobsSchema = list(OrganizationJobSchema);

export const TemplatesSchema = list(TemplateSchema);
