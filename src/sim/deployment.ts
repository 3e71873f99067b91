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
} from './model';
import type { SimRandom } from './random';
import { unpackTar } from './tar-archive';
import type { SimProvisioner } from './provisioner';
import { STAGE_OF, StructuralProvisioner } from './structural-provisioner';
import { parseTemplateConfig } from './template-config';
import { parseState } from './terraform-state';
import type { FailBuildsFault } from './types';
import { loseFromState, takeLossyBuild, type LossyBuildFault } from './lossy-build';
import type { Transition, WorkspaceContext } from './workspace-context';

export const MAX_FILE_BYTES = 100 * 1024 * 1024;

export interface CreateBuildRequest {
  transition: Transition;
  templateVersionId?: string;
  state?: Buffer;
  orphan?: boolean;
  reason?: string;
}

export interface CreateVersionRequest {
  templateId?: string;
  fileId: string;
  name?: string;
  message?: string;
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
  failBuilds: FailBuildsFault | undefined;
  lossyBuild: LossyBuildFault | undefined;
  /** Draws for failBuilds.rate (the simulator's fault stream, so seeded ids do not shift). */
  faultDraw: () => number = Math.random;
  buildFaultsInjected = 0;
  accessUrl = 'http://127.0.0.1';
  /** A licensed (Premium) deployment: template access control such as require_active_version works. */
  accessControlLicensed = true;
  private nextLogId = 1;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly buildWaiters = new Map<string, (() => void)[]>();
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

  userById(id: string): User | undefined {
    return this.users.find((u) => u.id === id);
  }

  /** `{user}` path segments take a username, a user id or `me`. */
  resolveUser(ref: string, actor: User): User | undefined {
    if (ref === 'me') return actor;
    const lower = ref.toLowerCase();
    return this.users.find((u) => u.id === ref || u.username.toLowerCase() === lower);
  }

  canReadWorkspace(actor: User, ws: WorkspaceRecord): boolean {
    return actor.owner || ws.ownerId === actor.id;
  }

