import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  isCancellation,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WsmigrateActivities } from '../activities';
import type { ActiveVersionLock, ActiveVersionRelease } from '../activities/active-version-lock';
import type { FleetItem } from '../activities/discover-fleet';
import type { Notification } from '../activities/ports';
import type { PendingApproval } from '../domain/approval-policy';
import { migrateFleetInputSchema, type MigrateFleetInput, type MigrateFleetParams } from '../domain/fleet-input';
import {
  budgetAllowance,
  emptyCounts,
  etaMs,
  finishedCount,
  fnv1a,
  formatDuration,
  nextCanaryIndex,
  outcomeOfFailure,
  overBudget,
  type ChildOutcome,
  type ChildReport,
  type FleetCounts,
} from '../domain/fleet-progress';
import { waitsOnPeople } from '../domain/fleet-waits';
import { templateWorkflowId, workspaceWorkflowId, type MigrateWorkspaceInput } from '../domain/migration-input';
import { parseWorkflowInput } from './workflow-input';
import { ApprovalGates, type ApprovalReceipt } from './approval-gates';
import { QUICK_STEP, withActivityMessage } from './activity-presets';
import { childApprovalSignal, childDoneSignal, reportBySignalRequest, type ChildApprovalNote } from './fleet-report';
import { FleetPacer, pacingLine, type FleetPacingStatus } from './fleet-pacing';
import type { migrateWorkspace } from './migrate-workspace';
import { migrateTemplate } from './migrate-template';
import { WsmigratePhase, WsmigrateTemplate } from '../contracts/search-attributes';

export type FleetStage = 'template' | 'canary' | 'canary-gate' | 'rolling' | 'archive' | 'done';
/** Where a fleet stands: the same words in `fleet status`, the WsmigratePhase search attribute and README. */
export type FleetPhase = 'running' | 'awaiting-approval' | 'paused' | 'cancelling' | 'done' | 'cancelled' | 'failed';

export interface RunningChild {
  workflowId: string;
  subject: string;
  startedAtMs: number;
  runId?: string;
  /** It reports by its result event, which only the fleet run that started it sees (else it reports by signal). */
  awaitsResult?: boolean;
}

export interface FleetFailure {
  workflowId: string;
  subject: string;
  outcome: ChildOutcome;
  reason: string;
}

export interface ChildPendingApproval {
  workflowId: string;
  gateId: string;
  since?: string;
  summary?: string;
}

export interface FleetControlEntry {
  action: 'pause' | 'resume' | 'cancel';
  by: string;
  reason?: string;
  at: string;
}

/** Everything a fleet knows, carried from run to run by continue-as-new: ids and counts, never workspace data. */
export interface FleetState {
  stage: FleetStage;
  targetVersionId?: string;
  templateOutcome?: string;
  offset: number;
  /** Where discovery goes on from: the last workspace it listed (owner/name). */
  discoveryCursor?: string;
  discoveryDone: boolean;
  total?: number;
  filteredOut: number;
  queue: FleetItem[];
  running: RunningChild[];
  started: number;
  canary: { workflowId: string; subject: string; outcome?: ChildOutcome }[];
  counts: FleetCounts;
  durations: { totalMs: number; n: number };
  failures: FleetFailure[];
  paused: boolean;
  cancelled: boolean;
  acceptedFailures: number;
  childApprovals: ChildPendingApproval[];
  control: FleetControlEntry[];
  receipts: ApprovalReceipt[];
  startedAt: string;
  runs: number;
  archive?: FleetArchiveResult;
  note?: string;
  zeroTouch?: ZeroTouchReport;
  activeVersionLock?: ActiveVersionLock;
  pacing?: FleetPacingStatus;
}

/** A zero-touch fleet's answer to "who migrated how" (names capped at ZERO_TOUCH_NAMES each). */
export interface ZeroTouchReport {
  /** Found with no deprecated type left, or already built on the zero-touch version: they migrated at a build of their own. */
  migratedThemselves: number;
  /** Running workspaces the fleet started pinned to the zero-touch version (then checked). */
  migratedByRunbook: string[];
  /** Stopped, still unmigrated: each migrates at its next start (the zero-touch version is active). */
  waitingForBuild: string[];
}

const ZERO_TOUCH_NAMES = 500;

export interface FleetArchiveResult {
  archived: { id: string; name: string }[];
  keptInUse: { id: string; name: string; workspaces: number }[];
  skipped?: string;
  /** Once no old version can be built: the template's require_active_version given back (or left, if it was the operator's). */
  activeVersion?: ActiveVersionRelease;
}

export interface FleetSummary {
  migrated: number;
  alreadyMigrated: number;
  restored: number;
  needsAttention: number;
  failed: number;
  skipped: number;
  dryRun: number;
  pvcUidsKept: number;
  /** Of `migrated`: damaged workspaces recovered from their newest good build. */
  recovered: number;
}

