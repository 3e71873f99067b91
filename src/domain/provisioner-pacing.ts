/**
 * How many migrations a fleet may run at once given what Coder's provisioner daemons can take.
 * Every build, ours and the users', waits in one job queue; a fleet that ignores the daemons fills
 * that queue and the users' own Start/Update wait behind it. Pure: the numbers in, the window out.
 */

import { formatDuration } from './duration-text';

/** What one read of `/provisionerdaemons` and `/provisionerjobs?status=pending,running` found. */
export interface ProvisionerCapacity {
  /** Online daemons that can take the template's jobs. */
  daemons: number;
  busy: number;
  offline: number;
  /** Users' jobs (anyone's but ours) waiting for a daemon. */
  usersQueued: number;
  usersRunning: number;
  /** Our own jobs, queued or running. */
  oursActive: number;
  /** With none online: the last time Coder heard from any of the offline ones (about when the last went away), when Coder says. */
  offlineSince?: string;
}

/** The default organization tags: the daemons that take a template's jobs unless it has tags of its own. */
const DEFAULT_TAGS: Readonly<Record<string, string>> = { scope: 'organization', owner: '' };

/**
 * One look at Coder's provisioners as numbers: the online daemons that can take the template's jobs
 * (Coder's default organization tags; templates with their own tags are UNCONFIRMED here), and the
 * active jobs split into ours (started by `me`) and the users'. Older releases list no status: a
 * listed daemon then counts as online.
 */
export function capacityOf(
  daemons: readonly { tags: Readonly<Record<string, string>>; status?: string | null; current_job?: unknown; last_seen_at?: string | null }[],
  jobs: readonly { status: string; initiator_id?: string }[],
  me: string,
): ProvisionerCapacity {
  const matching = daemons.filter((d) => Object.entries(DEFAULT_TAGS).every(([k, v]) => (d.tags[k] ?? '') === v));
  const online = matching.filter((d) => d.status !== 'offline');
  const users = jobs.filter((j) => j.initiator_id !== me);
  const seen = online.length === 0 ? matching.map((d) => d.last_seen_at).filter((t): t is string => Boolean(t) && Number.isFinite(Date.parse(t!))) : [];
  const offlineSince = seen.length ? seen.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a)) : undefined;
  return {
    daemons: online.length,
    busy: online.filter((d) => d.status === 'busy' || d.current_job).length,
    offline: matching.length - online.length,
    usersQueued: users.filter((j) => j.status === 'pending').length,
    usersRunning: users.filter((j) => j.status === 'running').length,
    oursActive: jobs.length - users.length,
    ...(offlineSince ? { offlineSince } : {}),
  };
}

export interface PacingDecision {
  /** At most this many migrations running at once (0: none may start). */
  width: number;
  /** Our own builds already fill the share of the daemons: start nothing now, though nobody else waits. */
  full?: boolean;
  /** Why no new migration starts now; absent when the fleet may start up to `width`. */
  hold?: string;
}

/** The fleet's slots: `share` of the daemons (at least one while any is online), never more than `concurrency`. */
export function pacedWidth(daemons: number, share: number, concurrency: number): number {
  if (daemons <= 0) return 0;
  return Math.min(concurrency, Math.max(1, Math.floor(daemons * share + 1e-9)));
}

/**
 * Migrations per daemon slot: a migration builds for only part of its life (preflight, backup,
 * rewrite and verify run between its builds), so the window holds more migrations than slots, and
 * what keeps our builds within the share is `full`: no start while our jobs fill it.
 */
export const MIGRATIONS_PER_SLOT = 2;

export function paceFleet(c: ProvisionerCapacity, share: number, concurrency: number): PacingDecision {
  const slots = pacedWidth(c.daemons, share, Number.MAX_SAFE_INTEGER);
  const width = Math.min(concurrency, slots * MIGRATIONS_PER_SLOT);
  if (c.daemons <= 0) {
    return { width: 0, hold: `no provisioner daemon is online${c.offline ? ` (${c.offline} offline)` : ''}: no build can run, so no migration starts until one is back` };
  }
  // Users first: while any of their jobs waits for a daemon, a new migration would only queue ahead of the next one.
  if (c.usersQueued > 0) {
    return { width, hold: `${c.usersQueued} of the users' own build(s) queued for the ${c.daemons} daemon(s) (${c.busy} busy): no new migration starts until they run` };
  }
  if (c.oursActive >= slots) return { width, full: true };
  return { width };
}

/** What the fleet knows of Coder's provisioners, carried across continue-as-new and shown in progress. */
export interface FleetPacingStatus {
  /** 'paced': the window follows the daemons; 'fallback': Coder would not list them, so `concurrency` alone; 'off': asked for. */
  mode: 'paced' | 'fallback' | 'off';
  share: number;
  /** Migrations allowed at once now. */
  width: number;
  /** Our builds fill the share: the next start waits for one to end. */
  full?: boolean;
  capacity?: ProvisionerCapacity;
  /** Why no new migration starts now. */
  waiting?: string;
  /** Why pacing fell back (said once). */
  fallback?: string;
  checkedAt?: string;
}

