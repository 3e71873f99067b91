import { allHandlersFinished, condition, continueAsNew, patched } from '@temporalio/workflow';
import type { FleetItem } from '../contracts/migrate-fleet';
import { budgetAllowance, budgetBase, finishedCount, nextCanaryIndex, overBudget } from '../domain/fleet-progress';
import { gateDecisionText } from '../domain/gate-decision';
import { fnv1a } from '../domain/fnv1a';
import { countsRecord } from '../domain/fleet-summary';
import { ranCountsOf, rollbacksNote } from '../domain/fleet-rollbacks';
import { askChildrenToSignal, discoverMore, startChildMigration } from './fleet-children';
import type { FleetRun } from './fleet-run';
import type { migrateFleet } from './migrate-fleet';

/**
 * The sliding window of child migrations (Temporal's pattern): at most `width` running, new starts
 * held by a pause, a spent failure budget (which asks a person) or Coder's busy provisioners, and a
 * continue-as-new when the history is full. It never abandons a running migration.
 */
export class SlidingWindow {
  constructor(
    private readonly run: FleetRun,
    /** Whether the pause in force was already announced (a pause carried over from the last run was). */
    private lastPausedNote: boolean,
  ) {}

  /** Starts migrations until cancel, the limit, `maxStarts` canaries, or nothing is left; then returns (running ones go on). */
  async fill(width: number, maxStarts: number | undefined, isCanary: boolean): Promise<void> {
    const { st, input } = this.run;
    for (;;) {
      if (st.paused !== this.lastPausedNote) {
        this.lastPausedNote = st.paused;
        if (st.paused) await this.run.notify({ kind: 'fleet-paused', subject: `Fleet ${this.run.fleetName} paused`, text: `${st.running.length} running migration(s) finish; none starts until resume.`, counts: countsRecord(st.counts) });
      }
      if (st.cancelled) return;
      if (!st.rollbacksNotified) await this.notifyRollbacks();
      if (st.paused) {
        await condition(() => !st.paused || st.cancelled);
        continue;
      }
      if (!isCanary && overBudget(st.counts, input.failureBudget, st.acceptedFailures, st.foundMigrated)) {
        await this.budgetGate();
        continue;
      }
      if (this.run.hitLimit() || (maxStarts !== undefined && st.canary.length >= maxStarts)) return;
      if (st.running.length >= width) {
        const before = finishedCount(st.counts);
        await condition(() => st.running.length < width || st.cancelled || st.paused || finishedCount(st.counts) !== before);
        continue;
      }
      if (st.queue.length === 0) {
        if (st.discoveryDone) return;
        await discoverMore(this.run);
        continue;
      }
      if (!isCanary && this.run.historyFull()) {
        await askChildrenToSignal(this.run);
        await condition(allHandlersFinished);
        st.receipts = [...this.run.gates.receipts];
        await continueAsNew<typeof migrateFleet>(this.run.rawInput, st);
      }
      if (await this.heldByProvisioners(width)) continue;
      const next = isCanary ? nextCanaryIndex(st.queue, st.canary.map((c) => c.subject)) : 0;
      await startChildMigration(this.run, st.queue.splice(next, 1)[0] as FleetItem, isCanary);
    }
  }

  /** Until every running migration has ended. */
  drain(): Promise<void> {
    return condition(() => this.run.st.running.length === 0);
  }

  /** Waits (until a migration ends, or a while when held) when Coder's daemons leave no room for another start. */
  private async heldByProvisioners(width: number): Promise<boolean> {
    const { st, pacer } = this.run;
    const room = await pacer.window(width);
    if (st.running.length < room) return false;
    this.run.refreshDetails();
    const before = finishedCount(st.counts);
    const woken = () => st.cancelled || st.paused || finishedCount(st.counts) !== before;
    const recheckMs = pacer.recheckMs(st.running.length);
    await (recheckMs === undefined ? condition(woken) : condition(woken, recheckMs));
    return true;
  }

  /**
   * Most migrations rolled back: rollbacks spend no budget, so nothing stops the fleet; chat is told
   * once (behind its patch, and only then: a fleet without many rollbacks records no marker).
   */
  private async notifyRollbacks(): Promise<void> {
    const { st, workflowId, fleetName } = this.run;
    const text = rollbacksNote(ranCountsOf(st.counts), workflowId);
    if (!text || !patched('wsmigrate-rollbacks-notified')) return;
    st.rollbacksNotified = true;
    await this.run.notify({ kind: 'fleet-rolling-back', subject: `Fleet ${fleetName}: its migrations keep rolling back`, text, counts: countsRecord(st.counts) });
  }

  /** The failure budget is spent: a person resumes past it (the failures so far accepted) or the fleet cancels. */
  private async budgetGate(): Promise<void> {
    const { st, input, fleetName } = this.run;
    const bad = st.counts.failed + st.counts['needs-attention'];
    const text = `${bad - st.acceptedFailures} migration(s) failed or need attention, more than the budget of ${budgetAllowance(budgetBase(st.counts, st.foundMigrated), input.failureBudget)}; no new migration starts. ${st.running.length} still running. Recent: ${st.failures
      .slice(-3)
      .map((f) => `${f.subject} ${f.outcome}: ${f.reason.slice(0, 120)}`)
      .join(' | ')}`;
    await this.run.notify({ kind: 'fleet-budget-hit', subject: `Fleet ${fleetName}: failure budget spent`, text, counts: countsRecord(st.counts) });
    const decision = await this.run.gates.request('fleet-budget', `budget:${bad}:${fnv1a(st.failures.map((f) => f.workflowId).join(','))}`, `Resume fleet ${fleetName} past its failure budget? ${text}`, true);
    if (decision === 'approved') st.acceptedFailures = bad;
    else this.run.cancel('fleet-budget gate', this.run.gates.lastDecision ? gateDecisionText(this.run.gates.lastDecision) : decision);
    this.run.refreshDetails();
  }
}