export interface FleetProgress {
  workflowId: string;
  organization: string;
  template: string;
  phase: FleetPhase;
  stage: FleetStage;
  dryRun: boolean;
  targetVersionId?: string;
  counts: FleetCounts;
  finished: number;
  filteredOut: number;
  /** Workspaces found by discovery so far that still need migrating (queued + running). */
  remaining: number;
  total?: number;
  running: RunningChild[];
  failures: FleetFailure[];
  pendingApproval?: PendingApproval;
  childApprovals: ChildPendingApproval[];
  etaMs?: number;
  startedAt: string;
  runs: number;
  concurrency: number;
  budget: { allowance: number; failures: number; accepted: number };
  control: FleetControlEntry[];
  approvals: ApprovalReceipt[];
  note?: string;
  /** How Coder's provisioners size the window, and why the fleet waits when it does. */
  pacing?: FleetPacingStatus;
}

export interface FleetResult {
  phase: 'done' | 'cancelled';
  summary: FleetSummary;
  targetVersionId?: string;
  failures: FleetFailure[];
  archive?: FleetArchiveResult;
  zeroTouch?: ZeroTouchReport;
  /** What the fleet did so nobody starts a migrated workspace on an old version meanwhile. */
  activeVersionLock?: ActiveVersionLock;
  /** True when a limit (a maintenance window's batch) or a cancel left workspaces for a later run. */
  moreRemaining: boolean;
  note?: string;
}

export interface FleetControlInput {
  by: string;
  reason?: string;
}

export const fleetProgressQuery = defineQuery<FleetProgress>('progress');
/**
 * The result once the fleet has ended. A cancelled fleet ends as Cancelled in Temporal, which keeps
 * no result for it, so this query (and the memo) is where its summary is read.
 */
export const fleetResultQuery = defineQuery<FleetResult | undefined>('result');
/** Sent to the workflow that started the fleet (an organization's run) just before the fleet ends, with its result. */
export const fleetEndedSignal = defineSignal<[FleetEnded]>('fleetEnded');

export interface FleetEnded {
  workflowId: string;
  result: FleetResult;
}
export const pauseFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('pause');
export const resumeFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('resume');
export const cancelFleetUpdate = defineUpdate<FleetControlEntry, [FleetControlInput]>('cancel');
/** Signal twins of the updates, for the Web UI and `temporal workflow signal`; invalid ones are logged and ignored. */
export const pauseFleetSignal = defineSignal<[FleetControlInput]>('pause');
export const resumeFleetSignal = defineSignal<[FleetControlInput]>('resume');
export const cancelFleetSignal = defineSignal<[FleetControlInput]>('cancel');

const DISCOVERY_PAGE = 200;
const KEEP_FAILURES = 100;
const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);
const slow = proxyActivities<WsmigrateActivities>({ ...QUICK_STEP, startToCloseTimeout: '10m' });

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

export function summaryOf(c: FleetCounts): FleetSummary {
  return {
    migrated: c.migrated,
    alreadyMigrated: c['already-migrated'],
    restored: c.restored,
    needsAttention: c['needs-attention'],
    failed: c.failed,
    skipped: c.skipped,
    dryRun: c['dry-run'],
    pvcUidsKept: c.pvcUidsKept,
    recovered: c.recovered ?? 0,
  };
}

/**
 * A whole template's fleet: (the template) → a canary of K workspaces → the `fleet-continue` gate →
 * the rest through a sliding window of at most C running migrations, each a `migrateWorkspace` child
 * that reports its end by signal. A failure budget stops new starts and asks a human; pause, resume
 * and cancel never abandon a running migration. Continue-as-new keeps each run's history bounded.
 */
export async function migrateFleet(rawInput: MigrateFleetInput, carried?: FleetState): Promise<FleetResult> {
  const seen: LastSeen = {};
  try {
    return await migrateFleetSteps(rawInput, carried, seen);
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The template child's own words ("promotion of … rejected"), not "Child Workflow execution failed".
    const failure =
      err instanceof ChildWorkflowFailure && err.cause instanceof ApplicationFailure
        ? ApplicationFailure.create({ message: `template migration failed, no workspace was touched: ${err.cause.message}`, type: err.cause.type ?? undefined, nonRetryable: true })
        : withActivityMessage(err);
    // A failed fleet must not keep the phase it failed in (e.g. running) for anyone who searches or looks.
    upsertSearchAttributes([{ key: WsmigratePhase, value: 'failed' satisfies FleetPhase }]);
    if (seen.progress) setCurrentDetails(detailsMarkdown({ ...seen.progress, phase: 'failed', etaMs: undefined }, (failure as Error).message));
    throw failure;
  }
}

/** What the fleet last showed, for the details of a fleet that fails. */
interface LastSeen {
  progress?: FleetProgress;
}

