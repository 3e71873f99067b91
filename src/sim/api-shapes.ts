/** Records → the JSON bodies coderd sends (field names as codersdk spells them; omitempty fields left out). */
import { isPrebuilt } from './prebuilds';
import type { SimDeployment } from './deployment';
import type { BuildRecord, JobStatus, ProvisionerJob, TemplateRecord, TemplateVersionRecord, User, WorkspaceRecord } from './model';
import { deletingAt } from './schedule-times';
import { effectiveRequireActiveVersion } from './template-meta';
import type { Transition } from './workspace-context';

type Json = Record<string, unknown>;

const WORKSPACE_STATUS: Record<JobStatus, Record<Transition, string>> = {
  pending: { start: 'pending', stop: 'pending', delete: 'pending' },
  running: { start: 'starting', stop: 'stopping', delete: 'deleting' },
  succeeded: { start: 'running', stop: 'stopped', delete: 'deleted' },
  canceling: { start: 'canceling', stop: 'canceling', delete: 'canceling' },
  canceled: { start: 'canceled', stop: 'canceled', delete: 'canceled' },
  failed: { start: 'failed', stop: 'failed', delete: 'failed' },
};

export function workspaceStatus(build: BuildRecord): string {
  return WORKSPACE_STATUS[build.job.status][build.transition];
}

/** codersdk.MinimalUser (coderd/database/db2sdk MinimalUser): `name` is the user's full name, not the username. */
function minimalUser(user: User | undefined): Json {
  return { id: user?.id ?? '', username: user?.username ?? '', name: user?.name ?? '', avatar_url: '' };
}

