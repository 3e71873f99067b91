import { createHash } from 'node:crypto';
import { ApiError, notFound } from './api-error';
import { stageLine, tfLine, type LogLine } from './build-log';
import { KubeCluster } from './kube-cluster';
import {
  ACTIVE_JOB_STATUSES,
  TERMINAL_JOB_STATUSES,
  type BuildRecord,
  type BuildResource,
  type FileRecord,
  type JobType,
  type Organization,
  type ProvisionerJob,
  type TemplateRecord,
  type TemplateVersionRecord,
  type User,
  type WorkspaceRecord,
  type BuildParameterValue,
  type AutobuildReason,
} from './model';
import type { SimRandom } from './random';
import { unpackTar } from './tar-archive';
import type { SimProvisioner } from './provisioner';
import { DEFAULT_JOB_TAGS, type ProvisionerDaemonPool } from './provisioner-daemons';
import { buildVariableValues, importVariables, missingVariablesMessage } from './template-variables';
import { parameterFlowOf, resolveBuildParameters, templateVersionParameters } from './template-parameters';
import { STAGE_OF, StructuralProvisioner } from './structural-provisioner';
import { parseTemplateConfig } from './template-config';
import { parseState } from './terraform-state';
import { nextAllowedAutostart } from './schedule-times';
import type { Licence } from './licence';
import { effectiveRequireActiveVersion, patchedTemplateMeta } from './template-meta';
import { authorize, type Action, type RbacObject, type RoleName } from './rbac';
import { sessionToken } from './session-token';
import type { FailBuildsFault } from './types';
import { loseFromState, takeLossyBuild, type LossyBuildFault } from './lossy-build';
import { stateStoredAtJobEnd, takeWrongStoredState, wrongStoredState, type WrongStoredStateFault } from './stored-state';
import type { Transition, WorkspaceContext } from './workspace-context';

export const MAX_FILE_BYTES = 100 * 1024 * 1024;

export interface CreateBuildRequest {
  transition: Transition;
  templateVersionId?: string;
  state?: Buffer;
  orphan?: boolean;
  reason?: string;
  logLevel?: 'debug';
  /** `rich_parameter_values`: given values win over the previous build's (wsbuilder RichParameterValues). */
  richParameterValues?: readonly BuildParameterValue[];
  /** wsbuilder TemplateVersionPresetID: the prebuilds reconciler's builds name the preset they build for. */
  presetVersionId?: string;
}

export interface CreateVersionRequest {
  templateId?: string;
  fileId: string;
  name?: string;
  message?: string;
  /** `user_variable_values`: the only values the import uses; every other variable gets its default. */
  userVariableValues?: readonly { name: string; value: string }[];
  /** `provisioner_tags`, on top of Coder's defaults (provisionersdk.MutateTags). */
  provisionerTags?: Readonly<Record<string, string>>;
}

const ADJECTIVES = ['eager', 'brave', 'calm', 'quirky', 'sharp', 'jolly', 'lucid', 'nifty', 'stoic', 'vivid'];
const SCIENTISTS = ['tesla', 'curie', 'hopper', 'turing', 'lovelace', 'noether', 'dirac', 'bohr', 'meitner', 'ramanujan'];

/**
 * The state of one simulated Coder deployment and the operations its API performs: builds run
 * asynchronously through pending → running → succeeded/failed against the fake cluster.
 */
