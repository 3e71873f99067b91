import { proxyActivities, setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { Notification } from '../activities/ports';
import { detailsMarkdown } from '../domain/fleet-details';
import { budgetAllowance, budgetBase, emptyCounts, etaMs, finishedCount } from '../domain/fleet-progress';
import type { MigrateFleetInput, MigrateFleetParams } from '../domain/fleet-input';
import { waitsOnPeople } from '../domain/fleet-waits';
import { WsmigratePhase } from '../contracts/search-attributes';
import { QUICK_STEP } from './activity-presets';
import { ApprovalGates } from './approval-gates';
import { FleetPacer } from './fleet-pacing';
import type { FleetPhase, FleetProgress, FleetResult, FleetStage, FleetState } from '../contracts/migrate-fleet';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

function initialState(): FleetState {
  return {
    stage: 'template',
    offset: 0,
    discoveryDone: false,
    filteredOut: 0,
    queue: [],
    running: [],
    started: 0,
    canary: [],
    counts: emptyCounts(),
    durations: { totalMs: 0, n: 0 },
    failures: [],
    paused: false,
    cancelled: false,
    acceptedFailures: 0,
    childApprovals: [],
    control: [],
    receipts: [],
    startedAt: new Date().toISOString(),
    runs: 1,
  };
}

/**
 * One run of a fleet: its input, the state it carries across continue-as-new, its gates and pacer,
 * and how it shows itself (progress query, WsmigratePhase, the Web UI's details). The window, the
 * controls and the archive all work on it.
 */
export class FleetRun {
  readonly workflowId = workflowInfo().workflowId;
  readonly st: FleetState;
  readonly fleetName: string;
  readonly gates: ApprovalGates;
  readonly pacer: FleetPacer;
  /** The result once the fleet has ended (its result query: a cancelled fleet keeps no result in Temporal). */
  finalResult: FleetResult | undefined;
  /** A Temporal cancel request reached this run (the Web UI, `temporal workflow cancel`, or the fleet's own ask at its end). */
  cancelRequested = false;
  /**
   * The watch has said that the active version is not the target (and paused the fleet): it says so
   * once per rollback. Cleared when it reads the target again, or when a resume takes the setting
   * again (src/workflows/fleet-lock-retake.ts), so that a later rollback is said, paused and given back again.
   */
  rolledBackSaid = false;
  /** A resume is taking require_active_version again: a second one waits for its answer. */
  resuming = false;
  private phaseWritten: FleetPhase | undefined;

  constructor(
    readonly rawInput: MigrateFleetInput,
    readonly input: MigrateFleetParams,
    carried?: FleetState,
  ) {
    const st: FleetState = carried ? { ...carried, runs: carried.runs + 1 } : initialState();
    if (input.zeroTouch && !st.zeroTouch) st.zeroTouch = { migratedThemselves: 0, migratedByRunbook: [], waitingForBuild: [] };
    this.st = st;
    this.fleetName = `${input.organization}/${input.template}`;
    this.gates = new ApprovalGates(input.approval, this.workflowId, (n) => acts.notify(n), () => this.refreshDetails());
    this.gates.receipts.push(...st.receipts);
    this.pacer = new FleetPacer({ organization: input.organization, template: input.template, share: input.provisionerShare, concurrency: input.concurrency, pacing: input.pacing }, st.pacing);
    st.pacing = this.pacer.status;
  }

  notify(n: Omit<Notification, 'workflowId'>): Promise<unknown> {
    return acts.notify({ ...n, workflowId: this.workflowId });
  }

  phase(): FleetPhase {
    const st = this.st;
    if (st.stage === 'done') return st.cancelled ? 'cancelled' : 'done';
    if (this.awaitingPeople()) return 'awaiting-approval';
    if (st.cancelled) return 'cancelling';
    if (st.paused) return 'paused';
    return 'running';
  }

  private awaitingPeople(): boolean {
    return waitsOnPeople({ ownGate: Boolean(this.gates.pending), stage: this.st.stage, running: this.st.running.length, childrenAtGates: this.st.childApprovals.length });
  }

  /** Adds a sentence to the run's note (what its status, summary and Web UI details end with). */
  addNote(text: string): void {
    this.st.note = this.st.note ? `${this.st.note} ${text}` : text;
  }

  /** After a rollback was said: the target was read as the active version again (by the watch, or a resume's take). */
  noteTargetActiveAgain(target: string): void {
    if (!this.rolledBackSaid) return;
    this.rolledBackSaid = false;
    this.addNote(`Since ${new Date().toISOString()} the migrated version ${target} is the active version again.`);
  }

  private remaining(): number {
    const st = this.st;
    return st.queue.length + st.running.length + (st.discoveryDone ? 0 : Math.max(0, (st.total ?? 0) - st.offset));
  }

  private toFinish(): number {
    const limit = this.input.filters.limit;
    return limit === undefined ? this.remaining() : Math.min(this.remaining(), limit - this.st.started + this.st.running.length);
  }

  progress(): FleetProgress {
    const { st, input, gates, pacer } = this;
    return {
      workflowId: this.workflowId,
      organization: input.organization,
      template: input.template,
      phase: this.phase(),
      stage: st.stage,
      dryRun: input.dryRun,
      targetVersionId: st.targetVersionId,
      counts: { ...st.counts },
      finished: finishedCount(st.counts),
      filteredOut: st.filteredOut,
      remaining: this.remaining(),
      total: st.total,
      running: st.running.slice(0, 200),
      failures: st.failures.slice(-50),
      ...(st.skips?.length ? { skips: st.skips.slice(-50) } : {}),
      ...(st.declines?.length ? { declines: st.declines.slice(-50) } : {}),
      pendingApproval: gates.pending,
      childApprovals: st.childApprovals.slice(0, 100),
      // No ETA while a person is awaited (the wait is theirs, not the fleet's), nor once nothing new will start.
      etaMs: this.awaitingPeople() || st.paused || st.cancelled || st.stage === 'done' ? undefined : etaMs(this.toFinish(), st.durations, input.concurrency),
      startedAt: st.startedAt,
      runs: st.runs,
      concurrency: input.concurrency,
      budget: { allowance: budgetAllowance(budgetBase(st.counts, st.foundMigrated), input.failureBudget), failures: st.counts.failed + st.counts['needs-attention'], accepted: st.acceptedFailures },
      control: st.control.slice(-20),
      namesChecked: st.namesChecked === true,
      approvals: [...gates.receipts],
      ...(st.note ? { note: st.note } : {}),
      pacing: { ...pacer.status },
      ...(st.activeVersionLock ? { activeVersionLock: st.activeVersionLock } : {}),
    };
  }

  refreshDetails(): void {
    const p = this.progress();
    // One vocabulary: the search attribute holds exactly the phase `fleet status` prints, written when it changes.
    if (p.phase !== this.phaseWritten) {
      this.phaseWritten = p.phase;
      upsertSearchAttributes([{ key: WsmigratePhase, value: p.phase }]);
    }
    setCurrentDetails(detailsMarkdown(p));
  }

  enter(stage: FleetStage): void {
    this.st.stage = stage;
    this.refreshDetails();
  }

  hitLimit(): boolean {
    const limit = this.input.filters.limit;
    return limit !== undefined && this.st.started >= limit;
  }

  historyFull(): boolean {
    return workflowInfo().historyLength >= this.input.historyLimit || workflowInfo().continueAsNewSuggested;
  }

  moreRemains(): boolean {
    return this.st.queue.length > 0 || !this.st.discoveryDone;
  }

  /** A cancel, recorded in the control log (pause/resume/cancel by people, gates and Temporal alike). */
  cancel(by: string, reason?: string): void {
    this.st.cancelled = true;
    this.st.control.push({ action: 'cancel', by, ...(reason !== undefined ? { reason } : {}), at: new Date().toISOString() });
  }
}
