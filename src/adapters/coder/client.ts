import { z } from 'zod';
import { formatDuration } from '../../domain/duration-text';
import { checkHttpUrl } from '../../domain/http-url';
import { CoderWaitTimeoutError, isCoderApiError } from './errors';
import { pollUntil, type PollOptions } from './poll-until';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-delay';
import {
  BuildInfoSchema,
  CurrentUserSchema,
  BuildLogsSchema,
  isTerminalJobStatus,
  OrganizationJobsSchema,
  OrganizationSchema,
  ProvisionerDaemonsSchema,
  TemplatesSchema,
  TemplateSchema,
  TemplateVersionSchema,
  TemplateVersionParameterSchema,
  TemplateVersionVariableSchema,
  UploadResponseSchema,
  WorkspaceBuildParameterSchema,
  WorkspaceBuildSchema,
  WorkspaceBuildsSchema,
  WorkspaceSchema,
  WorkspacesResponseSchema,
  type BuildInfo,
  type CurrentUser,
  type BuildLog,
  type OrganizationJob,
  type ProvisionerDaemon,
  type Template,
  type TemplateVersion,
  type TemplateVersionParameter,
  type TemplateVersionVariable,
  type UploadResponse,
  type Workspace,
  type WorkspaceBuild,
  type WorkspaceBuildParameter,
  type WorkspaceTransition,
} from './schemas';
import type { AuthCheck } from '../../domain/token-permissions';
import type { CoderCallObserver } from './call-observer';
import { CoderTransport, type Endpoint } from './transport';

/** A session token as a string, or a Secret (src/config/secret) that reveals it only on demand. */
export type SessionToken = string | { reveal(): string };

export interface CoderClientOptions {
  /** The deployment's URL, e.g. https://coder.example.com (a trailing /api/v2 is tolerated). */
  url: string;
  token: SessionToken;
  /** Send through this fetch instead of node:http(s) with Node's keep-alive agents (tests inject faults this way). */
  fetchImpl?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  userAgent?: string;
  sleep?: (ms: number) => Promise<void>;
  /** Clock for Retry-After dates and wait deadlines; tests pass a fake one together with `sleep`. */
  now?: () => number;
  /** Longest a single HTTP exchange may take before it counts as a network failure. */
  requestTimeoutMs?: number;
  /** Told about every HTTP attempt (route, status, latency), e.g. for metrics. */
  observer?: CoderCallObserver;
}

export interface CreateWorkspaceBuildRequest {
  transition: WorkspaceTransition;
  template_version_id?: string;
  /**
   * The Terraform state the build runs on instead of the previous build's (codersdk
   * `CreateWorkspaceBuildRequest.ProvisionerState`, JSON `state`, in every 2.x release;
   * coderd/wsbuilder/wsbuilder.go `State`). Only callers with `update` on the template may send it.
   */
  state?: Buffer;
  rich_parameter_values?: { name: string; value: string }[];
  reason?: string;
}

export interface CreateWorkspaceBuildOptions {
  /**
   * The workspace as the caller read it just before, with nothing written since: the build number
   * above which a build is ours when an answer is lost. Without it the client reads the workspace.
   */
  before?: Workspace;
  /** How long to wait for someone else's active build when Coder answers 409. */
  conflictWaitTimeoutMs?: number;
  onPoll?: (build: WorkspaceBuild) => void;
  signal?: AbortSignal;
}

export interface CreateTemplateVersionRequest {
  template_id: string;
  file_id: string;
  name?: string;
  message?: string;
  storage_method?: 'file';
  provisioner?: 'terraform';
  /** The only variable values the import uses (the rest get their defaults): codersdk.VariableValue. */
  user_variable_values?: { name: string; value: string }[];
  provisioner_tags?: Record<string, string>;
}