  canUpdateTemplate(actor: User): boolean {
    return actor.owner;
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

  // ── jobs ───────────────────────────────────────────────────────────────

  private newJob(type: JobType, fileId: string, initiatorId: string): ProvisionerJob {
    return { id: this.newId(), type, status: 'pending', fileId, createdAt: this.now(), initiatorId, logs: [] };
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
    job.status = error === undefined ? 'succeeded' : 'failed';
    if (error !== undefined) job.error = error;
    job.completedAt = this.now();
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
    if (!this.canUpdateTemplate(actor)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may create template versions.');
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
      job: this.newJob('template_version_import', file.id, actor.id),
      createdById: actor.id,
      createdAt: this.now(),
      updatedAt: this.now(),
      archived: false,
    };
    this.versions.set(version.id, version);
    this.later(this.buildLatencyMs, () => {
      this.startJob(version.job);
      this.log(version.job, [stageLine('Setting up'), stageLine('Parsing template parameters')]);
      this.later(this.buildLatencyMs, () => this.importVersion(version, file));
    });
    return version;
  }

  private async importVersion(version: TemplateVersionRecord, file: FileRecord): Promise<void> {
    try {
      const files = await unpackTar(file.bytes);
      version.config = await parseTemplateConfig(files);
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
    if (!this.canUpdateTemplate(actor)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may change the active version.');
    const version = this.versions.get(versionId);
    if (!version) throw new ApiError(404, 'Template version not found.', `No template version with id ${versionId}.`);
    if (version.templateId !== template.id) {
      throw new ApiError(400, 'The provided template version doesn\'t belong to the specified template.', `Version ${version.name} is not a version of template ${template.name}.`);
    }
    if (version.archived) throw new ApiError(400, 'The provided template version is archived.');
    if (version.job.status !== 'succeeded') throw new ApiError(403, 'Only versions that have been built successfully can be promoted.');
    template.activeVersionId = version.id;
    template.updatedAt = this.now();
  }

  /**
   * Archives a version as coderd's ArchiveUnusedTemplateVersions does: never the active version,
   * never one a workspace's latest build uses. Returns the ids archived (empty when refused).
   */
  archiveUnusedVersions(actor: User, template: TemplateRecord, onlyVersionId?: string): string[] {
    if (!this.canUpdateTemplate(actor)) throw new ApiError(403, 'Forbidden.');
    const inUse = new Set(
      [...this.workspaces.values()].filter((ws) => !ws.deleted && ws.templateId === template.id).map((ws) => this.latestBuild(ws).templateVersionId),
    );
    const archived: string[] = [];
    for (const v of this.versions.values()) {
      if (v.templateId !== template.id || v.archived || v.id === template.activeVersionId || inUse.has(v.id)) continue;
      if (onlyVersionId !== undefined && v.id !== onlyVersionId) continue;
      if (v.job.status === 'pending' || v.job.status === 'running') continue;
      v.archived = true;
      v.updatedAt = this.now();
      archived.push(v.id);
    }
    return archived;
  }

  /**
   * PATCH /templates/{id}: only require_active_version is modelled. Like codersdk's non-pointer bool,
   * an omitted field means false, so a client must send the template's current value back.
   */
  updateTemplateMeta(actor: User, template: TemplateRecord, body: Record<string, unknown>): boolean {
    if (!this.canUpdateTemplate(actor)) throw new ApiError(403, 'Forbidden.', 'Only template administrators may edit a template.');
    const want = body.require_active_version === true;
    if (body.require_active_version !== undefined && typeof body.require_active_version !== 'boolean') {
      throw new ApiError(400, 'Request body must be valid JSON.', 'require_active_version must be a boolean.');
    }
    if (want === Boolean(template.requireActiveVersion)) return false;
    // AGPL may switch it off but not on (coderd's AGPL access-control store; the exact status is UNCONFIRMED).
    if (want && !this.accessControlLicensed) {
      throw new ApiError(500, 'Internal error updating template metadata.', 'set template access control: enterprise license required for require_active_version');
    }
    template.requireActiveVersion = want;
    template.updatedAt = this.now();
    return true;
  }

  // ── workspace builds ──────────────────────────────────────────────────

  createBuild(actor: User, ws: WorkspaceRecord, req: CreateBuildRequest): BuildRecord {
    if (!this.canReadWorkspace(actor, ws)) {
      // Members hold no update right on someone else's workspace.
      throw new ApiError(403, `You do not have permission to ${req.transition === 'delete' ? 'delete' : 'update'} this workspace.`);
    }
    if (req.orphan && req.transition !== 'delete') throw new ApiError(400, 'Orphan is only permitted when deleting a workspace.');
    if (req.orphan && req.state) throw new ApiError(400, 'You cannot set state and orphan at the same time.');
    if ((req.state || req.orphan) && !this.canUpdateTemplate(actor)) throw new ApiError(403, 'Only template managers may provide custom state');
    const previous = this.latestBuild(ws);
    if (ACTIVE_JOB_STATUSES.has(previous.job.status)) {
      throw new ApiError(409, 'A workspace build is already active.', `Build #${previous.buildNumber} (${previous.transition}) is ${previous.job.status}; wait for it to finish.`);
    }
    const versionId = req.templateVersionId ?? previous.templateVersionId;
    const version = this.versions.get(versionId);
    if (!version) throw new ApiError(400, 'Template version not found.', `No template version with id ${versionId}.`);
    if (version.templateId !== ws.templateId) throw new ApiError(400, 'template version doesn\'t match template');
    const template = this.template(ws.templateId);
    // coderd lets only template admins start a non-active version of a template that requires the active
    // one. That stops and deletes on the old version stay allowed is UNCONFIRMED (the lenient reading).
    if (template?.requireActiveVersion && req.transition === 'start' && version.id !== template.activeVersionId && !this.canUpdateTemplate(actor)) {
      throw new ApiError(403, 'cannot use non-active version', `Template ${template.name} requires its active version; start or update the workspace with it.`);
    }
    // Coder refuses builds on an archived version; wsmigrate archives the pre-migration versions so a
    // migrated workspace can never be "downgraded" to the old types (which destroys the PVC).
    if (version.archived) throw new ApiError(400, 'The provided template version is archived.', `Template version ${version.name} is archived; build with the active version.`);
    if (version.job.status === 'pending' || version.job.status === 'running') {
      throw new ApiError(406, 'The provided template version is pending. Wait for it to complete importing!');
    }
    if (version.job.status !== 'succeeded') {
      throw new ApiError(400, `The provided template version "${version.name}" has failed to import: "${version.job.error ?? version.job.status}". You cannot build workspaces with it!`);
    }
    const state = req.orphan ? Buffer.alloc(0) : req.state ? Buffer.from(req.state) : Buffer.from(previous.state);
    const build: BuildRecord = {
      id: this.newId(),
      workspaceId: ws.id,
      buildNumber: previous.buildNumber + 1,
      templateVersionId: version.id,
      transition: req.transition,
      initiatorId: actor.id,
      reason: req.reason ?? 'initiator',
      state,
      job: this.newJob('workspace_build', version.job.fileId, actor.id),
      resources: [],
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.builds.set(build.id, build);
    ws.buildIds.push(build.id);
    ws.updatedAt = this.now();
    this.later(this.buildLatencyMs, () => this.runBuild(build, ws, version, Boolean(req.orphan)));
    return build;
  }

  /** Seeds a build that already happened (no waiting), for the deployment's initial history. */
  async seedBuild(ws: WorkspaceRecord, versionId: string, transition: Transition, initiator: User, pvcData: string): Promise<BuildRecord> {
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

  private workspaceContext(ws: WorkspaceRecord, version: TemplateVersionRecord, transition: Transition): WorkspaceContext {
    const owner = this.userById(ws.ownerId);
    const template = this.templates.get(ws.templateId);
    return {
      workspaceId: ws.id,
      workspaceName: ws.name,
      ownerId: ws.ownerId,
      ownerName: owner?.username ?? 'unknown',
      ownerEmail: owner?.email ?? '',
      templateId: ws.templateId,
      templateName: template?.name ?? '',
      templateVersionName: version.name,
      accessUrl: this.accessUrl,
      transition,
    };
  }

  private takeBuildFault(build: BuildRecord): FailBuildsFault | undefined {
    const fault = this.failBuilds;
    if (!fault) return undefined;
    if (fault.workspaceId !== undefined && fault.workspaceId !== build.workspaceId) return undefined;
    if (fault.transition !== undefined && fault.transition !== build.transition) return undefined;
    if (fault.rate !== undefined && this.faultDraw() >= fault.rate) return undefined;
    if (fault.times !== undefined) {
      if (fault.times <= 0) return undefined;
      fault.times -= 1;
    }
    this.buildFaultsInjected++;
    return fault;
  }

  private runBuild(build: BuildRecord, ws: WorkspaceRecord, version: TemplateVersionRecord, orphan: boolean): void {
    this.startJob(build.job);
    build.updatedAt = this.now();
    this.log(build.job, [stageLine('Setting up'), tfLine('Setting up', 'Terraform 1.11.4')]);
    const fault = this.takeBuildFault(build);
    this.later(this.buildLatencyMs, () => {
      if (fault) {
        const message = fault.message ?? 'simulated provisioner failure (failBuilds fault)';
        this.log(build.job, [stageLine('Planning infrastructure'), tfLine('Planning infrastructure', `Error: ${message}`, 'error')]);
        this.completeBuild(build, ws, message);
        return;
      }
      return this.executeBuild(build, ws, version, orphan, '');
    });
  }

  /** Runs the build on the provisioner, then completes the job with the state it wrote. */
  private async executeBuild(build: BuildRecord, ws: WorkspaceRecord, version: TemplateVersionRecord, orphan: boolean, pvcData: string): Promise<void> {
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
    const ctx = this.workspaceContext(ws, version, build.transition);
    const file = this.files.get(version.job.fileId);
    try {
      const result = await this.provisioner.provision({
        buildId: build.id,
        state: build.state,
        ctx,
        config,
        files: async () => (file ? unpackTar(file.bytes) : []),
        newPvcData: pvcData,
      });
      this.log(build.job, result.logs);
      build.state = result.state;
      if (!result.error && takeLossyBuild(this.lossyBuild, build)) build.state = loseFromState(this.lossyBuild, build.state, this.cluster, { workspace: ws.id, buildId: build.id });
      build.resources = this.resourcesOf(build);
      this.completeBuild(build, ws, result.error);
    } catch (err) {
      // PlanError and state-load errors carry messages written for the operator; anything else is a simulator bug, shown as is.
      const message = err instanceof Error ? err.message : String(err);
      this.log(build.job, [tfLine('Planning infrastructure', `Error: ${message}`, 'error')]);
      this.completeBuild(build, ws, message);
    }
  }

  private completeBuild(build: BuildRecord, ws: WorkspaceRecord, error?: string): void {
    this.log(build.job, [stageLine('Cleaning Up')]);
    this.finishJob(build.job, error);
    build.updatedAt = this.now();
    ws.updatedAt = this.now();
    if (!error && build.transition === 'delete') ws.deleted = true;
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
    // coderd answers 404 rather than 403 to anyone without template update rights.
    if (!this.canUpdateTemplate(actor)) throw notFound();
    return build.state;
  }

  putState(actor: User, build: BuildRecord, state: Buffer): void {
    if (!this.canUpdateTemplate(actor)) {
      throw new ApiError(403, 'Only template managers may update workspace build state.', 'Ask a template administrator to push the state.');
    }
    const ws = this.workspaces.get(build.workspaceId);
    const latest = ws ? this.latestBuild(ws) : undefined;
    if (latest && ACTIVE_JOB_STATUSES.has(latest.job.status)) {
      throw new ApiError(409, 'A workspace build is already active.', `Build #${latest.buildNumber} (${latest.transition}) is ${latest.job.status}; wait for it to finish before updating the state.`);
    }
    build.state = Buffer.from(state);
    build.updatedAt = this.now();
  }

  /** Stops scheduling; resolves once builds already running on the provisioner have ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.inFlight]);
  }
}