export class SimDeployment {
  readonly users: User[] = [];
  readonly templates = new Map<string, TemplateRecord>();
  readonly versions = new Map<string, TemplateVersionRecord>();
  readonly files = new Map<string, FileRecord>();
  readonly workspaces = new Map<string, WorkspaceRecord>();
  readonly builds = new Map<string, BuildRecord>();
  /** The fake cluster of the structural provisioner (unused by the Terraform one). */
  readonly cluster: KubeCluster;
  provisioner: SimProvisioner;
  /** Set (`--provisioners N`): jobs wait in one queue for N daemons; unset, every job runs at once. */
  daemons: ProvisionerDaemonPool | undefined;
  failBuilds: FailBuildsFault | undefined;
  lossyBuild: LossyBuildFault | undefined;
  wrongStoredState: WrongStoredStateFault | undefined;
  /** Draws for failBuilds.rate (the simulator's fault stream, so seeded ids do not shift). */
  faultDraw: () => number = Math.random;
  buildFaultsInjected = 0;
  accessUrl = 'http://127.0.0.1';
  /** Which access-control store runs (see licence.ts); switchable at runtime, as a licence expires. */
  licence: Licence = 'premium';
  /** CODER_ALLOW_WORKSPACE_RENAMES: off by default, as in Coder. */
  allowWorkspaceRenames = false;
  private nextLogId = 1;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly buildWaiters = new Map<string, (() => void)[]>();
  /** Running workspace-build jobs by job id: a cancel interrupts their provisioner run. */
  private readonly interrupts = new Map<string, AbortController>();
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly org: Organization,
    readonly random: SimRandom,
    readonly buildLatencyMs: number,
  ) {
    this.cluster = new KubeCluster(() => random.uuid());
    this.provisioner = new StructuralProvisioner(this.cluster, () => this.newId());
  }

  now(): string {
    return new Date().toISOString();
  }

  newId(): string {
    return this.random.uuid();
  }

  randomVersionName(): string {
    return `${this.random.pick(ADJECTIVES)}_${this.random.pick(SCIENTISTS)}${this.random.int(10)}`;
  }

  // ── lookups ────────────────────────────────────────────────────────────

  userByToken(token: string | undefined): User | undefined {
    return token ? this.users.find((u) => u.token === token) : undefined;
  }

  /**
   * A new user holding one built-in role (member: none beyond member), for tests and SREs to act as that
   * role. `fullName` is what Coder stores as the user's name: '' when not given, as POST /users without
   * `name` leaves it (then the provider's owner_name/full_name read "default"). Coder validates it as
   * `user_real_name` (codersdk/name.go UserRealNameValid: at most 128 characters, no leading or
   * trailing whitespace).
   */
  mintUser(role: RoleName, username?: string, fullName = ''): User {
    const name = username ?? `${role}-${this.users.length + 1}`;
    if (fullName.length > 128 || fullName.trim() !== fullName) {
      throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'name', detail: 'Validation failed for tag "user_real_name": at most 128 characters, no leading or trailing whitespace.' }]);
    }
    if (!/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,30})$/.test(name)) {
      throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'username', detail: 'Validation failed for tag "username": 1-32 letters, digits or "-", not starting with "-".' }]);
    }
    if (this.users.some((u) => u.username.toLowerCase() === name.toLowerCase())) throw new ApiError(409, `User "${name}" already exists.`);
    const user: User = {
      id: this.newId(),
      username: name,
      name: fullName,
      email: `${name}@example.com`,
      roles: role === 'member' ? [] : [role],
      token: sessionToken(this.random),
      createdAt: this.now(),
    };
    this.users.push(user);
    return user;
  }

  userById(id: string): User | undefined {
    return this.users.find((u) => u.id === id);
  }

  /**
   * The user a session token signs in, as coderd/httpmw/apikey.go ExtractAPIKey admits it: a dormant
   * user is made active by the call; any other status but active is a 401 naming it.
   */
  signedInUser(token: string): User | undefined {
    const user = this.userByToken(token);
    if (!user) return undefined;
    if (user.status === 'dormant') user.status = 'active';
    const status = user.status ?? 'active';
    if (status !== 'active') throw new ApiError(401, `User is not active (status = "${status}"). Contact an admin to reactivate your account.`);
    return user;
  }

  /**
   * PUT /users/{user}/status/suspend and /activate (coderd/users.go putUserStatus): `delete` on users
   * (Owners here; else 404); nobody suspends themself or an Owner (400). Builds of the user's workspaces
   * are not refused: coderd/wsbuilder/wsbuilder.go buildTx never reads the owner's status.
   */
  setUserStatus(actor: User, target: User, status: 'active' | 'suspended'): User {
    if (!this.can(actor, 'delete', { type: 'user' })) throw notFound();
    if (status === 'suspended' && target.id === actor.id) throw new ApiError(400, 'You cannot suspend yourself.');
    if (status === 'suspended' && target.roles.includes('owner')) throw new ApiError(400, 'You cannot suspend a user with the "owner" role. You must remove the role first.');
    target.status = status;
    return target;
  }

  /** `{user}` path segments take a username, a user id or `me`. */
  resolveUser(ref: string, actor: User): User | undefined {
    if (ref === 'me') return actor;
    const lower = ref.toLowerCase();
    return this.users.find((u) => u.id === ref || u.username.toLowerCase() === lower);
  }

  /** coderd/rbac Authorize for this user over the built-in roles (rbac.ts). */
  can(actor: User, action: Action, object: RbacObject): boolean {
    return authorize({ id: actor.id, roles: actor.roles, orgIds: [this.org.id] }, action, object);
  }

  /** coderd/database/modelmethods.go Workspace.RBACObject: a dormant workspace is a workspace_dormant. */
  workspaceObject(ws: WorkspaceRecord): RbacObject {
    return { type: ws.dormantAt !== undefined ? 'workspace_dormant' : 'workspace', id: ws.id, ownerId: ws.ownerId, orgId: ws.organizationId };
  }

  /** A template, or (no template) templates of the organization in general, as for a version with no template. */
  templateObject(template?: TemplateRecord): RbacObject {
    return template ? { type: 'template', id: template.id, orgId: template.organizationId } : { type: 'template', orgId: this.org.id };
  }

  canReadWorkspace(actor: User, ws: WorkspaceRecord): boolean {
    return this.can(actor, 'read', this.workspaceObject(ws));
  }

  canUpdateTemplate(actor: User, template?: TemplateRecord): boolean {
    return this.can(actor, 'update', this.templateObject(template));
  }

  /** httpmw.TemplateParam: a template the caller cannot read does not exist for it. */
  readableTemplate(actor: User, id: string): TemplateRecord {
    const template = this.templates.get(id);
    if (!template || !this.can(actor, 'read', this.templateObject(template))) throw notFound();
    return template;
  }

  /** Versions are authorized as their template (dbauthz GetTemplateVersionByID). */
  readableVersion(actor: User, id: string): TemplateVersionRecord {
    const version = this.versions.get(id);
    const template = version?.templateId ? this.templates.get(version.templateId) : undefined;
    if (!version || !this.can(actor, 'read', this.templateObject(template))) throw notFound();
    return version;
  }

  /**
   * dbauthz GetFileByID: the uploader (or a role reading every file), or anyone who may update a
   * template whose version was built from the file.
   */
  canReadFile(actor: User, file: FileRecord): boolean {
    if (this.can(actor, 'read', { type: 'file', id: file.id, ownerId: file.createdById })) return true;
    return [...this.versions.values()].some((v) => v.job.fileId === file.id && this.canUpdateTemplate(actor, v.templateId ? this.templates.get(v.templateId) : undefined));
  }

  readableWorkspace(actor: User, id: string): WorkspaceRecord {
    const ws = this.workspaces.get(id);
    if (!ws || !this.canReadWorkspace(actor, ws)) throw notFound();
    return ws;
  }

  readableBuild(actor: User, id: string): BuildRecord {
    const build = this.builds.get(id);
    if (!build) throw notFound();
    const ws = this.workspaces.get(build.workspaceId);
    if (!ws || !this.canReadWorkspace(actor, ws)) throw notFound();
    return build;
  }

  template(id: string): TemplateRecord | undefined {
    return this.templates.get(id);
  }

  latestBuild(ws: WorkspaceRecord): BuildRecord {
    const id = ws.buildIds[ws.buildIds.length - 1];
    const build = id ? this.builds.get(id) : undefined;
    if (!build) throw new Error(`simulator invariant: workspace ${ws.name} has no build`);
    return build;
  }

  /** The build before `build` in its workspace (none for the first). */
  buildBefore(ws: WorkspaceRecord, build: BuildRecord): BuildRecord | undefined {
    const at = ws.buildIds.indexOf(build.id);
    return at > 0 ? this.builds.get(ws.buildIds[at - 1]) : undefined;
  }

  // ── jobs ───────────────────────────────────────────────────────────────

  private newJob(type: JobType, fileId: string, initiatorId: string, tags?: Readonly<Record<string, string>>): ProvisionerJob {
    return { id: this.newId(), type, status: 'pending', fileId, createdAt: this.now(), initiatorId, logs: [], ...(tags ? { tags } : {}) };
  }

  private log(job: ProvisionerJob, lines: readonly LogLine[]): void {
    for (const line of lines) job.logs.push({ ...line, id: this.nextLogId++, createdAt: this.now() });
  }

  private later(ms: number, fn: () => void | Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      const run = Promise.resolve()
        .then(fn)
        .catch(() => undefined);
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
    }, ms);
    this.timers.add(timer);
  }

  private startJob(job: ProvisionerJob): void {
    job.status = 'running';
    job.startedAt = this.now();
    job.workerId = this.org.id;
  }

  private finishJob(job: ProvisionerJob, error?: string): void {
    // The status Coder reports (coderd/provisionerjobs.go convertProvisionerJob) is the generated column
    // provisioner_jobs.job_status (coderd/database/migrations, the migration that adds it: "Check the error first,
    // then cancelled"): a canceled job its provisioner failed (an interrupted apply: FailJob with its error) is
    // `failed`; only one that ended without an error (canceled while pending, or CompleteJob after the cancel) is `canceled`.
    job.status = error !== undefined ? 'failed' : job.canceledAt !== undefined ? 'canceled' : 'succeeded';
    if (error !== undefined) job.error = error;
    job.completedAt = this.now();
    this.daemons?.release(job);
  }

  /** `run` starts the job: after one phase with unlimited daemons, or when a daemon takes it from the queue. */
  private queueJob(job: ProvisionerJob, run: () => void): void {
    if (this.daemons) this.daemons.enqueue(job, run, job.tags);
    else this.later(this.buildLatencyMs, run);
  }

  // ── files and template versions ───────────────────────────────────────

  uploadFile(actor: User, bytes: Buffer, mimetype: string): { file: FileRecord; created: boolean } {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const existing = [...this.files.values()].find((f) => f.sha256 === sha256 && f.createdById === actor.id);
    if (existing) return { file: existing, created: false };
    const file: FileRecord = { id: this.newId(), sha256, mimetype, bytes, createdById: actor.id, createdAt: this.now() };
    this.files.set(file.id, file);
    return { file, created: true };
  }

  createTemplateVersion(actor: User, req: CreateVersionRequest): TemplateVersionRecord {
    const target = req.templateId !== undefined ? this.templates.get(req.templateId) : undefined;
    if (!this.canUpdateTemplate(actor, target)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may create template versions.');
    const file = this.files.get(req.fileId);
    if (!file) throw new ApiError(404, 'File not found.', `No file with id ${req.fileId}; upload the archive with POST /api/v2/files first.`);
    if (req.templateId !== undefined) {
      const template = this.templates.get(req.templateId);
      if (!template) throw new ApiError(404, 'Template does not exist.', `No template with id ${req.templateId}.`);
      const clash = [...this.versions.values()].some((v) => v.templateId === req.templateId && v.name === req.name);
      if (req.name && clash) {
        throw new ApiError(409, `A template version with name "${req.name}" already exists for this template.`, undefined, [
          { field: 'name', detail: 'This value is already in use and should be unique.' },
        ]);
      }
    }
    const version: TemplateVersionRecord = {
      id: this.newId(),
      ...(req.templateId !== undefined ? { templateId: req.templateId } : {}),
      organizationId: this.org.id,
      name: req.name || this.randomVersionName(),
      message: req.message ?? '',
      job: this.newJob('template_version_import', file.id, actor.id, req.provisionerTags ? { ...DEFAULT_JOB_TAGS, ...req.provisionerTags } : undefined),
      createdById: actor.id,
      createdAt: this.now(),
      updatedAt: this.now(),
      archived: false,
    };
    this.versions.set(version.id, version);
    this.queueJob(version.job, () => {
      this.startJob(version.job);
      this.log(version.job, [stageLine('Setting up'), stageLine('Parsing template parameters')]);
      this.later(this.buildLatencyMs, () => this.importVersion(version, file, req.userVariableValues ?? []));
    });
    return version;
  }

  private async importVersion(version: TemplateVersionRecord, file: FileRecord, given: readonly { name: string; value: string }[]): Promise<void> {
    try {
      const files = await unpackTar(file.bytes);
      const config = await parseTemplateConfig(files);
      const { variables, missing } = importVariables(config, given);
      // Stored even when the import fails, as coderd does (the UI shows the schema).
      version.variables = variables;
      if (missing.length > 0) throw new Error(missingVariablesMessage(missing));
      version.parameters = templateVersionParameters(config);
      version.config = config;
      this.log(version.job, [stageLine('Detecting persistent resources'), tfLine('Detecting persistent resources', 'Terraform 1.11.4')]);
      this.finishJob(version.job);
    } catch (err) {
      const message = (err as Error).message;
      this.log(version.job, [tfLine('Parsing template parameters', `Error: ${message}`, 'error')]);
      this.finishJob(version.job, message);
    }
    version.updatedAt = this.now();
  }

  promoteVersion(actor: User, template: TemplateRecord, versionId: string): void {
    if (!this.canUpdateTemplate(actor, template)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may change the active version.');
    const version = this.versions.get(versionId);
    if (!version) throw new ApiError(404, 'Template version not found.', `No template version with id ${versionId}.`);
    if (version.templateId !== template.id) {
      throw new ApiError(400, 'The provided template version doesn\'t belong to the specified template.', `Version ${version.name} is not a version of template ${template.name}.`);
    }
    // coderd/templateversions.go patchActiveTemplateVersion: the job's status is checked before `archived`, so an
    // archived version whose import failed answers 403, not 400.
    if (version.job.status !== 'succeeded') {
      throw new ApiError(403, 'Only versions that have been built successfully can be promoted.', `Attempted to promote a version with a ${version.job.status} build`);
    }
    if (version.archived) throw new ApiError(400, 'The provided template version is archived.');
    template.activeVersionId = version.id;
    template.updatedAt = this.now();
  }

  /**
   * Archives a version as coderd's ArchiveUnusedTemplateVersions does: never the active version,
   * never one a workspace's latest build uses, unless that build is a delete (even a failed one).
   * Returns the ids archived (empty when refused).
   */
  archiveUnusedVersions(actor: User, template: TemplateRecord, onlyVersionId?: string, onlyJobStatus?: 'failed'): string[] {
    if (!this.canUpdateTemplate(actor, template)) throw new ApiError(403, 'Forbidden.');
    const inUse = new Set(
      [...this.workspaces.values()]
        .filter((ws) => !ws.deleted && ws.templateId === template.id)
        .map((ws) => this.latestBuild(ws))
        .filter((b) => b.transition !== 'delete')
        .map((b) => b.templateVersionId),
    );
    const archived: string[] = [];
    for (const v of this.versions.values()) {
      if (v.templateId !== template.id || v.archived || v.id === template.activeVersionId || inUse.has(v.id)) continue;
      if (onlyVersionId !== undefined && v.id !== onlyVersionId) continue;
      if (v.job.status === 'pending' || v.job.status === 'running') continue;
      if (onlyJobStatus !== undefined && v.job.status !== onlyJobStatus) continue;
      v.archived = true;
      v.updatedAt = this.now();
      archived.push(v.id);
    }
    return archived;
  }

  /** POST /templateversions/{id}/unarchive (coderd/templateversions.go setArchiveTemplateVersion(false)). */
  unarchiveVersion(actor: User, version: TemplateVersionRecord): void {
    if (!this.canUpdateTemplate(actor, version.templateId ? this.templates.get(version.templateId) : undefined)) throw new ApiError(403, 'Forbidden.');
    if (!version.archived) throw new ApiError(400, 'Template version already unarchived');
    if (!version.templateId) throw new ApiError(400, 'Cannot archive template versions not associate with a template.');
    version.archived = false;
    version.updatedAt = this.now();
  }

  /**
   * PATCH /templates/{id} (coderd/templates.go patchTemplateMeta): omitted fields are reset, nothing
   * changed is 304 (false here), and without Premium require_active_version is accepted, ignored and
   * read back false (coderd/database/dbauthz/accesscontrol.go AGPLTemplateAccessControlStore).
   */
  updateTemplateMeta(actor: User, template: TemplateRecord, body: Record<string, unknown>): boolean {
    if (!this.canUpdateTemplate(actor, template)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may edit a template.');
    const { next, name, changed } = patchedTemplateMeta(template.meta, template.name, body, this.licence);
    if (!changed) return false;
    template.meta = next;
    template.name = name;
    template.updatedAt = this.now();
    return true;
  }

  /** Whether the template holds members to its active version right now (Premium and the setting on). */
  requiresActiveVersion(template: TemplateRecord): boolean {
    return effectiveRequireActiveVersion(template.meta, this.licence);
  }

  // ── workspace builds ──────────────────────────────────────────────────

  /**
   * wsbuilder.go authorize: the transition's action on the workspace (403 "You do not have permission
   * to stop this workspace." when the caller can read it, 404 when it cannot), then custom state
   * (update on the template), then a custom log level (read on the deployment config).
   */
  private authorizeBuild(actor: User, ws: WorkspaceRecord, req: CreateBuildRequest, customState: boolean): void {
    const action: Action = req.transition === 'delete' ? 'delete' : req.transition;
    const object = this.workspaceObject(ws);
    if (!this.can(actor, action, object)) {
      if (this.can(actor, 'read', object)) throw new ApiError(403, `You do not have permission to ${action} this workspace.`, 'Insufficient permissions to perform this action.');
      throw notFound();
    }
    if ((customState || req.orphan) && !this.canUpdateTemplate(actor, this.template(ws.templateId))) throw new ApiError(403, 'Only template managers may provide custom state');
    if (req.logLevel !== undefined && !this.can(actor, 'read', { type: 'deployment_config' })) {
      throw new ApiError(400, 'Workspace builds with a custom log level are restricted to administrators only.');
    }
  }

  /**
   * POST /workspaces/{id}/builds in coderd's order (coderd/workspacebuilds.go postWorkspaceBuildsInternal,
   * then coderd/wsbuilder/wsbuilder.go buildTx): orphan rules, authorize (workspace action, custom
   * state), the version's template, its import job, a running build, the parameters, then (Premium) the
   * active-version hold of InsertWorkspaceBuild.
   */
  createBuild(actor: User, ws: WorkspaceRecord, req: CreateBuildRequest, system = false): BuildRecord {
    // postWorkspaceBuildsInternal passes the state on only when it has bytes: an empty one inherits.
    const customState = req.state !== undefined && req.state.length > 0 ? req.state : undefined;
    if (req.orphan && req.transition !== 'delete') throw new ApiError(400, 'Orphan is only permitted when deleting a workspace.');
    if (req.orphan && customState) throw new ApiError(400, 'ProvisionerState cannot be set alongside Orphan since state intent is unclear.');
    // The lifecycle executor builds with no authFunc (coderd/autobuild/lifecycle_executor.go).
    if (!system) this.authorizeBuild(actor, ws, req, customState !== undefined);
    // A workspace's first build (createWorkspace) has no previous one: no state, number 1.
    const previous = ws.buildIds.length > 0 ? this.latestBuild(ws) : undefined;
    const versionId = req.templateVersionId ?? previous?.templateVersionId ?? '';
    const version = this.versions.get(versionId);
    if (!version) throw new ApiError(400, 'template version does not exist', `No template version with id ${versionId}.`);
    if (version.templateId !== ws.templateId) throw new ApiError(400, 'template version doesn\'t match template');
    // No archived check: coderd/wsbuilder/wsbuilder.go builds archived versions; only workspace creation
    // (coderd/workspaces.go) and promote (coderd/templateversions.go) refuse them.
    if (version.job.status === 'pending' || version.job.status === 'running') {
      throw new ApiError(406, `The provided template version is ${version.job.status}. Wait for it to complete importing!`);
    }
    if (version.job.status !== 'succeeded') {
      throw new ApiError(400, `The provided template version "${version.name}" has failed to import: "${version.job.error ?? version.job.status}". You cannot build workspaces with it!`);
    }
    if (previous && ACTIVE_JOB_STATUSES.has(previous.job.status)) {
      throw new ApiError(409, 'A workspace build is already active.', `Build #${previous.buildNumber} (${previous.transition}) is ${previous.job.status}; wait for it to finish.`);
    }
    const template = this.template(ws.templateId);
    // wsbuilder getParameters, after checkRunningBuild and before the job is inserted: a bad value is a 400 and
    // nothing is built; the template's use_classic_parameter_flow picks the path (usingDynamicParameters).
    const parameters = resolveBuildParameters(version.parameters ?? [], req.richParameterValues ?? [], previous?.parameters ?? [], parameterFlowOf(template));
    // Premium only (enterprise/coderd/dbauthz/accesscontrol.go; coderd/database/dbauthz/dbauthz.go
    // InsertWorkspaceBuild): a start on a non-active version needs update on the template, so members are
    // held and template admins and owners are not; stops and deletes are never held. The check is dbauthz's,
    // at the insert (wsbuilder.go buildTx: after checkTemplateJobStatus, checkRunningBuild and getParameters),
    // so a 406, a 409 or a parameter's 400 comes first. The exact body is inferred (a 403 naming the
    // non-active version); clients should key on the status.
    if (!system && template && this.requiresActiveVersion(template) && req.transition === 'start' && version.id !== template.activeVersionId && !this.canUpdateTemplate(actor, template)) {
      throw new ApiError(403, 'cannot use non-active version', `Template ${template.name} requires its active version; start or update the workspace with it.`);
    }
    // wsbuilder.getState: orphan → empty, explicit → exactly those bytes, else the previous build's state.
    const state = req.orphan ? Buffer.alloc(0) : customState ? Buffer.from(customState) : Buffer.from(previous?.state ?? Buffer.alloc(0));
    const build: BuildRecord = {
      id: this.newId(),
      workspaceId: ws.id,
      buildNumber: (previous?.buildNumber ?? 0) + 1,
      templateVersionId: version.id,
      transition: req.transition,
      initiatorId: actor.id,
      reason: req.reason ?? 'initiator',
      state,
      parameters,
      job: this.newJob('workspace_build', version.job.fileId, actor.id, version.job.tags),
      resources: [],
      ...(req.presetVersionId !== undefined ? { presetVersionId: req.presetVersionId } : {}),
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.builds.set(build.id, build);
    ws.buildIds.push(build.id);
    ws.updatedAt = this.now();
    this.queueJob(build.job, () => this.runBuild(build, ws, version, Boolean(req.orphan)));
    return build;
  }

  /**
   * POST /users/{user}/workspaces (coderd/workspaces.go createWorkspace): a new workspace and its first
   * start, on the given version or the template's active one. Creation, unlike a build, refuses an
   * archived version. Members create only their own; Owners and Organization Admins anyone's.
   */
  createWorkspace(actor: User, owner: User, req: { name: string; templateId?: string; templateVersionId?: string; richParameterValues?: readonly BuildParameterValue[] }): { ws: WorkspaceRecord; build: BuildRecord } {
    if (!this.can(actor, 'create', { type: 'workspace', ownerId: owner.id, orgId: this.org.id })) {
      throw new ApiError(403, 'Forbidden.', `Creating a workspace for ${owner.username} needs \`create\` on their workspaces: theirs, an Organization Admin's or an Owner's.`);
    }
    const version = req.templateVersionId !== undefined ? this.versions.get(req.templateVersionId) : undefined;
    if (req.templateVersionId !== undefined && !version) throw new ApiError(400, 'Template version not found.', undefined, [{ field: 'template_version_id', detail: 'template not found' }]);
    const template = this.templates.get(req.templateId ?? version?.templateId ?? '');
    if (!template || !this.can(actor, 'read', this.templateObject(template))) {
      throw new ApiError(400, `Template "${req.templateId ?? ''}" doesn't exist.`, undefined, [{ field: 'template_id', detail: 'template not found' }]);
    }
    const chosen = version ?? this.versions.get(template.activeVersionId);
    if (!chosen) throw new Error(`simulator invariant: template ${template.name} has no active version`);
    if (chosen.archived) throw new ApiError(400, 'Archived template versions cannot be used to make a workspace.');
    if (!/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,30})$/.test(req.name)) {
      throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'name', detail: 'Validation failed for tag "workspace_name": 1-32 letters, digits or "-", not starting with "-".' }]);
    }
    const taken = [...this.workspaces.values()].some((w) => !w.deleted && w.ownerId === owner.id && w.name.toLowerCase() === req.name.toLowerCase());
    if (taken) throw new ApiError(409, `Workspace "${req.name}" already exists.`, undefined, [{ field: 'name', detail: 'This value is already in use and should be unique.' }]);
    const now = this.now();
    const ws: WorkspaceRecord = { id: this.newId(), name: req.name, ownerId: owner.id, organizationId: this.org.id, templateId: template.id, createdAt: now, updatedAt: now, lastUsedAt: now, deleted: false, buildIds: [] };
    this.workspaces.set(ws.id, ws);
    try {
      return { ws, build: this.createBuild(actor, ws, { transition: 'start', templateVersionId: chosen.id, ...(req.richParameterValues ? { richParameterValues: req.richParameterValues } : {}) }, true) };
    } catch (err) {
      this.workspaces.delete(ws.id);
      throw err;
    }
  }

  /**
   * A build the lifecycle executor starts (coderd/autobuild/lifecycle_executor.go): as the owner, with
   * no authorization, on the previous build's version, or on the active one for a start when the
   * template requires it (Premium) or the workspace updates automatically (useActiveVersion).
   */
  autobuild(ws: WorkspaceRecord, transition: Transition, reason: AutobuildReason): BuildRecord {
    const template = this.template(ws.templateId);
    const owner = this.userById(ws.ownerId);
    if (!template || !owner) throw new Error(`simulator invariant: workspace ${ws.name} has no template or owner`);
    const active = transition === 'start' && (this.requiresActiveVersion(template) || ws.automaticUpdates === 'always');
    return this.createBuild(owner, ws, { transition, reason, ...(active ? { templateVersionId: template.activeVersionId } : {}) }, true);
  }

  /** Seeds a build that already happened (no waiting), for the deployment's initial history. */
  async seedBuild(ws: WorkspaceRecord, versionId: string, transition: Transition, initiator: User, pvcData: string, richParameterValues: readonly BuildParameterValue[] = []): Promise<BuildRecord> {
    const previousId = ws.buildIds[ws.buildIds.length - 1];
    const previous = previousId ? this.builds.get(previousId) : undefined;
    const version = this.versions.get(versionId);
    if (!version?.config) throw new Error(`simulator seed: version ${versionId} is not imported`);
    const build: BuildRecord = {
      id: this.newId(),
      workspaceId: ws.id,
      buildNumber: (previous?.buildNumber ?? 0) + 1,
      templateVersionId: versionId,
      transition,
      initiatorId: initiator.id,
      reason: 'initiator',
      state: previous ? Buffer.from(previous.state) : Buffer.alloc(0),
      parameters: resolveBuildParameters(version.parameters ?? [], richParameterValues, previous?.parameters ?? [], parameterFlowOf(this.template(ws.templateId))),
      job: this.newJob('workspace_build', version.job.fileId, initiator.id),
      resources: [],
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.builds.set(build.id, build);
    ws.buildIds.push(build.id);
    this.startJob(build.job);
    await this.executeBuild(build, ws, version, false, pvcData);
    if (build.job.status !== 'succeeded') throw new Error(`simulator seed: build of ${ws.name} failed: ${build.job.error ?? ''}`);
    return build;
  }

  private workspaceContext(ws: WorkspaceRecord, version: TemplateVersionRecord, build: BuildRecord): WorkspaceContext {
    const owner = this.userById(ws.ownerId);
    const template = this.templates.get(ws.templateId);
    return {
      workspaceId: ws.id,
      workspaceName: ws.name,
      ownerId: ws.ownerId,
      ownerUsername: owner?.username ?? 'unknown',
      ownerFullName: owner?.name ?? '',
      ownerEmail: owner?.email ?? '',
      templateId: ws.templateId,
      templateName: template?.name ?? '',
      templateVersionName: version.name,
      accessUrl: this.accessUrl,
      transition: build.transition,
      parameters: Object.fromEntries(build.parameters.map((p) => [p.name, p.value])),
    };
  }

  private takeBuildFault(build: BuildRecord): FailBuildsFault | undefined {
    const fault = this.failBuilds;
    if (!fault) return undefined;
    if (fault.workspaceId !== undefined && fault.workspaceId !== build.workspaceId) return undefined;
    if (fault.templateVersionId !== undefined && fault.templateVersionId !== build.templateVersionId) return undefined;
    if (fault.transition !== undefined && fault.transition !== build.transition) return undefined;
    if (fault.rate !== undefined && this.faultDraw() >= fault.rate) return undefined;
    if (fault.times !== undefined) {
      if (fault.times <= 0) return undefined;
      fault.times -= 1;
    }
    this.buildFaultsInjected++;
    return fault;
  }

  /**
   * PATCH /workspacebuilds/{id}/cancel, as coderd/workspacebuilds.go patchCancelWorkspaceBuild: the
   * template must allow users to cancel jobs, else only an Owner may (403); a completed or already
   * canceled job is a 400. A pending job (no worker) gets canceled_at and completed_at at once and
   * never runs, so the build keeps the state it was created with (wsbuilder's, the `state` sent). A
   * running one only gets canceled_at: provisionerd/runner learns of it on its next UpdateJob and
   * cancels the provisioner, which interrupts Terraform (provisioner/terraform/executor_unix.go
   * interruptCommandOnCancel, SIGINT); whatever the apply had done stays. Its end is stored as for any
   * job (provisionerdserver CompleteJob/FailJob write the state it returns): an apply that finished
   * anyway completes `canceled` with its full state; an interrupted one fails (`failed`, see finishJob)
   * with the partial state Terraform wrote (provisioner/terraform/provision.go Apply). The structural
   * provisioner always runs to its end (an apply that finished before provisionerd learned of the cancel);
   * the Terraform one is interrupted (ProvisionRequest.interrupted).
   */
  cancelBuild(actor: User, build: BuildRecord, expectStatus?: 'pending' | 'running'): void {
    const ws = this.workspaces.get(build.workspaceId);
    if (!ws || !this.canReadWorkspace(actor, ws)) throw notFound();
    const template = this.templates.get(ws.templateId);
    // verifyUserCanCancelWorkspaceBuilds: `?expect_status=pending` is allowed whatever the template says
    // (canceling a job no provisioner took is "non-destructive to Terraform resources").
    if (expectStatus !== 'pending' && !template?.meta.allowUserCancelWorkspaceJobs && !actor.roles.includes('owner')) {
      throw new ApiError(403, 'User is not allowed to cancel workspace builds. Owner role is required.');
    }
    const job = build.job;
    if (job.completedAt !== undefined) throw new ApiError(400, 'Job has already completed!');
    if (job.canceledAt !== undefined) throw new ApiError(400, 'Job has already been marked as canceled!');
    // After the completed and canceled checks: a job in another status than expected is a 412, nothing canceled.
    if (expectStatus !== undefined && job.status !== expectStatus) throw new ApiError(412, 'Job is not in the expected state.');
    job.canceledAt = this.now();
    if (job.status === 'pending') {
      this.daemons?.dequeue(job);
      // patchCancelWorkspaceBuild writes completed_at itself (UpdateProvisionerJobWithCancelByID, no worker):
      // no CompleteJob runs, so nothing of CompleteJob's follows (deleted, deadline, next_start_at).
      this.completeBuild(build, ws, undefined, false);
      return;
    }
    job.status = 'canceling';
    this.interrupts.get(job.id)?.abort();
  }

  private runBuild(build: BuildRecord, ws: WorkspaceRecord, version: TemplateVersionRecord, orphan: boolean): void {
    // Canceled while it waited: no provisioner ever takes it.
    if (build.job.canceledAt !== undefined) return;
    this.startJob(build.job);
    build.updatedAt = this.now();
    this.log(build.job, [stageLine('Setting up'), tfLine('Setting up', 'Terraform 1.11.4')]);
    const fault = this.takeBuildFault(build);
    // The provisioner daemon acquires the job with the build's state as it is now (provisionerdserver AcquireJob).
    const acquired = Buffer.from(build.state);
    this.later(this.buildLatencyMs, () => {
      if (fault) {
        const message = fault.message ?? 'simulated provisioner failure (failBuilds fault)';
        this.log(build.job, [stageLine('Planning infrastructure'), tfLine('Planning infrastructure', `Error: ${message}`, 'error')]);
        this.completeBuild(build, ws, message);
        return;
      }
      return this.executeBuild(build, ws, version, orphan, '', acquired);
    });
  }

  /** Runs the build on the provisioner, then completes the job with the state it wrote. */
  private async executeBuild(build: BuildRecord, ws: WorkspaceRecord, version: TemplateVersionRecord, orphan: boolean, pvcData: string, acquired: Buffer = build.state): Promise<void> {
    const config = version.config;
    if (!config) {
      this.completeBuild(build, ws, `template version ${version.name} has no parsed configuration`);
      return;
    }
    if (orphan) {
      this.log(build.job, [stageLine(STAGE_OF.delete), tfLine(STAGE_OF.delete, 'Orphaning workspace: no resources are destroyed.')]);
      this.completeBuild(build, ws);
      return;
    }
    const ctx = this.workspaceContext(ws, version, build);
    const file = this.files.get(version.job.fileId);
    try {
      const interrupt = new AbortController();
      if (build.job.canceledAt !== undefined) interrupt.abort();
      this.interrupts.set(build.job.id, interrupt);
      const result = await this.provisioner
        .provision({
          buildId: build.id,
          state: acquired,
          ctx,
          config,
          files: async () => (file ? unpackTar(file.bytes) : []),
          variables: buildVariableValues(version.variables ?? []),
          newPvcData: pvcData,
          interrupted: interrupt.signal,
        })
        .finally(() => this.interrupts.delete(build.job.id));
      this.log(build.job, result.logs);
      build.state = stateStoredAtJobEnd(build.state, result);
      if (!result.error && takeLossyBuild(this.lossyBuild, { workspaceId: build.workspaceId, transition: build.transition, state: build.state })) build.state = loseFromState(this.lossyBuild, build.state, this.cluster, { workspace: ws.id, buildId: build.id });
      if (!result.error && takeWrongStoredState(this.wrongStoredState, build)) build.state = wrongStoredState(this.wrongStoredState, build.state, this.buildBefore(ws, build)?.state);
      build.resources = this.resourcesOf(build);
      this.completeBuild(build, ws, result.error);
    } catch (err) {
      // PlanError and state-load errors carry messages written for the operator; anything else is a simulator bug, shown as is.
      const message = err instanceof Error ? err.message : String(err);
      this.log(build.job, [tfLine('Planning infrastructure', `Error: ${message}`, 'error')]);
      this.completeBuild(build, ws, message);
    }
  }

  /**
   * The job's end. `byProvisioner` false is a pending job's cancel, which coderd completes itself. Otherwise
   * the provisioner ended it: without an error that is coderd/provisionerdserver/provisionerdserver.go
   * CompleteJob, whose effects do not look at canceled_at: a job canceled while running that completes
   * (status `canceled`) still marks a delete's workspace deleted, sets a start's deadline and next_start_at,
   * exactly as a `succeeded` one. FailJob (an error) does none of these.
   */
  private completeBuild(build: BuildRecord, ws: WorkspaceRecord, error?: string, byProvisioner = true): void {
    this.log(build.job, [stageLine('Cleaning Up')]);
    this.finishJob(build.job, error);
    build.updatedAt = this.now();
    ws.updatedAt = this.now();
    const completeJob = byProvisioner && error === undefined;
    // CompleteJob: UpdateWorkspaceDeletedByID for any delete build it completes, canceled or not.
    if (completeJob && build.transition === 'delete') ws.deleted = true;
    // provisionerdserver CompleteJob: a start's deadline is now + the workspace's TTL (none without one).
    if (completeJob && build.transition === 'start' && ws.ttlMs) build.deadline = new Date(Date.now() + ws.ttlMs).toISOString();
    // provisionerdserver CompleteJob, any transition: next_start_at from now when the workspace has a schedule.
    if (completeJob && ws.autostartSchedule) {
      const next = nextAllowedAutostart(ws.autostartSchedule, new Date());
      if (next) ws.nextStartAt = next;
    }
    for (const wake of this.buildWaiters.get(build.id) ?? []) wake();
    this.buildWaiters.delete(build.id);
  }

  private resourcesOf(build: BuildRecord): BuildResource[] {
    if (build.state.length === 0) return [];
    const state = parseState(build.state, '');
    const createdAt = this.now();
    const hasAgent = state.resources.some((r) => r.mode === 'managed' && r.type === 'coder_agent');
    const resources: BuildResource[] = [];
    for (const r of state.resources) {
      if (r.mode !== 'managed' || r.type.startsWith('coder_')) continue;
      for (const instance of r.instances) {
        const withAgent = hasAgent && build.transition === 'start' && (instance.dependencies ?? []).some((d) => d.startsWith('coder_agent.'));
        resources.push({
          id: this.newId(),
          type: r.type,
          name: r.name,
          hasAgent: withAgent,
          ...(withAgent ? { agentId: this.newId() } : {}),
          createdAt,
        });
      }
    }
    return resources;
  }

  /** Resolves when the build's job reaches a terminal status. */
  waitForBuild(buildId: string): Promise<BuildRecord> {
    const build = this.builds.get(buildId);
    if (!build) return Promise.reject(new Error(`No build ${buildId}`));
    if (TERMINAL_JOB_STATUSES.has(build.job.status)) return Promise.resolve(build);
    return new Promise((resolve) => {
      const list = this.buildWaiters.get(buildId) ?? [];
      list.push(() => resolve(build));
      this.buildWaiters.set(buildId, list);
    });
  }

  // ── state ─────────────────────────────────────────────────────────────

  readState(actor: User, build: BuildRecord): Buffer {
    // dbauthz GetWorkspaceBuildProvisionerStateByID: update on the template, else 404 rather than 403.
    if (!this.canUpdateTemplate(actor, this.templateOfBuild(build))) throw notFound();
    return build.state;
  }

  private templateOfBuild(build: BuildRecord): TemplateRecord | undefined {
    const ws = this.workspaces.get(build.workspaceId);
    return ws ? this.template(ws.templateId) : undefined;
  }

  /** The 404 of PUT …/state without update on the template (coderd/workspacebuilds.go workspaceBuildUpdateState). */
  authorizeStateWrite(actor: User, build: BuildRecord): void {
    if (!this.canUpdateTemplate(actor, this.templateOfBuild(build))) throw notFound();
  }

  /**
   * PUT /workspacebuilds/{id}/state as coderd/workspacebuilds.go workspaceBuildUpdateState does it:
   * onto any build, latest or not, with no check for a running job. A job that already took its state
   * writes its own over this when it ends (executeBuild), so a PUT onto a running build is lost.
   */
  putState(actor: User, build: BuildRecord, state: Buffer): void {
    this.authorizeStateWrite(actor, build);
    build.state = Buffer.from(state);
    build.updatedAt = this.now();
  }

  /** Stops scheduling; resolves once builds already running on the provisioner have ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.daemons?.close();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }
}