async function migrateFleetSteps(rawInput: MigrateFleetInput, carried: FleetState | undefined, seen: LastSeen): Promise<FleetResult> {
  const input: MigrateFleetParams = parseWorkflowInput(migrateFleetInputSchema, rawInput);
  const { workflowId } = workflowInfo();
  const st: FleetState = carried ? { ...carried, runs: carried.runs + 1 } : initialState();
  if (input.zeroTouch && !st.zeroTouch) st.zeroTouch = { migratedThemselves: 0, migratedByRunbook: [], waitingForBuild: [] };
  const fleetName = `${input.organization}/${input.template}`;
  const notify = (n: Omit<Notification, 'workflowId'>) => acts.notify({ ...n, workflowId });
  const gates = new ApprovalGates(input.approval, workflowId, (n) => acts.notify(n), () => refreshDetails());
  gates.receipts.push(...st.receipts);
  const limit = input.filters.limit;
  const pacer = new FleetPacer({ organization: input.organization, template: input.template, share: input.provisionerShare, concurrency: input.concurrency, pacing: input.pacing }, st.pacing);
  st.pacing = pacer.status;

  // ── state helpers ─────────────────────────────────────────────────────
  const phase = (): FleetPhase => {
    if (st.stage === 'done') return st.cancelled ? 'cancelled' : 'done';
    if (awaitingPeople()) return 'awaiting-approval';
    if (st.cancelled) return 'cancelling';
    if (st.paused) return 'paused';
    return 'running';
  };
  const awaitingPeople = () => waitsOnPeople({ ownGate: Boolean(gates.pending), stage: st.stage, running: st.running.length, childrenAtGates: st.childApprovals.length });
  const remaining = () => st.queue.length + st.running.length + (st.discoveryDone ? 0 : Math.max(0, (st.total ?? 0) - st.offset));
  const toFinish = () => (limit === undefined ? remaining() : Math.min(remaining(), limit - st.started + st.running.length));
  const progress = (): FleetProgress => ({
    workflowId,
    organization: input.organization,
    template: input.template,
    phase: phase(),
    stage: st.stage,
    dryRun: input.dryRun,
    targetVersionId: st.targetVersionId,
    counts: { ...st.counts },
    finished: finishedCount(st.counts),
    filteredOut: st.filteredOut,
    remaining: remaining(),
    total: st.total,
    running: st.running.slice(0, 200),
    failures: st.failures.slice(-50),
    pendingApproval: gates.pending,
    childApprovals: st.childApprovals.slice(0, 100),
    // No ETA while a person is awaited (the wait is theirs, not the fleet's), nor once nothing new will start.
    etaMs: awaitingPeople() || st.paused || st.cancelled || st.stage === 'done' ? undefined : etaMs(toFinish(), st.durations, input.concurrency),
    startedAt: st.startedAt,
    runs: st.runs,
    concurrency: input.concurrency,
    budget: { allowance: budgetAllowance(finishedCount(st.counts), input.failureBudget), failures: st.counts.failed + st.counts['needs-attention'], accepted: st.acceptedFailures },
    control: st.control.slice(-20),
    approvals: [...gates.receipts],
    ...(st.note ? { note: st.note } : {}),
    pacing: { ...pacer.status },
  });
  let phaseWritten: FleetPhase | undefined;
  const refreshDetails = () => {
    const p = progress();
    // One vocabulary: the search attribute holds exactly the phase `fleet status` prints, written when it changes.
    if (p.phase !== phaseWritten) {
      phaseWritten = p.phase;
      upsertSearchAttributes([{ key: WsmigratePhase, value: p.phase }]);
    }
    seen.progress = p;
    setCurrentDetails(detailsMarkdown(p));
  };
  const enter = (stage: FleetStage) => {
    st.stage = stage;
    refreshDetails();
  };

  const childDone = (r: ChildReport) => {
    const i = st.running.findIndex((c) => c.workflowId === r.workflowId);
    if (i < 0) return; // a duplicate (signal and result both arrive) or not ours
    const [child] = st.running.splice(i, 1);
    st.counts[r.outcome] += 1;
    if (st.zeroTouch) {
      if (r.outcome === 'already-migrated') st.zeroTouch.migratedThemselves += 1;
      else if (r.outcome === 'migrated' && st.zeroTouch.migratedByRunbook.length < ZERO_TOUCH_NAMES) st.zeroTouch.migratedByRunbook.push(child.subject);
      else if (r.outcome === 'waiting-for-build' && st.zeroTouch.waitingForBuild.length < ZERO_TOUCH_NAMES) st.zeroTouch.waitingForBuild.push(child.subject);
    }
    st.counts.pvcUidsKept += r.pvcUidsKept ?? 0;
    if (r.recovered) st.counts.recovered = (st.counts.recovered ?? 0) + 1;
    const took = r.durationMs ?? Date.now() - child.startedAtMs;
    st.durations.totalMs += took;
    st.durations.n += 1;
    if (r.outcome === 'failed' || r.outcome === 'restored' || r.outcome === 'needs-attention') {
      st.failures.push({ workflowId: r.workflowId, subject: child.subject, outcome: r.outcome, reason: (r.reason ?? '').slice(0, 300) });
      if (st.failures.length > KEEP_FAILURES) st.failures.splice(0, st.failures.length - KEEP_FAILURES);
    }
    const canary = st.canary.find((c) => c.workflowId === r.workflowId);
    if (canary) canary.outcome = r.outcome;
    st.childApprovals = st.childApprovals.filter((a) => a.workflowId !== r.workflowId);
    refreshDetails();
  };

  // ── handlers (set first: an update without a handler is rejected) ────
  let finalResult: FleetResult | undefined;
  // A Temporal cancel request reached this run (the Web UI, `temporal workflow cancel`, or our own ask at the end).
  let cancelRequested = false;
  setHandler(fleetProgressQuery, progress);
  setHandler(fleetResultQuery, () => finalResult);
  setHandler(childDoneSignal, childDone);
  setHandler(childApprovalSignal, (note: ChildApprovalNote) => {
    st.childApprovals = st.childApprovals.filter((a) => a.workflowId !== note.workflowId);
    if (note.pending) st.childApprovals.push({ workflowId: note.workflowId, gateId: note.gateId, since: note.since, summary: note.summary });
    refreshDetails();
  });
  const controlRefusal = (action: FleetControlEntry['action'], c: FleetControlInput): string | undefined => {
    if (!c || typeof c.by !== 'string' || c.by.trim() === '') return `say who you are: {"by": "<name>"}`;
    if (input.approval.approvers.length > 0 && !input.approval.approvers.includes(c.by)) {
      return `'${c.by}' may not ${action} this fleet (allowed: ${input.approval.approvers.join(', ')})`;
    }
    if (st.stage === 'done') return `the fleet has ended; nothing to ${action}`;
    if (st.cancelled) return `the fleet is being cancelled; it starts no new migration and ends when the running ones finish`;
    if (action === 'pause' && st.paused) return 'the fleet is already paused';
    if (action === 'resume' && !st.paused) return 'the fleet is not paused';
    return undefined;
  };
  const control = (action: FleetControlEntry['action'], c: FleetControlInput, channel: 'cli' | 'signal'): FleetControlEntry => {
    const entry: FleetControlEntry = { action, by: c.by, at: new Date().toISOString(), ...(c.reason ? { reason: c.reason.slice(0, 300) } : {}) };
    st.control.push(entry);
    if (st.control.length > 50) st.control.shift();
    if (action === 'pause') st.paused = true;
    if (action === 'resume') st.paused = false;
    if (action === 'cancel') {
      st.cancelled = true;
      st.paused = false;
      // A cancel at the fleet's own gate answers it: waiting for an approval nobody will give ends now.
      gates.rejectPending(c.by, `fleet cancelled${c.reason ? `: ${c.reason}` : ''}`, channel);
    }
    refreshDetails();
    return entry;
  };
  for (const [update, signal, action] of [
    [pauseFleetUpdate, pauseFleetSignal, 'pause'],
    [resumeFleetUpdate, resumeFleetSignal, 'resume'],
    [cancelFleetUpdate, cancelFleetSignal, 'cancel'],
  ] as const) {
    setHandler(update, (c) => control(action, c, 'cli'), {
      validator: (c) => {
        const why = controlRefusal(action, c);
        if (why) throw new Error(why);
      },
    });
    setHandler(signal, (c) => {
      const why = controlRefusal(action, c);
      if (why) return log.warn(`${action} signal ignored`, { reason: why });
      control(action, c, 'signal');
    });
  }

  upsertSearchAttributes([{ key: WsmigrateTemplate, value: input.template }]);
  refreshDetails();
  // From the carried state, not st: a pause sent with the start is applied as soon as its handler is set, and must be announced.
  let lastPausedNote = carried?.paused ?? false;

  // ── names the fleet was given, before anything changes ───────────────
  // Only when there are some: a fleet without owner or exclude filters makes no call here.
  if (!carried && (input.filters.owners.length > 0 || input.filters.exclude.length > 0)) {
    await acts.checkFleetNames({ organization: input.organization, subject: `template ${fleetName}`, filters: input.filters });
  }

  // ── the template first ────────────────────────────────────────────────
  if (st.stage === 'template') {
    if (input.targetVersionId) {
      st.targetVersionId = input.targetVersionId;
    } else {
      const t = await executeChild(migrateTemplate, {
        workflowId: templateWorkflowId(input.organization, input.template),
        args: [{ organization: input.organization, template: input.template, approval: input.approval, dryRun: input.dryRun, allowRemoteModules: input.allowRemoteModules, ...(input.zeroTouch ? { zeroTouch: true } : {}) }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `template ${fleetName} → _v1 (for fleet ${workflowId})`,
      });
      st.templateOutcome = t.outcome;
      if (t.outcome === 'dry-run') {
        st.note = `template dry run: the rewritten version was not pushed, so the workspaces cannot be dry-run against it (pass targetVersionId of a pushed _v1 version). ${t.report.renamedCount} reference(s) would be renamed.`;
        return finish(false);
      }
      st.targetVersionId = t.versionId;
    }
    enter(input.canary > 0 ? 'canary' : 'rolling');
  }
  const targetVersionId = st.targetVersionId as string;
  if (input.requireActiveVersion && !input.dryRun && !st.activeVersionLock && st.stage !== 'done' && st.stage !== 'archive') {
    st.activeVersionLock = await acts.requireActiveVersion({ organization: input.organization, template: input.template, workflowId });
    if (st.activeVersionLock.state === 'refused' || st.activeVersionLock.state === 'not-held') {
      const what = st.activeVersionLock.state === 'refused' ? `Coder refused to make template ${fleetName} require its active version` : `require active version does not hold on template ${fleetName}`;
      const why = `${what} (${st.activeVersionLock.reason}). Archiving does not stop it either: until every workspace is migrated, anyone who builds a migrated workspace on an old version destroys its PVC. Tell users not to pick an old version; 'wsmigrate scan' finds a workspace built that way.`;
      st.note = st.note ? `${st.note} ${why}` : why;
      log.warn('old versions stay buildable by members while the fleet runs', { template: fleetName });
      refreshDetails();
    }
  }

  // ── discovery and children ────────────────────────────────────────────
  async function discoverMore(): Promise<void> {
    const page = await acts.discoverFleetPage({
      organization: input.organization,
      template: input.template,
      targetVersionId,
      filters: input.filters,
      offset: st.offset,
      ...(st.discoveryCursor !== undefined ? { after: st.discoveryCursor } : {}),
      pageSize: DISCOVERY_PAGE,
    });
    const known = new Set(st.running.map((r) => r.workflowId));
    st.queue.push(...page.items.filter((i) => !known.has(workspaceWorkflowId(input.template, i.owner, i.workspace))));
    st.counts.skipped += page.alreadyDone + page.heldForAttention.length;
    // Already on the zero-touch version: built by their owners since it was promoted.
    if (st.zeroTouch) st.zeroTouch.migratedThemselves += page.alreadyDone;
    for (const h of page.heldForAttention) {
      st.failures.push({
        workflowId: workspaceWorkflowId(input.template, h.owner, h.workspace),
        subject: `${h.owner}/${h.workspace}`,
        outcome: 'needs-attention',
        reason: 'skipped: its last migration ended needs-attention; restore it by hand (wsmigrate state restore …), then run the fleet again',
      });
    }
    st.filteredOut += page.filteredOut;
    st.offset = page.nextOffset;
    if (page.cursor !== undefined) st.discoveryCursor = page.cursor;
    st.total = page.total;
    st.discoveryDone = page.exhausted;
    refreshDetails();
  }

  async function startNext(item: FleetItem, isCanary: boolean): Promise<void> {
    const childId = workspaceWorkflowId(input.template, item.owner, item.workspace);
    const subject = `${item.owner}/${item.workspace}`;
    // Registered before the start: a quick child's report may arrive in the same activation as its start.
    st.running.push({ workflowId: childId, subject, startedAtMs: Date.now() });
    st.started += 1;
    if (isCanary) st.canary.push({ workflowId: childId, subject });
    const childInput: MigrateWorkspaceInput = {
      owner: item.owner,
      workspace: item.workspace,
      template: input.template,
      targetVersionId,
      option: input.option,
      strategy: input.strategy,
      dryRun: input.dryRun,
      buildTimeout: input.buildTimeout,
      ...(input.heartbeatTimeout ? { heartbeatTimeout: input.heartbeatTimeout } : {}),
      approval: {
        policy: input.workspaceApproval.policy,
        approvers: input.approval.approvers,
        // Without it, a fleet started with --any-approver and no list would start children nobody can approve.
        anyApprover: input.approval.anyApprover,
        timeout: input.workspaceApproval.timeout ?? input.approval.timeout,
        escalateTo: input.approval.escalateTo,
      },
      // Children report by their result event, not also by a signal: about a tenth of a migration's events.
      fleetReport: 'result' as const,
    };
    try {
      // Non-cancellable: cancelling the fleet must never cancel a migration half-way.
      const handle = await CancellationScope.nonCancellable(() => startChild<typeof migrateWorkspace>(input.zeroTouch ? 'zeroTouchWorkspace' : 'migrateWorkspace', {
        workflowId: childId,
        args: [childInput],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [{ key: WsmigrateTemplate, value: input.template }],
        staticSummary: `${subject} → ${input.template} @ ${targetVersionId.slice(0, 8)}${input.zeroTouch ? ' (zero-touch)' : ''}${input.dryRun ? ' (dry run)' : ''} · fleet ${fleetName}${isCanary ? ' · canary' : ''}`,
      }));
      const running = st.running.find((c) => c.workflowId === childId);
      if (running) Object.assign(running, { runId: handle.firstExecutionRunId, awaitsResult: true });
      // The Web UI's "running" column counts it now, not only once some migration ends.
      refreshDetails();
      // In this run the result arrives as an event; children from earlier runs report by signal.
      void handle.result().then(
        // A zeroTouchWorkspace child answers with the same fields, plus 'waiting-for-build'.
        (r) => childDone({ workflowId: childId, outcome: r.outcome as ChildOutcome, pvcUidsKept: r.pvcUidsKept, ...('recovery' in r && r.recovery ? { recovered: true } : {}) }),
        (err) => {
          const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
          childDone({ workflowId: childId, outcome: outcomeOfFailure(cause instanceof ApplicationFailure ? cause.type : undefined), reason: (cause as Error)?.message ?? String(err) });
        },
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        // Another run (a second window, a migration by hand) has it now: not ours to count twice.
        st.running = st.running.filter((c) => c.workflowId !== childId);
        st.canary = st.canary.filter((c) => c.workflowId !== childId);
        st.counts.skipped += 1;
        refreshDetails();
        return;
      }
      childDone({ workflowId: childId, outcome: 'failed', reason: `could not start: ${(err as Error).message}` });
    }
  }

  const hitLimit = () => limit !== undefined && st.started >= limit;
  const historyFull = () => workflowInfo().historyLength >= input.historyLimit || workflowInfo().continueAsNewSuggested;

  async function budgetGate(): Promise<void> {
    const bad = st.counts.failed + st.counts['needs-attention'];
    const text = `${bad - st.acceptedFailures} migration(s) failed or need attention, more than the budget of ${budgetAllowance(finishedCount(st.counts), input.failureBudget)}; no new migration starts. ${st.running.length} still running. Recent: ${st.failures
      .slice(-3)
      .map((f) => `${f.subject} ${f.outcome}: ${f.reason.slice(0, 120)}`)
      .join(' | ')}`;
    await notify({ kind: 'fleet-budget-hit', subject: `Fleet ${fleetName}: failure budget spent`, text, counts: countsRecord(st.counts) });
    const decision = await gates.request('fleet-budget', `budget:${bad}:${fnv1a(st.failures.map((f) => f.workflowId).join(','))}`, `Resume fleet ${fleetName} past its failure budget? ${text}`, true);
    if (decision === 'approved') st.acceptedFailures = bad;
    else {
      st.cancelled = true;
      st.control.push({ action: 'cancel', by: 'fleet-budget gate', reason: decision, at: new Date().toISOString() });
    }
    refreshDetails();
  }

  /** The sliding window: at most `width` running; stops on cancel, limit, `maxStarts`, or when nothing is left. */
  async function runWindow(width: number, maxStarts: number | undefined, isCanary: boolean): Promise<void> {
    for (;;) {
      if (st.paused !== lastPausedNote) {
        lastPausedNote = st.paused;
        if (st.paused) await notify({ kind: 'fleet-paused', subject: `Fleet ${fleetName} paused`, text: `${st.running.length} running migration(s) finish; none starts until resume.`, counts: countsRecord(st.counts) });
      }
      if (st.cancelled) return;
      if (st.paused) {
        await condition(() => !st.paused || st.cancelled);
        continue;
      }
      if (!isCanary && overBudget(st.counts, input.failureBudget, st.acceptedFailures)) {
        await budgetGate();
        continue;
      }
      if (hitLimit() || (maxStarts !== undefined && st.canary.length >= maxStarts)) return;
      if (st.running.length >= width) {
        const before = finishedCount(st.counts);
        await condition(() => st.running.length < width || st.cancelled || st.paused || finishedCount(st.counts) !== before);
        continue;
      }
      if (st.queue.length === 0) {
        if (st.discoveryDone) return;
        await discoverMore();
        continue;
      }
      if (!isCanary && historyFull()) {
        await askChildrenToSignal();
        await condition(allHandlersFinished);
        st.receipts = [...gates.receipts];
        await continueAsNew<typeof migrateFleet>(rawInput, st);
      }
      if (await heldByProvisioners(width)) continue;
      const next = isCanary ? nextCanaryIndex(st.queue, st.canary.map((c) => c.subject)) : 0;
      await startNext(st.queue.splice(next, 1)[0] as FleetItem, isCanary);
    }
  }

  /** Waits a while (or until a migration ends) when Coder's daemons leave no room for another start. */
  async function heldByProvisioners(width: number): Promise<boolean> {
    const room = await pacer.window(width);
    if (st.running.length < room) return false;
    refreshDetails();
    const before = finishedCount(st.counts);
    await condition(() => st.cancelled || st.paused || finishedCount(st.counts) !== before, pacer.recheckMs());
    return true;
  }

  /**
   * Before continue-as-new: the next run will not see the result events of children this run started,
   * so each is asked to signal its end instead. A child that can no longer be signalled has ended, and
   * its result event reaches this run, which waits for it; waiting is never wrong, only slower.
   */
  async function askChildrenToSignal(): Promise<void> {
    const unreachable: string[] = [];
    await Promise.all(
      st.running
        .filter((c) => c.awaitsResult)
        .map(async (c) => {
          try {
            await getExternalWorkflowHandle(c.workflowId, c.runId).signal(reportBySignalRequest);
            c.awaitsResult = false;
          } catch {
            unreachable.push(c.workflowId);
          }
        }),
    );
    await condition(() => st.running.every((c) => !unreachable.includes(c.workflowId)));
  }

  const drain = () => condition(() => st.running.length === 0);

  try {
    await canaryRestAndArchive();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Temporal's own cancel (Web UI, `temporal workflow cancel`) is a fleet cancel: nothing new starts,
    // and the running migrations (started in non-cancellable scopes) finish or restore on their own.
    st.cancelled = true;
    cancelRequested = true;
    gates.pending = undefined;
    st.control.push({ action: 'cancel', by: 'temporal cancel request', at: new Date().toISOString() });
    return await CancellationScope.nonCancellable(async () => {
      await drain();
      return finish(moreRemains());
    });
  }
  return finish(moreRemains());

  async function canaryRestAndArchive(): Promise<void> {
    // ── canary ────────────────────────────────────────────────────────────
    if (st.stage === 'canary') {
      await runWindow(Math.min(input.concurrency, input.canary), input.canary, true);
      await drain();
      enter('canary-gate');
    }
    if (st.stage === 'canary-gate') {
      const moreToDo = !st.cancelled && !hitLimit() && (st.queue.length > 0 || !st.discoveryDone);
      if (st.canary.length > 0) {
        const lines = st.canary.map((c) => `${c.subject}: ${c.outcome ?? '?'}`).join('; ');
        const ok = st.canary.filter((c) => c.outcome === 'migrated' || c.outcome === 'already-migrated' || c.outcome === 'dry-run' || c.outcome === 'waiting-for-build').length;
        const text = `Canary: ${ok} of ${st.canary.length} ok (${lines}).`;
        await notify({ kind: 'fleet-canary-done', subject: `Fleet ${fleetName}: canary done`, text, counts: countsRecord(st.counts) });
        if (moreToDo) {
          const decision = await gates.request(
            'fleet-continue',
            `canary:${fnv1a(lines)}`,
            `${text} Continue fleet ${fleetName} with the rest, ${input.concurrency} at a time? PVC uids kept so far: ${st.counts.pvcUidsKept}.`,
          );
          if (decision === 'rejected' || decision === 'timed-out') {
            st.cancelled = true;
            st.control.push({ action: 'cancel', by: 'fleet-continue gate', reason: decision, at: new Date().toISOString() });
          }
        }
      }
      enter('rolling');
    }

    // ── the rest ──────────────────────────────────────────────────────────
    if (st.stage === 'rolling') {
      await runWindow(input.concurrency, undefined, false);
      await drain();
      enter('archive');
    }

    // ── archive the pre-migration versions ────────────────────────────────
    if (st.stage === 'archive') {
      st.archive = await archiveOldVersions();
    }
  }

  function moreRemains(): boolean {
    return st.queue.length > 0 || !st.discoveryDone;
  }

  async function archiveOldVersions(): Promise<FleetArchiveResult | undefined> {
    const allDone = !st.cancelled && !moreRemains() && st.counts.failed + st.counts.restored + st.counts['needs-attention'] === 0;
    if (!input.archiveOldVersions) return undefined;
    if (input.dryRun) return { archived: [], keptInUse: [], skipped: 'dry run' };
    if (!allDone) return { archived: [], keptInUse: [], skipped: 'not every workspace is migrated yet' };
    const plan = await slow.planVersionArchive({ organization: input.organization, template: input.template, targetVersionId });
    if (plan.versions.length === 0) {
      return { archived: [], keptInUse: plan.inUse, skipped: 'no unused old version', ...(await releaseIfNoOldVersionLeft(plan.inUse.length)) };
    }
    const names = plan.versions.map((v) => v.name).join(', ');
    const decision = await gates.request(
      'fleet-archive',
      `versions:${fnv1a(plan.versions.map((v) => v.id).join(','))}`,
      `Archive ${plan.versions.length} old version(s) of ${fleetName} that no workspace uses (${names}), so nobody can build a migrated workspace with the deprecated types (that destroys its PVC).` +
        (plan.inUse.length ? ` Kept, still in use: ${plan.inUse.map((v) => `${v.name} (${v.workspaces})`).join(', ')}.` : ''),
    );
    if (decision !== 'approved' && decision !== 'not-required') return { archived: [], keptInUse: plan.inUse, skipped: `archive ${decision}` };
    const done = await slow.archiveTemplateVersions({ template: input.template, versionIds: plan.versions.map((v) => v.id) });
    const byId = new Map(plan.versions.map((v) => [v.id, v]));
    const keptInUse = [...plan.inUse, ...done.keptInUse.map((id) => ({ id, name: byId.get(id)?.name ?? id, workspaces: 1 }))];
    return {
      archived: done.archived.map((id) => byId.get(id) ?? { id, name: id }),
      keptInUse,
      ...(await releaseIfNoOldVersionLeft(keptInUse.length)),
    };
  }

  /** Only once no old version can be built is the template's setting given back; an old version in use keeps it on. */
  async function releaseIfNoOldVersionLeft(inUse: number): Promise<{ activeVersion?: ActiveVersionRelease }> {
    if (inUse > 0) return {};
    const activeVersion = await acts.releaseActiveVersion({ organization: input.organization, template: input.template });
    // The result's lock says how the run ends, not how it began: never "switched-on" beside "switched-off".
    if (activeVersion === 'switched-off') st.activeVersionLock = { state: 'given-back' };
    return { activeVersion };
  }

  async function finish(moreRemaining: boolean): Promise<FleetResult> {
    st.stage = 'done';
    const summary = summaryOf(st.counts);
    const result: FleetResult = {
      phase: st.cancelled ? 'cancelled' : 'done',
      summary,
      ...(st.targetVersionId ? { targetVersionId: st.targetVersionId } : {}),
      failures: st.failures,
      ...(st.archive ? { archive: st.archive } : {}),
      ...(st.zeroTouch ? { zeroTouch: st.zeroTouch } : {}),
      ...(st.activeVersionLock ? { activeVersionLock: st.activeVersionLock } : {}),
      moreRemaining,
      ...(st.note ? { note: st.note } : {}),
    };
    // Fields, not JSON in a string: the Web UI and `temporal workflow describe` show each one.
    upsertMemo({ outcome: result.phase, ...summary });
    refreshDetails();
    await notify({
      kind: 'fleet-done',
      subject: `Fleet ${fleetName} ${result.phase}`,
      text: `${summary.migrated} migrated${summary.recovered ? ` (${summary.recovered} of them recovered from a damaged state)` : ''}, ${summary.alreadyMigrated} already migrated, ${summary.restored} restored, ${summary.needsAttention} need attention, ${summary.failed} failed, ${summary.skipped} skipped; ${summary.pvcUidsKept} PVC uid(s) kept.${moreRemaining ? ' More workspaces remain for a later run.' : ''}`,
      counts: countsRecord(st.counts),
    });
    await condition(allHandlersFinished);
    finalResult = result;
    if (result.phase === 'cancelled') return endAsCancelled(result);
    return result;
  }

  /**
   * A cancelled fleet ends as Cancelled, so the Web UI's badge and `ExecutionStatus` say what the
   * search attribute and memo say, whoever cancelled it (its update or signal, a rejected gate,
   * Temporal's own cancel). Temporal ends a run so only after a cancel request, hence the ask.
   */
  async function endAsCancelled(result: FleetResult): Promise<never> {
    const parent = workflowInfo().parent;
    await CancellationScope.nonCancellable(async () => {
      if (parent) {
        await getExternalWorkflowHandle(parent.workflowId, parent.runId)
          .signal(fleetEndedSignal, { workflowId, result })
          .catch((err: unknown) => log.warn('the fleet could not tell its parent how it ended', { parent: parent.workflowId, error: String(err) }));
      }
      if (!cancelRequested) await acts.requestCancellation({ workflowId, runId: workflowInfo().runId });
    });
    if (!cancelRequested) {
      await condition(() => cancelRequested).catch((err: unknown) => {
        if (!isCancellation(err)) throw err;
      });
    }
    const by = [...st.control].reverse().find((c) => c.action === 'cancel');
    throw new CancelledFailure(`fleet ${fleetName} cancelled${by ? ` by ${by.by}${by.reason ? ` (${by.reason})` : ''}` : ''}`);
  }
}

function countsRecord(c: FleetCounts): Record<string, number> {
  return { ...c };
}

/** The fleet as the Web UI shows it (setCurrentDetails): progress table, pending gate, failures. */
export function detailsMarkdown(p: FleetProgress, failure?: string): string {
  const c = p.counts;
  const cancel = p.phase === 'cancelled' || p.phase === 'cancelling' ? p.control.find((c) => c.action === 'cancel') : undefined;
  const phase = p.phase === 'cancelled' ? 'CANCELLED' : p.phase === 'failed' ? `FAILED (during ${p.stage})` : `${p.phase} (${p.stage})`;
  const lines = [
    `### Fleet ${p.organization}/${p.template} · ${phase}${cancel ? ` by ${cancel.by}${cancel.reason ? ` (${cancel.reason})` : ''}` : ''}${p.dryRun ? ' · dry run' : ''}`,
    '',
    ...(failure ? [`**Failed:** ${failure}`, ''] : []),
    '| migrated | already | restored | needs attention | failed | skipped | running | to go (with running) | PVC uids kept |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${c.migrated} | ${c['already-migrated']} | ${c.restored} | ${c['needs-attention']} | ${c.failed} | ${c.skipped} | ${p.running.length} | ${p.remaining} | ${c.pvcUidsKept} |`,
    '',
    `target version: \`${p.targetVersionId ?? '(template first)'}\` · concurrency ${p.concurrency} · budget ${p.budget.failures - p.budget.accepted}/${p.budget.allowance}${p.etaMs !== undefined ? ` · ETA ${formatDuration(p.etaMs)}` : ''} · run ${p.runs}`,
  ];
  if (p.pendingApproval) {
    lines.push(
      '',
      `**Waiting for approval: \`${p.pendingApproval.gateId}\`** — ${p.pendingApproval.summary}`,
      '',
      `\`wsmigrate approve ${p.workflowId} --approver <you>\``,
      '',
      `signal \`approval\`: \`${JSON.stringify({ gateId: p.pendingApproval.gateId, planHash: p.pendingApproval.planHash, approver: '<you>', decision: 'approve' })}\``,
    );
  }
  if (p.childApprovals.length) lines.push('', `Migrations waiting for approval: ${p.childApprovals.slice(0, 10).map((a) => `\`${a.workflowId}\` (${a.gateId})`).join(', ')}`);
  if (p.failures.length) {
    lines.push('', '**Failures**', '');
    for (const f of p.failures.slice(-10)) lines.push(`- \`${f.subject}\` ${f.outcome}: ${f.reason.slice(0, 200)}`);
  }
  if (p.pacing) lines.push('', pacingLine(p.pacing));
  if (p.note) lines.push('', p.note);
  return lines.join('\n');
}