export interface WaitOptions<T> {
  timeoutMs?: number;
  onPoll?: (latest: T) => void;
  signal?: AbortSignal;
  /**
   * For builds: time the job waits in the provisioners' queue (`job.queue_position` > 0) is not
   * counted against `timeoutMs`, up to this much in all (default: `timeoutMs` again).
   */
  maxQueuedMs?: number;
  /** The caller's own reading of the same object (a build as its creation answered): the wait sleeps before it reads. */
  first?: T;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** Tries of a build creation that Coder refuses with 409 because another build is active. */
const BUILD_CONFLICT_ATTEMPTS = 4;
const DEFAULT_PAGE_SIZE = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Coder template names: letters, digits and single dashes; anything else could smuggle search terms into q. */
const TEMPLATE_NAME = /^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/;

/** The settings of codersdk.UpdateTemplateMeta that GET /templates/{id} returns under the same names. */
const TEMPLATE_META_FIELDS = [
  'name',
  'display_name',
  'description',
  'icon',
  'default_ttl_ms',
  'activity_bump_ms',
  'autostop_requirement',
  'autostart_requirement',
  'allow_user_autostart',
  'allow_user_autostop',
  'allow_user_cancel_workspace_jobs',
  'failure_ttl_ms',
  'time_til_dormant_ms',
  'time_til_dormant_autodelete_ms',
  'deprecation_message',
  'max_port_share_level',
  'use_classic_parameter_flow',
  'cors_behavior',
  'disable_module_cache',
] as const;

const NEEDS = {
  workspaceRead: 'read access to the workspace (its owner, a template admin or an owner)',
  workspaceDelete: '`delete` on the workspace',
  // coderd/wsbuilder/wsbuilder.go authorize: the transition's own action (policy.ActionWorkspaceStart/Stop).
  workspaceStart: '`start` on the workspace',
  workspaceStop: '`stop` on the workspace',
  templateRead: 'read access to the template',
  templateAdmin: 'template admin rights (`update` on the template)',
  organizationRead: 'membership of the organization',
};

const STATE_HINTS = {
  404: 'Here Coder answers 404 even for an existing build when that permission is missing.',
};

const PUT_STATE_HINTS = {
  404: 'Coder answers 404 when the build does not exist, when the user lacks template admin rights (`update` on the template), or when the server predates `PUT /workspacebuilds/{id}/state` (added in Coder 2.27.10, 2.28.7 and 2.29.2): check the version with buildinfo.',
  409: 'A build of this workspace is still active: wait for it to finish (waitForBuild), then put the state again.',
  405: 'This Coder predates `PUT /workspacebuilds/{id}/state` (added in 2.27.10, 2.28.7 and 2.29.2): upgrade Coder first.',
};

/**
 * Typed client of the Coder REST API calls the migration runbook makes (reference/coder-api.md).
 * Transient failures are retried here; what is left surfaces as a CoderApiError whose `retryable`
 * tells the activity whether a later attempt can help.
 */
export class CoderClient {
  readonly #http: CoderTransport;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly url: string;

