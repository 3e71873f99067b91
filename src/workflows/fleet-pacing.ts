import { log, proxyLocalActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { FleetPacingStatus } from '../domain/provisioner-pacing';
import { QUICK_LOCAL_STEP } from './activity-presets';

export { pacingLine, type FleetPacingStatus } from '../domain/provisioner-pacing';

/** How old a reading may be before the next start reads the daemons again. */
export const PACING_REFRESH_MS = 5_000;
/** While held (users' builds queued, no daemon online), the daemons are read again this often: a user's build takes seconds, not minutes. */
export const PACING_HOLD_RECHECK_MS = 1_000;
/**
 * While our own builds fill the share, a migration's end is reason enough to read again once the
 * reading is this old: its builds are over, so a daemon may be free, and waiting out the full hold
 * left it idle with nothing queued.
 */
export const PACING_FULL_RECHECK_MS = 250;

const local = proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP);

/**
 * The fleet's window, sized from Coder's provisioners: a share of the online daemons, never more
 * than `concurrency`, none while users' own builds are queued. One local activity per reading
 * (one marker event), at most every PACING_REFRESH_MS while the fleet wants to start migrations.
 */
export class FleetPacer {
  readonly status: FleetPacingStatus;
  private lastReadMs: number | undefined;

  constructor(
    private readonly params: { organization: string; template: string; share: number; concurrency: number; pacing: 'provisioners' | 'off' },
    carried?: FleetPacingStatus,
  ) {
    const mode = params.pacing === 'off' ? 'off' : (carried?.mode ?? 'paced');
    this.status = carried && carried.mode === mode ? { ...carried, share: params.share } : { mode, share: params.share, width: params.concurrency };
    if (mode !== 'paced') this.status.width = params.concurrency;
  }

  /** The window to use now (reads the daemons first when the last reading is stale). */
  async window(limit: number): Promise<number> {
    if (this.status.mode !== 'paced') return limit;
    const maxAge = this.status.waiting ? PACING_HOLD_RECHECK_MS : this.status.full ? PACING_FULL_RECHECK_MS : PACING_REFRESH_MS;
    if (this.lastReadMs === undefined || Date.now() - this.lastReadMs >= maxAge) await this.read();
    return this.status.mode === 'paced' ? Math.min(limit, this.status.waiting || this.status.full ? 0 : this.status.width) : limit;
  }

  /**
   * How long to wait before asking again: soon while users' builds are queued or no daemon is online.
   * Otherwise only a migration's end makes room worth a new reading, so no timer (a timer is two
   * history events and an action per wait; a daemon that comes online is seen at the next end, when the
   * reading is stale): when the window is as wide as the daemons allow and full of running migrations,
   * and when our own builds fill the share while migrations run (their next end reads again, see
   * PACING_FULL_RECHECK_MS). With none running, our share is full of builds that are not this fleet's
   * (another run's, a template import), and only a timer reads again.
   */
  recheckMs(running: number): number | undefined {
    if (this.status.waiting) return PACING_HOLD_RECHECK_MS;
    return this.status.full && running === 0 ? PACING_HOLD_RECHECK_MS : undefined;
  }

  private async read(): Promise<void> {
    const reading = await local.readProvisionerCapacity({
      organization: this.params.organization,
      template: this.params.template,
      share: this.params.share,
      concurrency: this.params.concurrency,
    });
    this.lastReadMs = Date.now();
    this.status.checkedAt = new Date().toISOString();
    if (!reading.known) {
      this.status.mode = 'fallback';
      this.status.width = this.params.concurrency;
      this.status.waiting = undefined;
      this.status.full = undefined;
      this.status.fallback = `${reading.reason}: the fleet runs up to its concurrency of ${this.params.concurrency} without looking at the daemons`;
      log.warn('fleet pacing falls back to concurrency', { template: this.params.template, reason: reading.reason });
      return;
    }
    this.status.capacity = reading.capacity;
    this.status.width = reading.decision.width;
    this.status.waiting = reading.decision.hold;
    this.status.full = reading.decision.full;
  }
}
