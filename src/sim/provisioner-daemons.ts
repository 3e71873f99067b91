import type { ProvisionerJob } from './model';

/**
 * Provisioner daemons as coderd has them (codersdk/provisionerdaemons.go `ProvisionerDaemon`,
 * `ProvisionerDaemonStatus`; coderd/provisionerdaemons.go lists them per organization): every job,
 * a user's build, ours, a template import, waits in one FIFO queue until an idle daemon whose tags
 * match takes it; a daemon runs one job at a time.
 */
export type DaemonStatus = 'idle' | 'busy' | 'offline';

export interface SimDaemon {
  readonly id: string;
  readonly name: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly createdAt: string;
  lastSeenAt: string;
  offline: boolean;
  currentJob?: ProvisionerJob;
  previousJob?: ProvisionerJob;
}

export interface DaemonSpec {
  name?: string;
  /** Coder's default tags of an organization daemon: `{scope: 'organization', owner: ''}`. */
  tags?: Record<string, string>;
}

interface QueuedJob {
  job: ProvisionerJob;
  tags: Readonly<Record<string, string>>;
  run: () => void;
}

export const DEFAULT_JOB_TAGS: Readonly<Record<string, string>> = { scope: 'organization', owner: '' };

/**
 * coderd's tag rule (provisionerdserver `AcquireJob`, the `tags @> job.tags` filter): a daemon takes a
 * job when it carries every tag of the job with the same value.
 */
export function daemonMatches(daemon: Pick<SimDaemon, 'tags'>, jobTags: Readonly<Record<string, string>>): boolean {
  return Object.entries(jobTags).every(([k, v]) => daemon.tags[k] === v);
}

export class ProvisionerDaemonPool {
  readonly daemons: SimDaemon[] = [];
  private readonly queue: QueuedJob[] = [];
  private readonly held = new Map<string, SimDaemon>();
  private closed = false;
  private dispatchScheduled = false;

  constructor(
    specs: readonly DaemonSpec[],
    private readonly ids: () => string,
    private readonly now: () => string,
  ) {
    specs.forEach((spec, i) => {
      const created = now();
      this.daemons.push({ id: ids(), name: spec.name ?? `sim-provisioner-${i + 1}`, tags: { ...DEFAULT_JOB_TAGS, ...spec.tags }, createdAt: created, lastSeenAt: created, offline: false });
    });
  }

  /** Queues the job; `run` is called when a daemon takes it (it then marks the job running). */
  enqueue(job: ProvisionerJob, run: () => void, tags: Readonly<Record<string, string>> = DEFAULT_JOB_TAGS): void {
    this.queue.push({ job, tags, run });
    this.scheduleDispatch();
  }

  /** A queued job canceled before any daemon took it: it leaves the queue. */
  dequeue(job: ProvisionerJob): void {
    const i = this.queue.findIndex((q) => q.job.id === job.id);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /** The job ended (succeeded, failed, canceled): its daemon is free again. */
  release(job: ProvisionerJob): void {
    const daemon = this.held.get(job.id);
    if (!daemon) return;
    this.held.delete(job.id);
    daemon.currentJob = undefined;
    daemon.previousJob = job;
    daemon.lastSeenAt = this.now();
    this.scheduleDispatch();
  }

  /**
   * A daemon stops (or comes back). Like `coder provisioner start` on SIGTERM, it finishes the job it
   * runs and takes no new one; the queue waits for the others.
   */
  setOffline(name: string, offline: boolean): void {
    const daemon = this.daemons.find((d) => d.name === name);
    if (!daemon) throw new Error(`The simulator has no provisioner daemon ${name}; its daemons are ${this.daemons.map((d) => d.name).join(', ')}.`);
    daemon.offline = offline;
    if (!offline) daemon.lastSeenAt = this.now();
    this.scheduleDispatch();
  }

  status(daemon: SimDaemon): DaemonStatus {
    if (daemon.currentJob) return 'busy';
    return daemon.offline ? 'offline' : 'idle';
  }

  /**
   * 1-based place among the queued jobs that a daemon able to run this one could take, as coderd's
   * `GetProvisionerJobsByIDsWithQueuePosition` counts it; 0 once a daemon has it.
   */
  queuePosition(job: ProvisionerJob): { position: number; size: number } {
    const i = this.queue.findIndex((q) => q.job.id === job.id);
    if (i < 0) return { position: 0, size: 0 };
    const mine = this.queue[i] as QueuedJob;
    const able = this.daemons.filter((d) => daemonMatches(d, mine.tags));
    const competing = this.queue.filter((q) => able.some((d) => daemonMatches(d, q.tags)));
    return { position: competing.findIndex((q) => q.job.id === job.id) + 1, size: competing.length };
  }

  pendingJobs(): ProvisionerJob[] {
    return this.queue.map((q) => q.job);
  }

  close(): void {
    this.closed = true;
  }

  // A job handed over in the request that queued it would answer that request as already running.
  private scheduleDispatch(): void {
    if (this.dispatchScheduled || this.closed) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const daemon of this.daemons) {
      if (daemon.offline || daemon.currentJob) continue;
      const i = this.queue.findIndex((q) => daemonMatches(daemon, q.tags));
      if (i < 0) continue;
      const [next] = this.queue.splice(i, 1) as [QueuedJob];
      daemon.currentJob = next.job;
      daemon.lastSeenAt = this.now();
      this.held.set(next.job.id, daemon);
      next.run();
      next.job.workerId = daemon.id;
    }
  }
}
