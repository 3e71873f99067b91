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
  const daemons = c ? `${c.busy}/${c.daemons} daemon(s) busy, ${c.usersQueued} users' job(s) queued${age}` : 'daemons not read yet';
  return `paced: window ${p.width} (share ${p.share} of the online daemons) · ${daemons}${p.full && !p.waiting ? ' · our builds fill the share: the next start waits for one to end' : ''}${p.waiting ? ` · **waiting**: ${p.waiting}` : ''}`;
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
