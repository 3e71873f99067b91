import type { ActiveVersionRelease } from '../contracts/migrate-fleet';
import { decideOrphanLock, keeperLine, type KeeperOutcome, type MarkHolder } from '../domain/lock-keeper';
import type { LockHolders } from '../client/lock-holders';
import type { LockMark } from './lock-marks';

/**
 * The lock keeper: a sweep in the worker process (like a controller's reconcile loop, not a
 * workflow) that gives back require_active_version left on by a run that ran no code at its end:
 * terminated, timed out, or whose own give-back failed (Coder down as it ended). For each of
 * wsmigrate's `template-lock` marks it asks Temporal whether any run still holds the template, and
 * gives the setting back through the run's own give-back (which never touches the operator's
 * setting) only when none does. Any doubt leaves the setting on until the next sweep.
 */
export interface LockKeeperDeps {
  /** wsmigrate's marks on templates whose setting is on (coderLockMarks: from Coder, never a list of the whole store). */
  findMarks(): Promise<LockMark[]>;
  holders: LockHolders;
  /** The fleet's give-back (releaseActiveVersion): off only where wsmigrate's mark is. */
  giveBack(input: { organization: string; template: string }): Promise<ActiveVersionRelease>;
  /** `warn` when the setting stays on for a reason a person may need to look at. */
  log(line: string, level: 'info' | 'warn'): void;
  /** Counts a give-back (the wsmigrate_lock_keeper_given_back_total metric). */
  gaveBack?(template: string): void;
  intervalMs: number;
}

export interface LockKeeper {
  /** One pass over every mark; never throws (a failed list is one "unknown" outcome). */
  sweep(): Promise<KeeperOutcome[]>;
  /** Sweeps now and then every interval until `stop`. */
  start(): void;
  stop(): Promise<void>;
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}

export function createLockKeeper(deps: LockKeeperDeps): LockKeeper {
  // One line per template per outcome: a lock held for hours by a running fleet is said once, not every minute.
  const lastSaid = new Map<string, string>();
  const say = (o: KeeperOutcome) => {
    const line = keeperLine(o, Math.round(deps.intervalMs / 1000));
    if (lastSaid.get(o.template) === line) return;
    lastSaid.set(o.template, line);
    deps.log(line, o.outcome === 'given-back' || o.outcome === 'was-off' || o.outcome === 'held' ? 'info' : 'warn');
  };

  async function keep(template: string, workflowIds: readonly string[]): Promise<KeeperOutcome> {
    const [organization, ...rest] = template.split('/');
    const name = rest.join('/');
    if (!organization || !name) return { template, outcome: 'unreadable', what: 'its label is not organization/template' };
    const holders: MarkHolder[] = [];
    for (const id of workflowIds) holders.push(await deps.holders.holder(id));
    // Asked last, just before the give-back: the narrowest gap for a run starting meanwhile.
    const claimants = holders.some((h) => h.state !== 'closed') ? [] : await deps.holders.claimants(organization, name).catch((err: unknown) => ({ error: errorText(err) }));
    const decision = decideOrphanLock({ template, holders, claimants });
    if (decision.action === 'leave') {
      if (decision.because === 'held') return { template, outcome: 'held', by: decision.by };
      if (decision.because === 'unknown') return { template, outcome: 'unknown', error: decision.error };
      return { template, outcome: 'unreadable', what: decision.what };
    }
    try {
      const release = await deps.giveBack({ organization, template: name });
      if (release === 'switched-off') {
        deps.gaveBack?.(template);
        return { template, outcome: 'given-back', why: decision.why };
      }
      if (release === 'was-off') return { template, outcome: 'was-off', why: decision.why };
      // The mark vanished between the list and the give-back (a run's own give-back): the operator's now, left on.
      return { template, outcome: 'held', by: 'the template itself (no mark any more)' };
    } catch (err) {
      return { template, outcome: 'coder-refused', error: errorText(err) };
    }
  }

  async function sweep(): Promise<KeeperOutcome[]> {
    let marks: LockMark[];
    try {
      marks = await deps.findMarks();
    } catch (err) {
      const failed: KeeperOutcome = { template: '(every template)', outcome: 'unknown', error: `wsmigrate's marks could not be looked for: ${errorText(err)}` };
      say(failed);
      return [failed];
    }
    // A template whose mark has gone is said again when a mark comes back.
    for (const t of lastSaid.keys()) if (!marks.some((m) => m.template === t)) lastSaid.delete(t);
    const outcomes: KeeperOutcome[] = [];
    for (const m of marks) {
      const o = await keep(m.template, m.workflowIds);
      say(o);
      outcomes.push(o);
    }
    return outcomes;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    running = sweep().finally(() => {
      running = undefined;
      if (!stopped) timer = setTimeout(tick, deps.intervalMs);
    });
  };
  return {
    sweep,
    start() {
      if (deps.intervalMs <= 0 || timer || running) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
