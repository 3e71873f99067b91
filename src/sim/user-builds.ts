import { ApiError } from './api-error';
import type { SimDeployment } from './deployment';
import { ACTIVE_JOB_STATUSES, type BuildRecord, type User, type WorkspaceRecord } from './model';

export interface UserBuildStreamOptions {
  /** One build every this many ms (default 2000). */
  intervalMs?: number;
  /** Whose workspaces the users build: these templates' (default every template). */
  templateIds?: readonly string[];
  /** Workspaces the users leave alone (the ones a migration holds, for instance). */
  skipWorkspaceIds?: ReadonlySet<string>;
}

export interface UserBuildStats {
  builds: number;
  /** Per build that a daemon has taken: how long its job waited in the queue. */
  queueWaitsMs: number[];
  /** Builds still waiting for a daemon. */
  stillQueued: number;
}

/**
 * Users running `coder start` and `coder stop` on their own workspaces, a steady stream: each tick one
 * owner builds one of their idle workspaces (stop if it runs, start if not) on its previous build's
 * version, and a start that the template's require-active-version refuses again on the active version,
 * as cli/start.go does. Their jobs share the daemons' queue with everyone else's.
 */
export class UserBuildStream {
  private readonly builds: BuildRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private turn = 0;

  constructor(
    private readonly d: SimDeployment,
    private readonly options: UserBuildStreamOptions = {},
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.buildOne(), this.options.intervalMs ?? 2000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  stats(): UserBuildStats {
    const taken = this.builds.filter((b) => b.job.startedAt !== undefined);
    return {
      builds: this.builds.length,
      queueWaitsMs: taken.map((b) => Date.parse(b.job.startedAt as string) - Date.parse(b.job.createdAt)),
      stillQueued: this.builds.length - taken.length,
    };
  }

  /** One user's build now; undefined when every candidate workspace is busy. */
  buildOne(): BuildRecord | undefined {
    const d = this.d;
    const candidates = [...d.workspaces.values()].filter(
      (ws) =>
        !ws.deleted &&
        // A suspended owner cannot sign in to build (coderd/httpmw/apikey.go answers 401).
        d.userById(ws.ownerId)?.status !== 'suspended' &&
        (this.options.templateIds === undefined || this.options.templateIds.includes(ws.templateId)) &&
        !this.options.skipWorkspaceIds?.has(ws.id) &&
        !ACTIVE_JOB_STATUSES.has(d.latestBuild(ws).job.status),
    );
    if (candidates.length === 0) return undefined;
    const ws = candidates[this.turn++ % candidates.length];
    const owner = ws ? d.userById(ws.ownerId) : undefined;
    if (!ws || !owner) return undefined;
    const latest = d.latestBuild(ws);
    const transition = latest.transition === 'start' && latest.job.status === 'succeeded' ? 'stop' : 'start';
    try {
      const build = this.userBuild(ws, owner, transition);
      this.builds.push(build);
      return build;
    } catch {
      // A refusal (a build that just started, a version now archived) is what a user would see and retry later.
      return undefined;
    }
  }

  /**
   * `coder start` (cli/start.go): a start on the previous build's version first; a 403 (the template
   * requires its active version, Premium) makes it start again at once with the ACTIVE version
   * (WorkspaceUpdate), carrying the latest state like any build.
   */
  private userBuild(ws: WorkspaceRecord, owner: User, transition: 'start' | 'stop'): BuildRecord {
    try {
      return this.d.createBuild(owner, ws, { transition, reason: 'cli' });
    } catch (err) {
      const template = this.d.template(ws.templateId);
      if (transition !== 'start' || !(err instanceof ApiError) || err.status !== 403 || !template) throw err;
      return this.d.createBuild(owner, ws, { transition, reason: 'cli', templateVersionId: template.activeVersionId });
    }
  }
}