  constructor(options: CoderClientOptions) {
    const baseUrl = parseDeploymentUrl(options.url);
    const token = typeof options.token === 'string' ? options.token : options.token.reveal();
    if (!token) throw new Error('CoderClient needs a session token: pass one from CODER_SESSION_TOKEN or `coder tokens create`.');
    this.url = baseUrl.href.replace(/\/$/, '');
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#now = options.now ?? Date.now;
    this.#http = new CoderTransport({
      baseUrl,
      token,
      fetchImpl: options.fetchImpl,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      userAgent: options.userAgent ?? 'wsmigrate',
      sleep: this.#sleep,
      now: this.#now,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      observer: options.observer,
    });
  }

  buildInfo(): Promise<BuildInfo> {
    return this.#http.json(
      { method: 'GET', path: '/buildinfo', expect: [200], endpoint: { does: 'read the Coder build info' } },
      BuildInfoSchema,
    );
  }

  /** The token's own user (`GET /users/me`): the cheapest read that proves the token works; pacing tells its own jobs from the users' by its id. */
  currentUser(): Promise<CurrentUser> {
    return this.#http.json(
      { method: 'GET', path: '/users/me', expect: [200], endpoint: { does: 'read the user the session token belongs to', hints: { 401: 'The session token is wrong, expired or revoked: set CODER_SESSION_TOKEN to a valid one.' } } },
      CurrentUserSchema,
    );
  }

  /**
   * A user by username or id (`GET /users/{user}`). Coder answers an unknown one with 400
   * `"user" must be an existing uuid or username.` (coderd/httpmw/userparam.go, extractUserContext),
   * so the caller tells "no such user" by `kind: 'bad-request'`, not by a 404.
   */
  userByName(name: string): Promise<CurrentUser> {
    return this.#http.json(
      { method: 'GET', path: `/users/${seg(name)}`, expect: [200], endpoint: { does: `get user ${name}` } },
      CurrentUserSchema,
    );
  }

  /** `includeDeleted`: a deleted workspace of that name too (coderd/workspaces.go workspaceByOwnerAndName, `include_deleted`), else 404. */
  workspaceByOwnerAndName(owner: string, name: string, opts: { includeDeleted?: boolean } = {}): Promise<Workspace> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/users/${seg(owner)}/workspace/${seg(name)}`,
        ...(opts.includeDeleted ? { query: { include_deleted: 'true' } } : {}),
        expect: [200],
        endpoint: { does: `get workspace ${owner}/${name}`, needs: NEEDS.workspaceRead },
      },
      WorkspaceSchema,
    );
  }

  /** `includeDeleted`: a deleted workspace too (coderd/workspaces.go workspace, `include_deleted`), else 410. */
  workspace(id: string, opts: { includeDeleted?: boolean } = {}): Promise<Workspace> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/workspaces/${seg(id)}`,
        ...(opts.includeDeleted ? { query: { include_deleted: 'true' } } : {}),
        expect: [200],
        endpoint: { does: `get workspace ${id}`, needs: NEEDS.workspaceRead },
      },
      WorkspaceSchema,
    );
  }

  /** Every workspace of a template, across as many pages as Coder needs; each workspace once. */
  async workspacesOfTemplate(templateName: string, opts: { pageSize?: number; extraQuery?: string } = {}): Promise<Workspace[]> {
    if (!TEMPLATE_NAME.test(templateName)) {
      throw new Error(`"${templateName}" is not a Coder template name (letters, digits and dashes only); pass the template's name, not its display name.`);
    }
    const limit = opts.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`pageSize must be a positive integer, got ${limit}.`);
    const q = [`template:${templateName}`, opts.extraQuery?.trim()].filter(Boolean).join(' ');
    const byId = new Map<string, Workspace>();
    for (let offset = 0; ; ) {
      const page = await this.#http.json(
        {
          method: 'GET',
          path: '/workspaces',
          query: { q, limit, offset },
          expect: [200],
          endpoint: {
            does: `list the workspaces of template ${templateName} (offset ${offset})`,
            needs: NEEDS.templateRead,
            hints: { 400: 'Coder rejects unknown search keys in q; check extraQuery.' },
          },
        },
        WorkspacesResponseSchema,
      );
      // A workspace created while paging shifts the offsets; keying by id keeps each one once.
      for (const workspace of page.workspaces) if (!byId.has(workspace.id)) byId.set(workspace.id, workspace);
      offset += page.workspaces.length;
      if (page.workspaces.length === 0 || offset >= page.count) break;
    }
    return [...byId.values()];
  }

  /** One page of a template's workspaces (Coder sorts by owner, then name) and the total count: for fleets too big to hold at once. */
  workspacesOfTemplatePage(templateName: string, page: { offset: number; limit: number }): Promise<{ workspaces: Workspace[]; count: number }> {
    if (!TEMPLATE_NAME.test(templateName)) {
      throw new Error(`"${templateName}" is not a Coder template name (letters, digits and dashes only); pass the template's name, not its display name.`);
    }
    return this.#http.json(
      {
        method: 'GET',
        path: '/workspaces',
        query: { q: `template:${templateName}`, limit: page.limit, offset: page.offset },
        expect: [200],
        endpoint: { does: `list the workspaces of template ${templateName} (offset ${page.offset})`, needs: NEEDS.templateRead },
      },
      WorkspacesResponseSchema,
    );
  }

  workspaceBuild(id: string): Promise<WorkspaceBuild> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/workspacebuilds/${seg(id)}`,
        expect: [200],
        endpoint: { does: `get workspace build ${id}`, needs: NEEDS.workspaceRead },
      },
      WorkspaceBuildSchema,
    );
  }

  /**
   * The workspace's builds, newest first (Coder orders them by build number, descending), at most
   * `limit` of them. Each one's state stays readable with getWorkspaceBuildState.
   */
  async workspaceBuilds(workspaceId: string, opts: { limit?: number; offset?: number } = {}): Promise<WorkspaceBuild[]> {
    const limit = opts.limit ?? 25;
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}.`);
    return this.#http.json(
      {
        method: 'GET',
        path: `/workspaces/${seg(workspaceId)}/builds`,
        query: { limit, offset: opts.offset },
        expect: [200],
        endpoint: { does: `list the builds of workspace ${workspaceId}`, needs: NEEDS.workspaceRead },
      },
      WorkspaceBuildsSchema,
    );
  }

  async workspaceBuildLogs(id: string, opts: { after?: number } = {}): Promise<BuildLog[]> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/workspacebuilds/${seg(id)}/logs`,
        query: { after: opts.after },
        expect: [200],
        endpoint: { does: `read the logs of workspace build ${id}`, needs: NEEDS.workspaceRead },
      },
      BuildLogsSchema,
    );
  }

  /**
   * Queues a build (Coder answers 201). When another build is active (409), waits for it and tries
   * again, unless it is a delete: then the 409 goes back to the caller at once. When an answer is lost (network, 5xx), the build may exist already: before sending again,
   * a newer build with the same transition and version is taken as ours instead of queuing a second one.
   */
  async createWorkspaceBuild(
    workspaceId: string,
    req: CreateWorkspaceBuildRequest,
    opts: CreateWorkspaceBuildOptions = {},
  ): Promise<WorkspaceBuild> {
    const body: Record<string, unknown> = { transition: req.transition };
    if (req.template_version_id !== undefined) body.template_version_id = req.template_version_id;
    // Go decodes a []byte field from a base64 string, which is what the Coder SDK sends.
    if (req.state !== undefined) body.state = req.state.toString('base64');
    if (req.rich_parameter_values !== undefined) body.rich_parameter_values = req.rich_parameter_values;
    if (req.reason !== undefined) body.reason = req.reason;

    const before = opts.before ?? (await this.workspace(workspaceId));
    const isOurs = (build: WorkspaceBuild) =>
      build.build_number > before.latest_build.build_number &&
      build.transition === req.transition &&
      (req.template_version_id === undefined || build.template_version_id === req.template_version_id);
    let answerLost = false;
    const endpoint: Endpoint = {
      does: `queue a ${req.transition} build of workspace ${before.owner_name}/${before.name}`,
      needs: req.transition === 'delete' ? NEEDS.workspaceDelete : req.transition === 'start' ? NEEDS.workspaceStart : NEEDS.workspaceStop,
      hints: {
        403: req.state
          ? 'A build that carries a state needs `update` on the template ("Only template managers may provide custom state", coderd/wsbuilder/wsbuilder.go) and `start`/`stop` on the workspace: use an Owner or Organization Admin token. A dormant workspace may be started by nobody: make it active first.'
          : 'Coder also refuses a start on an old template version when the template requires the active version, and any start of a dormant workspace (make it active first).',
        406: 'The template version is still importing: wait for it (waitForTemplateVersion) before building with it.',
      },
    };

    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#http.json(
          {
            method: 'POST',
            path: `/workspaces/${seg(workspaceId)}/builds`,
            body: { json: body },
            expect: [201, 200],
            endpoint,
            beforeRetry: async (failure) => {
              if (failure.kind !== 'network' && failure.kind !== 'server') return undefined;
              answerLost = true;
              const latest = (await this.workspace(workspaceId)).latest_build;
              return isOurs(latest) ? latest : undefined;
            },
          },
          WorkspaceBuildSchema,
        );
      } catch (error) {
        // A build that carries a state was written for the build the caller read: after someone else's
        // build it would overwrite what theirs wrote, so a 409 goes back to the caller instead of waiting.
        if (!isCoderApiError(error, 'conflict') || attempt >= BUILD_CONFLICT_ATTEMPTS || req.state !== undefined) throw error;
        const active = (await this.workspace(workspaceId)).latest_build;
        // Someone's delete: nothing is queued behind it. Coder before 2.28 takes a start or stop on a deleted
        // workspace and provisions it again, invisible in the dashboard (coderd/workspacebuilds.go
        // postWorkspaceBuilds, PR #20584); from 2.28 it answers 409. The caller learns of the delete now.
        if (active.transition === 'delete' && !isOurs(active)) throw error;
        const finished = isTerminalJobStatus(active.job.status)
          ? active
          : await this.waitForBuild(active.id, { timeoutMs: opts.conflictWaitTimeoutMs, onPoll: opts.onPoll, signal: opts.signal });
        if (answerLost && isOurs(finished)) return finished;
      }
    }
  }

  /** Polls the build until its job is succeeded, failed or canceled, and returns it; never judges the outcome. */
  waitForBuild(buildId: string, opts: WaitOptions<WorkspaceBuild> = {}): Promise<WorkspaceBuild> {
    const pollOptions = this.#pollOptions({ ...opts, first: opts.first?.id === buildId ? opts.first : undefined });
    return pollUntil(
      () => this.workspaceBuild(buildId),
      (build) => isTerminalJobStatus(build.job.status),
      // A build queued behind other jobs (users' own, on a deployment with few daemons) is not slow, only waiting its turn.
      {
        ...pollOptions,
        queued: (build) => build.job.status === 'pending' && (build.job.queue_position ?? 0) > 0,
        maxQueuedMs: opts.maxQueuedMs ?? pollOptions.timeoutMs,
        statusOf: (build) => build.job.status,
      },
      { sleep: this.#sleep, now: this.#now },
      (build, waitedMs, spent) =>
        new CoderWaitTimeoutError(
          `Timed out after ${formatDuration(waitedMs)} waiting for workspace build ${buildId} ` +
            `(${build.workspace_owner_name ?? '?'}/${build.workspace_name} #${build.build_number}, ${build.transition}) to finish: ` +
            `its job is still "${build.job.status}"` +
            (build.job.status === 'pending' && (build.job.queue_position ?? 0) > 0 ? ` at place ${build.job.queue_position} of ${build.job.queue_size ?? '?'} in the provisioners' queue` : '') +
            (spent.queuedMs > 0 ? ` (${formatDuration(spent.queuedMs)} of the wait queued, not counted up to a cap of ${formatDuration(opts.maxQueuedMs ?? pollOptions.timeoutMs)})` : '') +
            '. The build goes on in Coder; wait longer, or cancel it in the dashboard before retrying' +
            (build.job.status === 'pending' ? '; a job that never leaves the queue means no provisioner daemon with matching tags is online' : '') +
            '.',
          'workspace build',
          buildId,
          build.job.status,
          waitedMs,
        ),
    );
  }

  /** The build's Terraform state exactly as Coder stores it; never parsed here, never logged. */
  getWorkspaceBuildState(buildId: string): Promise<Buffer> {
    return this.#http.bytes({
      method: 'GET',
      path: `/workspacebuilds/${seg(buildId)}/state`,
      accept: '*/*',
      expect: [200],
      endpoint: { does: `get the Terraform state of workspace build ${buildId}`, needs: NEEDS.templateAdmin, hints: STATE_HINTS },
    });
  }

  /** Replaces the build's state without running a build (`coder state push --no-build`). */
  putWorkspaceBuildState(buildId: string, state: Buffer): Promise<void> {
    return this.#http.send({
      method: 'PUT',
      path: `/workspacebuilds/${seg(buildId)}/state`,
      // Go decodes a []byte field from a base64 string, which is what the Coder SDK sends.
      body: { json: { state: state.toString('base64') } },
      expect: [204, 200],
      endpoint: { does: `replace the Terraform state of workspace build ${buildId}`, needs: NEEDS.templateAdmin, hints: PUT_STATE_HINTS },
    });
  }

  /**
   * Asks Coder which of the named checks the token's user may do (`POST /api/v2/authcheck`,
   * codersdk/authorization.go `AuthCheck`): the answer is a map of the same names to true or false.
   */
  authCheck(checks: Record<string, AuthCheck>): Promise<Record<string, boolean>> {
    return this.#http.json(
      { method: 'POST', path: '/authcheck', body: { json: { checks } }, expect: [200], endpoint: { does: `ask Coder what the token may do (${Object.keys(checks).length} checks)` } },
      z.record(z.string(), z.boolean()),
    );
  }

  templateByName(org: string, name: string): Promise<Template> {
    return this.#inOrganization(org, (orgRef) =>
      this.#http.json(
        {
          method: 'GET',
          path: `/organizations/${seg(orgRef)}/templates/${seg(name)}`,
          expect: [200],
          endpoint: { does: `get template ${name} of organization ${org}`, needs: NEEDS.templateRead },
        },
        TemplateSchema,
      ),
    );
  }

  template(id: string): Promise<Template> {
    return this.#http.json(
      { method: 'GET', path: `/templates/${seg(id)}`, expect: [200], endpoint: { does: `get template ${id}`, needs: NEEDS.templateRead } },
      TemplateSchema,
    );
  }

  /**
   * Switches the template's "require active version" (Premium): members can then start only the
   * active version. codersdk's UpdateTemplateMeta takes the whole settings block (non-pointer fields
   * reset to zero when omitted), so, as `coder templates edit` does, the current values are sent back
   * with only this one changed. Coder answers 304 when nothing changed.
   */
  async setTemplateRequireActiveVersion(id: string, requireActiveVersion: boolean): Promise<void> {
    const current = (await this.template(id)) as Record<string, unknown>;
    const body: Record<string, unknown> = {};
    for (const key of TEMPLATE_META_FIELDS) if (current[key] !== undefined) body[key] = current[key];
    body.require_active_version = requireActiveVersion;
    // Never true: it would delete the "Everyone" group's access to the template.
    body.disable_everyone_group_access = false;
    await this.#http.send({
      method: 'PATCH',
      path: `/templates/${seg(id)}`,
      body: { json: body },
      expect: [200, 304],
      endpoint: {
        does: `${requireActiveVersion ? 'require' : 'stop requiring'} the active version of template ${id}`,
        needs: NEEDS.templateAdmin,
        hints: { 500: 'Coder without a Premium license refuses to require the active version (enterprise license required).' },
      },
    });
  }

  templateVersion(id: string): Promise<TemplateVersion> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/templateversions/${seg(id)}`,
        expect: [200],
        endpoint: { does: `get template version ${id}`, needs: NEEDS.templateRead },
      },
      TemplateVersionSchema,
    );
  }

  /** The values a version's import stored for its variables (sensitive ones redacted by Coder). */
  templateVersionVariables(versionId: string): Promise<TemplateVersionVariable[]> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/templateversions/${seg(versionId)}/variables`,
        expect: [200],
        endpoint: { does: `read the variables of template version ${versionId}`, needs: NEEDS.templateAdmin },
      },
      z.array(TemplateVersionVariableSchema),
    );
  }

  /** A version's coder_parameters as its import stored them (what a build of it validates against). */
  templateVersionRichParameters(versionId: string): Promise<TemplateVersionParameter[]> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/templateversions/${seg(versionId)}/rich-parameters`,
        expect: [200],
        endpoint: { does: `read the parameters of template version ${versionId}`, needs: NEEDS.templateRead },
      },
      // Go encodes a nil slice as null.
      z.array(TemplateVersionParameterSchema).nullable().transform((list) => list ?? []),
    );
  }

  /** The parameter values a build ran with; the next build starts from them (coderd wsbuilder). */
  workspaceBuildParameters(buildId: string): Promise<WorkspaceBuildParameter[]> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/workspacebuilds/${seg(buildId)}/parameters`,
        expect: [200],
        endpoint: { does: `read the parameters of workspace build ${buildId}`, needs: NEEDS.workspaceRead },
      },
      z.array(WorkspaceBuildParameterSchema).nullable().transform((list) => list ?? []),
    );
  }

  templateVersions(templateId: string): Promise<TemplateVersion[]> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/templates/${seg(templateId)}/versions`,
        query: { include_archived: true },
        expect: [200],
        endpoint: { does: `list versions of template ${templateId}`, needs: NEEDS.templateRead },
      },
      z.array(TemplateVersionSchema),
    );
  }

  /**
   * Archives one version, so no build can use it any more. Coder refuses (500, "likely in use by a
   * workspace or currently set to the active version") a version a workspace's latest build uses.
   */
  archiveTemplateVersion(id: string): Promise<void> {
    return this.#http.send({
      method: 'POST',
      path: `/templateversions/${seg(id)}/archive`,
      body: { json: {} },
      expect: [200],
      endpoint: {
        does: `archive template version ${id}`,
        needs: NEEDS.templateAdmin,
        hints: { 400: 'Coder answers 400 when the version is already archived.', 500: 'Coder answers 500 when a workspace still uses the version or it is the active one.' },
      },
    });
  }

  templateVersionByName(templateId: string, name: string): Promise<TemplateVersion> {
    return this.#http.json(
      {
        method: 'GET',
        path: `/templates/${seg(templateId)}/versions/${seg(name)}`,
        expect: [200],
        endpoint: { does: `get version ${name} of template ${templateId}`, needs: NEEDS.templateRead },
      },
      TemplateVersionSchema,
    );
  }

  /** The source archive of a template version (`job.file_id`), as uploaded. */
  downloadFile(fileId: string): Promise<Buffer> {
    return this.#http.bytes({
      method: 'GET',
      path: `/files/${seg(fileId)}`,
      accept: '*/*',
      expect: [200],
      endpoint: { does: `download file ${fileId}`, needs: NEEDS.templateAdmin },
    });
  }

  /** Uploads a template source archive; Coder answers 201, or 200 when it already had these bytes. */
  uploadFile(tar: Buffer, contentType: 'application/x-tar' = 'application/x-tar'): Promise<UploadResponse> {
    return this.#http.json(
      {
        method: 'POST',
        path: '/files',
        body: { raw: tar, contentType },
        expect: [201, 200],
        endpoint: {
          does: `upload a ${tar.length}-byte template archive`,
          needs: NEEDS.templateAdmin,
          hints: { 413: 'Coder accepts at most 100 MiB per file.', 400: 'Coder accepts only application/x-tar or application/zip.' },
        },
      },
      UploadResponseSchema,
    );
  }

  /**
   * Creates a version from an uploaded archive (Coder answers 201 and starts importing it). A 409 for
   * an existing name made from the same file is taken as an earlier run of this very call.
   */
  async createTemplateVersion(orgId: string, req: CreateTemplateVersionRequest): Promise<TemplateVersion> {
    const body = { storage_method: 'file', provisioner: 'terraform', ...req };
    try {
      return await this.#inOrganization(orgId, (orgRef) =>
        this.#http.json(
          {
            method: 'POST',
            path: `/organizations/${seg(orgRef)}/templateversions`,
            body: { json: body },
            expect: [201, 200],
            endpoint: {
              does: `create a version${req.name ? ` named ${req.name}` : ''} of template ${req.template_id}`,
              needs: NEEDS.templateAdmin,
              hints: {
                404: 'The uploaded file or the template does not exist, or the user cannot see it.',
                409: 'A version with this name already exists for the template, made from other source: choose another name.',
              },
            },
          },
          TemplateVersionSchema,
        ),
      );
    } catch (error) {
      if (!isCoderApiError(error, 'conflict') || !req.name) throw error;
      const existing = await this.templateVersionByName(req.template_id, req.name);
      if (existing.job.file_id === req.file_id) return existing;
      throw error;
    }
  }

  waitForTemplateVersion(versionId: string, opts: WaitOptions<TemplateVersion> = {}): Promise<TemplateVersion> {
    return pollUntil(
      () => this.templateVersion(versionId),
      (version) => isTerminalJobStatus(version.job.status),
      this.#pollOptions(opts),
      { sleep: this.#sleep, now: this.#now },
      (version, waitedMs) =>
        new CoderWaitTimeoutError(
          `Timed out after ${formatDuration(waitedMs)} waiting for template version ${version.name} (${versionId}) to finish importing: ` +
            `its job is still "${version.job.status}". Check that a provisioner daemon is online, then wait longer or cancel the import.`,
          'template version',
          versionId,
          version.job.status,
          waitedMs,
        ),
    );
  }

  /** Makes the version the template's active one (Coder answers 200 with a message). */
  promoteTemplateVersion(templateId: string, versionId: string): Promise<void> {
    return this.#http.send({
      method: 'PATCH',
      path: `/templates/${seg(templateId)}/versions`,
      body: { json: { id: versionId } },
      expect: [200, 204],
      endpoint: {
        does: `promote version ${versionId} of template ${templateId}`,
        needs: NEEDS.templateAdmin,
        hints: { 403: 'Coder also answers 403 when the version was not built successfully: promote only a version whose import succeeded.' },
      },
    });
  }

  // ── provisioners and the organization (fleet pacing, `scan --org`) ─────────

  /** Every template of the organization the token can read (`GET /organizations/{org}/templates`). */
  templatesOfOrganization(org: string): Promise<Template[]> {
    return this.#inOrganization(org, (orgRef) =>
      this.#http.json(
        { method: 'GET', path: `/organizations/${seg(orgRef)}/templates`, expect: [200], endpoint: { does: `list the templates of organization ${org}`, needs: NEEDS.templateRead } },
        TemplatesSchema,
      ),
    );
  }

  /**
   * The organization's online daemons (coderd/provisionerdaemons.go). Coder answers 404 to anyone
   * but owners and template admins, and so does a release without the route: both mean "unknown".
   */
  provisionerDaemons(org: string): Promise<ProvisionerDaemon[]> {
    return this.#inOrganization(org, (orgRef) =>
      this.#http.json(
        {
          method: 'GET',
          path: `/organizations/${seg(orgRef)}/provisionerdaemons?limit=1000`,
          expect: [200],
          endpoint: {
            does: `list the provisioner daemons of organization ${org}`,
            needs: 'read on provisioner jobs (owners and template admins)',
            hints: { 404: 'Coder answers 404 when the token may not read provisioner jobs, or when this release has no such route.' },
          },
        },
        ProvisionerDaemonsSchema,
      ),
    );
  }

  /** The organization's jobs in these statuses, newest first (coderd/provisionerjobs.go). */
  provisionerJobs(org: string, statuses: readonly string[]): Promise<OrganizationJob[]> {
    return this.#inOrganization(org, (orgRef) =>
      this.#http.json(
        {
          method: 'GET',
          path: `/organizations/${seg(orgRef)}/provisionerjobs?limit=1000&status=${statuses.map(seg).join(',')}`,
          expect: [200],
          endpoint: { does: `list the ${statuses.join('/')} provisioner jobs of organization ${org}`, needs: 'read on provisioner jobs (owners and template admins)' },
        },
        OrganizationJobsSchema,
      ),
    );
  }

  /**
   * Whether organization sub-routes take an organization's name is unconfirmed; when a name fails,
   * resolve it to the organization's ID and try once more.
   */
  async #inOrganization<T>(org: string, call: (orgRef: string) => Promise<T>): Promise<T> {
    try {
      return await call(org);
    } catch (error) {
      if (UUID.test(org) || !(isCoderApiError(error, 'not-found') || isCoderApiError(error, 'bad-request'))) throw error;
      let orgId: string;
      try {
        orgId = (
          await this.#http.json(
            {
              method: 'GET',
              path: `/organizations/${seg(org)}`,
              expect: [200],
              endpoint: { does: `get organization ${org}`, needs: NEEDS.organizationRead },
            },
            OrganizationSchema,
          )
        ).id;
      } catch {
        throw error;
      }
      return call(orgId);
    }
  }

  #pollOptions<T>(opts: WaitOptions<T>): PollOptions<T> {
    return { timeoutMs: opts.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, onPoll: opts.onPoll, signal: opts.signal, first: opts.first };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CoderClient { url: '${this.url}' }`;
  }

  toJSON(): { url: string } {
    return { url: this.url };
  }
}

function seg(value: string): string {
  return encodeURIComponent(value);
}

function parseDeploymentUrl(raw: string): URL {
  const checked = checkHttpUrl(raw);
  if (!checked.ok) {
    if (checked.problem === 'not-a-url') throw new Error(`The Coder URL "${raw}" is not a URL: pass the deployment's address, e.g. https://coder.example.com.`);
    if (checked.problem === 'not-http') throw new Error(`The Coder URL must start with https:// or http://, got ${checked.url?.protocol}//${checked.url?.host}.`);
    throw new Error(`The Coder URL for ${checked.url?.host} must not hold credentials: pass the session token separately.`);
  }
  const url = checked.url;
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/api\/v2$/, '') + '/';
  return url;
}