/**
 * One line for progress output and the Web UI. Given `nowMs`, the daemons' reading says its age: the
 * fleet reads them only when it wants to start a migration, so a reading can be minutes old.
 */
export function pacingLine(p: FleetPacingStatus, nowMs?: number): string {
  if (p.mode === 'off') return 'pacing off: up to the concurrency, whatever Coder can run';
  if (p.mode === 'fallback') return `pacing fell back to the concurrency (${p.fallback ?? 'daemons unknown'})`;
  const c = p.capacity;
  const readAt = p.checkedAt ? Date.parse(p.checkedAt) : NaN;
  const age = nowMs !== undefined && Number.isFinite(readAt) ? ` (read ${formatDuration(Math.max(0, nowMs - readAt))} ago)` : '';
  // Not "0/0 daemon(s) busy" and a window: none can build, so nothing the fleet runs or starts moves.
  if (c && c.daemons <= 0) return `paced: ${offlineText(c, nowMs)}${age} · the fleet waits for one to come back: no build runs, so no migration starts or finishes until then`;
  const daemons = c ? `${c.busy}/${c.daemons} daemon(s) busy, ${c.usersQueued} users' job(s) queued${age}` : 'daemons not read yet';
  return `paced: window ${p.width} (share ${p.share} of the online daemons) · ${daemons}${p.full && !p.waiting ? ' · our builds fill the share: the next start waits for one to end' : ''}${p.waiting ? ` · **waiting**: ${p.waiting}` : ''}`;
}

/** `no provisioner daemon online (0 of 2; offline since 10:00:00Z, 3m ago)`: how many of how many, since when if Coder says. */
function offlineText(c: ProvisionerCapacity, nowMs?: number): string {
  const since = c.offlineSince ? Date.parse(c.offlineSince) : NaN;
  const ago = nowMs !== undefined && Number.isFinite(since) ? `, ${formatDuration(Math.max(0, nowMs - since))} ago` : '';
  const when = c.offlineSince && Number.isFinite(since) ? `; offline since ${c.offlineSince}${ago}` : '';
  return c.offline > 0 ? `no provisioner daemon online (0 of ${c.offline}${when})` : 'no provisioner daemon online (none listed for the template\'s jobs)';
}

/** Whether the fleet's reading found no daemon online: nothing builds, so an ETA would be a guess from when they were. */
export function noDaemonOnline(p: FleetPacingStatus | undefined): boolean {
  return p?.mode === 'paced' && p.capacity !== undefined && p.capacity.daemons <= 0;
}

/**
 * The fleet's pacing with a reading taken now (by `fleet status`, with Coder's URL and token in the
 * shell) when that reading finds no daemon online: the fleet reads the daemons only when it wants to
 * start a migration, so with its window full its own reading can say "0/1 busy" long after every
 * daemon went away. A reading that finds daemons online leaves the fleet's own (its window is its).
 */
export function withDaemonsNow(p: FleetPacingStatus, now: ProvisionerCapacity | undefined, readAt: string): FleetPacingStatus {
  if (p.mode !== 'paced' || !now || now.daemons > 0) return p;
  return { ...p, capacity: now, checkedAt: readAt, full: undefined, waiting: paceFleet(now, p.share, p.width).hold };
}

/** How many migrations run at once, in a gate's question: while paced, the concurrency alone overstates it. */
export function windowText(concurrency: number, p: FleetPacingStatus | undefined): string {
  if (!p || p.mode !== 'paced') return `${concurrency} at a time`;
  return `up to ${concurrency} at a time, paced by Coder's provisioners${p.capacity ? `: ${p.width} now` : ''}`;
}

/**
 * What will pace a fleet, said before it starts (the demo's narration), from the daemons it will find:
 * a fixed "N at a time" is wrong whenever the daemons' share, not the concurrency, is the limit.
 */
export function pacingPlanText(plan: { daemons: number; share: number; concurrency: number }): string {
  const slots = pacedWidth(plan.daemons, plan.share, Number.MAX_SAFE_INTEGER);
  const width = Math.min(plan.concurrency, slots * MIGRATIONS_PER_SLOT);
  const share = plan.share === 1 ? 'all of them' : plan.share === 0.5 ? 'half of them' : `${Math.round(plan.share * 100)}% of them`;
  const cap = width === plan.concurrency ? `--concurrency ${plan.concurrency}` : `${MIGRATIONS_PER_SLOT} per daemon of the share; --concurrency ${plan.concurrency} allows more`;
  return (
    `paced by Coder's ${plan.daemons} provisioner daemon(s): our builds keep to ${share} (${slots} at once), ` +
    `up to ${width} migration(s) run at once (${cap}), and none starts while a user's build waits for a daemon`
  );
}