export function jobJson(d: SimDeployment, job: ProvisionerJob, input: Json, metadata: Json): Json {
  const queue = d.daemons?.queuePosition(job) ?? { position: 0, size: 0 };
  const worker = d.daemons?.daemons.find((daemon) => daemon.id === job.workerId);
  return {
    id: job.id,
    created_at: job.createdAt,
    ...(job.startedAt ? { started_at: job.startedAt } : {}),
    ...(job.completedAt ? { completed_at: job.completedAt } : {}),
    ...(job.canceledAt ? { canceled_at: job.canceledAt } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
    ...(job.errorCode !== undefined ? { error_code: job.errorCode } : {}),
    file_id: job.fileId,
    tags: job.tags ?? { scope: 'organization', owner: '' },
    queue_position: queue.position,
    queue_size: queue.size,
    status: job.status,
    ...(job.workerId ? { worker_id: job.workerId, worker_name: worker?.name ?? 'sim-provisioner' } : {}),
    available_workers: [],
    type: job.type,
    input,
    metadata,
    organization_id: d.org.id,
    initiator_id: job.initiatorId,
    logs_overflowed: false,
  };
}

export function logJson(log: ProvisionerJob['logs'][number]): Json {
  return { id: log.id, created_at: log.createdAt, log_source: log.source, log_level: log.level, stage: log.stage, output: log.output };
}

export function buildJson(d: SimDeployment, build: BuildRecord): Json {
  const ws = d.workspaces.get(build.workspaceId) as WorkspaceRecord;
  const owner = d.userById(ws.ownerId);
  const initiator = d.userById(build.initiatorId);
  const version = d.versions.get(build.templateVersionId);
  const template = d.template(ws.templateId);
  const resources = build.resources.map((r) => ({
    id: r.id,
    created_at: r.createdAt,
    job_id: build.job.id,
    workspace_transition: build.transition,
    type: r.type,
    name: r.name,
    hide: false,
    icon: '',
    agents: r.hasAgent
      ? [
          {
            id: r.agentId,
            created_at: r.createdAt,
            updated_at: r.createdAt,
            name: 'main',
            status: 'connected',
            lifecycle_state: 'ready',
            health: { healthy: true },
            resource_id: r.id,
            operating_system: 'linux',
            architecture: 'amd64',
            directory: '',
            expanded_directory: '/home/coder',
            apps: [],
            scripts: [],
            log_sources: [],
            display_apps: ['vscode', 'web_terminal', 'ssh_helper'],
            subsystems: [],
            api_version: '2.0',
            version: 'v2.31.7',
            connection_timeout_seconds: 120,
            troubleshooting_url: '',
            startup_script_behavior: 'non-blocking',
            logs_length: 0,
            logs_overflowed: false,
          },
        ]
      : [],
    metadata: [],
    daily_cost: 0,
  }));
  return {
    id: build.id,
    created_at: build.createdAt,
    updated_at: build.updatedAt,
    workspace_id: ws.id,
    workspace_name: ws.name,
    workspace_owner_id: ws.ownerId,
    // The username, not the full name (coderd/workspacebuilds.go convertWorkspaceBuild: ownerName = workspaceOwner.Username).
    workspace_owner_name: owner?.username ?? '',
    workspace_owner_avatar_url: '',
    template_version_id: build.templateVersionId,
    template_version_name: version?.name ?? '',
    build_number: build.buildNumber,
    transition: build.transition,
    initiator_id: build.initiatorId,
    initiator_name: initiator?.username ?? '',
    job: jobJson(
      d,
      build.job,
      { workspace_build_id: build.id },
      {
        template_version_name: version?.name ?? '',
        template_id: ws.templateId,
        template_name: template?.name ?? '',
        template_display_name: template?.meta.displayName ?? '',
        template_icon: '',
        workspace_id: ws.id,
        workspace_name: ws.name,
        workspace_build_transition: build.transition,
      },
    ),
    reason: build.reason,
    resources,
    status: workspaceStatus(build),
    // The template sets no default TTL, so coderd leaves both unset (NullTime → null).
    deadline: build.deadline ?? null,
    max_deadline: null,
    daily_cost: 0,
    matched_provisioners: { count: 1, available: 1, most_recently_seen: build.updatedAt },
    template_version_preset_id: null,
    has_ai_task: false,
    has_external_agent: false,
  };
}

export function workspaceJson(d: SimDeployment, ws: WorkspaceRecord): Json {
  const owner = d.userById(ws.ownerId);
  const template = d.template(ws.templateId) as TemplateRecord;
  const latest = d.latestBuild(ws);
  const failingAgents: string[] = [];
  return {
    id: ws.id,
    created_at: ws.createdAt,
    updated_at: ws.updatedAt,
    owner_id: ws.ownerId,
    // The API's owner_name is the username (coderd/workspaces.go convertWorkspace: OwnerName =
    // workspace.OwnerUsername), unlike the provider's coder_workspace.owner_name (the full name).
    owner_name: owner?.username ?? '',
    owner_avatar_url: '',
    organization_id: ws.organizationId,
    organization_name: d.org.name,
    template_id: template.id,
    template_name: template.name,
    template_display_name: template.meta.displayName,
    template_icon: '',
    template_allow_user_cancel_workspace_jobs: false,
    template_active_version_id: template.activeVersionId,
    template_require_active_version: effectiveRequireActiveVersion(template.meta, d.licence),
    template_use_classic_parameter_flow: template.meta.useClassicParameterFlow,
    latest_build: buildJson(d, latest),
    latest_app_status: null,
    outdated: latest.templateVersionId !== template.activeVersionId,
    name: ws.name,
    autostart_schedule: ws.autostartSchedule ?? null,
    ttl_ms: ws.ttlMs ?? null,
    last_used_at: ws.lastUsedAt,
    deleting_at: deletingAt(ws, template) ?? null,
    dormant_at: ws.dormantAt ?? null,
    health: { healthy: failingAgents.length === 0, failing_agents: failingAgents },
    automatic_updates: ws.automaticUpdates ?? 'never',
    allow_renames: d.allowWorkspaceRenames,
    favorite: Boolean(ws.favorite),
    next_start_at: ws.nextStartAt ?? null,
    // codersdk Workspace.IsPrebuild: owned by the prebuilds system user (prebuilds.ts).
    is_prebuild: isPrebuilt(ws),
    task_id: null,
    shared_with: [],
  };
}

export function templateJson(d: SimDeployment, t: TemplateRecord): Json {
  const creator = d.userById(t.createdById);
  return {
    id: t.id,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    organization_id: t.organizationId,
    organization_name: d.org.name,
    organization_display_name: d.org.displayName,
    organization_icon: '',
    name: t.name,
    display_name: t.meta.displayName,
    provisioner: 'terraform',
    active_version_id: t.activeVersionId,
    active_user_count: 0,
    build_time_stats: { start: { p50: null, p95: null }, stop: { p50: null, p95: null }, delete: { p50: null, p95: null } },
    description: t.meta.description,
    deprecated: t.meta.deprecationMessage !== '',
    deprecation_message: t.meta.deprecationMessage,
    icon: t.meta.icon,
    default_ttl_ms: t.meta.defaultTtlMs,
    activity_bump_ms: t.meta.activityBumpMs,
    autostop_requirement: { days_of_week: [], weeks: 1 },
    autostart_requirement: { days_of_week: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] },
    created_by_id: t.createdById,
    created_by_name: creator?.username ?? '',
    allow_user_autostart: t.meta.allowUserAutostart,
    allow_user_autostop: t.meta.allowUserAutostop,
    allow_user_cancel_workspace_jobs: t.meta.allowUserCancelWorkspaceJobs,
    failure_ttl_ms: t.meta.failureTtlMs,
    time_til_dormant_ms: t.meta.timeTilDormantMs,
    time_til_dormant_autodelete_ms: t.meta.timeTilDormantAutodeleteMs,
    require_active_version: effectiveRequireActiveVersion(t.meta, d.licence),
    max_port_share_level: 'owner',
    cors_behavior: 'simple',
    use_classic_parameter_flow: t.meta.useClassicParameterFlow,
    agents_allowed: true,
    allow_workspace_renames: false,
    disable_module_cache: false,
    module_cache_disabled_by_deployment: false,
    time_til_autostop_notify_ms: 0,
    deleted: false,
  };
}

/** uuid.Nil as Go prints it. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export function templateVersionJson(d: SimDeployment, v: TemplateVersionRecord): Json {
  const template = v.templateId ? d.template(v.templateId) : undefined;
  return {
    id: v.id,
    // coderd/templateversions.go convertTemplateVersion: `TemplateID: &version.TemplateID.UUID`, a pointer to the
    // NullUUID's zero value when the version has no template, so `omitempty` never omits it: the nil UUID is sent.
    template_id: v.templateId ?? NIL_UUID,
    organization_id: v.organizationId,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
    name: v.name,
    message: v.message,
    job: jobJson(
      d,
      v.job,
      { template_version_id: v.id },
      { template_version_name: v.name, template_id: v.templateId ?? '', template_name: template?.name ?? '', template_display_name: template?.meta.displayName ?? '', template_icon: '' },
    ),
    readme: '',
    created_by: minimalUser(d.userById(v.createdById)),
    archived: v.archived,
    warnings: [],
    matched_provisioners: { count: 1, available: 1, most_recently_seen: v.updatedAt },
    has_external_agent: false,
  };
}
