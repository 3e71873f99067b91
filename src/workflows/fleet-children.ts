import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WsmigrateActivities } from '../activities';
import type { FleetItem, FleetSkip } from '../contracts/migrate-fleet';
import { dormantSkipReason } from '../domain/dormancy';
import { FailureType } from '../domain/failure-types';
import { outcomeOfFailure, takenByAnotherRunReason, type ChildOutcome, type ChildReport } from '../domain/fleet-progress';
import { FLEET_REASON_CHARS } from '../domain/fleet-details';
import { workspaceWorkflowId, type MigrateWorkspaceInput } from '../domain/migration-input';
import { WsmigrateTemplate } from '../contracts/search-attributes';
import { QUICK_STEP } from './activity-presets';
import { reportBySignalRequest, type ChildApprovalNote } from '../contracts/fleet-report';
import type { FleetRun } from './fleet-run';
import type { migrateWorkspace } from './migrate-workspace';

const DISCOVERY_PAGE = 200;
const KEEP_FAILURES = 100;
const ZERO_TOUCH_NAMES = 500;
const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

/** A child's end, counted once (its signal and its result may both arrive). */
export function recordChildEnd(run: FleetRun, r: ChildReport): void {
  const st = run.st;
  const i = st.running.findIndex((c) => c.workflowId === r.workflowId);
  if (i < 0) return; // a duplicate (signal and result both arrive) or not ours
  const [child] = st.running.splice(i, 1);
  st.counts[r.outcome] = (st.counts[r.outcome] ?? 0) + 1;
  if (st.zeroTouch) {
    if (r.outcome === 'already-migrated') st.zeroTouch.migratedThemselves += 1;
    else if (r.outcome === 'migrated' && st.zeroTouch.migratedByRunbook.length < ZERO_TOUCH_NAMES) st.zeroTouch.migratedByRunbook.push(child.subject);
    else if (r.outcome === 'waiting-for-build' && st.zeroTouch.waitingForBuild.length < ZERO_TOUCH_NAMES) st.zeroTouch.waitingForBuild.push(child.subject);
  }
  st.counts.pvcUidsKept += r.pvcUidsKept ?? 0;
  if (r.recovered) st.counts.recovered = (st.counts.recovered ?? 0) + 1;
  if (r.outcome === 'skipped') {
    // Its preflight found it running and dormant (made dormant since discovery): nothing was stopped; not a migration's time.
    st.counts.dormant = (st.counts.dormant ?? 0) + 1;
    addSkip(st, { workflowId: r.workflowId, subject: child.subject, reason: (r.reason ?? '').slice(0, 500) });
  } else if (r.outcome === 'declined') {
    // A person's no (or a gate nobody answered): listed apart from the failures, and its wait for a
    // person (hours, days) is not the fleet's pace, so it stays out of the ETA.
    st.declines = [...(st.declines ?? []), { workflowId: r.workflowId, subject: child.subject, reason: (r.reason ?? '').slice(0, FLEET_REASON_CHARS) }].slice(-KEEP_FAILURES);
  } else {
    const took = r.durationMs ?? Date.now() - child.startedAtMs;
    st.durations.totalMs += took;
    st.durations.n += 1;
  }
  if (r.outcome === 'failed' || r.outcome === 'restored' || r.outcome === 'needs-attention') {
    st.failures.push({ workflowId: r.workflowId, subject: child.subject, outcome: r.outcome, reason: (r.reason ?? '').slice(0, FLEET_REASON_CHARS) });
    if (st.failures.length > KEEP_FAILURES) st.failures.splice(0, st.failures.length - KEEP_FAILURES);
  }
  const canary = st.canary.find((c) => c.workflowId === r.workflowId);
  if (canary) canary.outcome = r.outcome;
  st.childApprovals = st.childApprovals.filter((a) => a.workflowId !== r.workflowId);
  run.refreshDetails();
}

function addSkip(st: FleetRun['st'], skip: FleetSkip): void {
  st.skips = [...(st.skips ?? []), skip].slice(-KEEP_FAILURES);
}

/** A child's gate opened or closed: the fleet's progress lists the migrations waiting for a person. */
export function noteChildApproval(run: FleetRun, note: ChildApprovalNote): void {
  const st = run.st;
  st.childApprovals = st.childApprovals.filter((a) => a.workflowId !== note.workflowId);
  if (note.pending) st.childApprovals.push({ workflowId: note.workflowId, gateId: note.gateId, since: note.since, summary: note.summary, ...(note.approvers ? { approvers: note.approvers.slice(0, 200) } : {}) });
  run.refreshDetails();
}

/** The next page of the template's workspaces into the queue (those held for attention counted, not queued). */
export async function discoverMore(run: FleetRun): Promise<void> {
  const { st, input } = run;
  const page = await acts.discoverFleetPage({
    organization: input.organization,
    template: input.template,
    targetVersionId: st.targetVersionId as string,
    filters: input.filters,
    offset: st.offset,
    ...(st.discoveryCursor !== undefined ? { after: st.discoveryCursor } : {}),
    pageSize: DISCOVERY_PAGE,
  });
  const known = new Set(st.running.map((r) => r.workflowId));
  st.queue.push(...page.items.filter((i) => !known.has(workspaceWorkflowId(input.template, i.owner, i.workspace))));
  if (patched('wsmigrate-found-migrated-counted')) {
    // Already migrated (on the target version, healthy): what their own migration would answer, so
    // counted as it would be; they never ran here, so they do not widen the failure budget.
    st.counts['already-migrated'] += page.alreadyDone;
    st.foundMigrated = (st.foundMigrated ?? 0) + page.alreadyDone;
    st.counts.skipped += page.heldForAttention.length;
  } else {
    st.counts.skipped += page.alreadyDone + page.heldForAttention.length;
  }
  // Already on the zero-touch version: built by their owners since it was promoted.
  if (st.zeroTouch) st.zeroTouch.migratedThemselves += page.alreadyDone;
  for (const h of page.heldForAttention) {
    st.failures.push({
      workflowId: workspaceWorkflowId(input.template, h.owner, h.workspace),
      subject: `${h.owner}/${h.workspace}`,
      outcome: 'needs-attention',
      reason: h.dormant
        ? `skipped: its last migration ended needs-attention because Coder made it dormant after the migration's stop (it is stopped, its state and PVC kept): its owner or an admin makes it active, then run 'wsmigrate migrate workspace ${h.owner}/${h.workspace}' by hand; the fleet holds it until then`
        : 'skipped: its last migration ended needs-attention; restore it by hand (wsmigrate state restore …), then run the fleet again',
    });
  }
  // Running and dormant: never stopped or built; skipped with who must act (older activities' pages have none).
  for (const d of page.dormant ?? []) {
    st.counts.skipped += 1;
    st.counts.dormant = (st.counts.dormant ?? 0) + 1;
    addSkip(st, { workflowId: workspaceWorkflowId(input.template, d.owner, d.workspace), subject: `${d.owner}/${d.workspace}`, reason: dormantSkipReason(d.id, d.since, { ...(d.ownerSuspended ? { owner: { name: d.owner, suspended: true } } : {}), ...(d.deletingAt ? { deletingAt: d.deletingAt } : {}) }) });
  }
  st.filteredOut += page.filteredOut;
  // Older activities' pages have no count; older runs' state has no counter.
  if (page.prebuilt) st.counts.prebuilt = (st.counts.prebuilt ?? 0) + page.prebuilt;
  st.offset = page.nextOffset;
  if (page.cursor !== undefined) st.discoveryCursor = page.cursor;
  st.total = page.total;
  st.discoveryDone = page.exhausted;
  run.refreshDetails();
}

/** Starts one workspace's migration as an abandoned child; its end is counted by `recordChildEnd`. */
export async function startChildMigration(run: FleetRun, item: FleetItem, isCanary: boolean): Promise<void> {
  const { st, input, fleetName } = run;
  const targetVersionId = st.targetVersionId as string;
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
    const handle = await CancellationScope.nonCancellable(() =>
      startChild<typeof migrateWorkspace>(input.zeroTouch ? 'zeroTouchWorkspace' : 'migrateWorkspace', {
        workflowId: childId,
        args: [childInput],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [{ key: WsmigrateTemplate, value: input.template }],
        staticSummary: `${subject} → ${input.template} @ ${targetVersionId.slice(0, 8)}${input.zeroTouch ? ' (zero-touch)' : ''}${input.dryRun ? ' (dry run)' : ''} · fleet ${fleetName}${isCanary ? ' · canary' : ''}`,
      }),
    );
    const running = st.running.find((c) => c.workflowId === childId);
    if (running) Object.assign(running, { runId: handle.firstExecutionRunId, awaitsResult: true });
    // The Web UI's "running" column counts it now, not only once some migration ends.
    run.refreshDetails();
    // In this run the result arrives as an event; children from earlier runs report by signal.
    void handle.result().then(
      // A zeroTouchWorkspace child answers with the same fields, plus 'waiting-for-build'.
      (r) => recordChildEnd(run, { workflowId: childId, outcome: r.outcome as ChildOutcome, pvcUidsKept: r.pvcUidsKept, ...('recovery' in r && r.recovery ? { recovered: true } : {}) }),
      (err) => {
        const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
        const type = cause instanceof ApplicationFailure ? cause.type : undefined;
        // A gate's no counted declined, apart from the failure budget; fleets recorded before count it failed, as they did.
        const declinedApart = type !== FailureType.rejected || patched('wsmigrate-declined-apart');
        recordChildEnd(run, { workflowId: childId, outcome: outcomeOfFailure(type, declinedApart), reason: (cause as Error)?.message ?? String(err) });
      },
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      // Another run (a second window, a migration by hand) has it now: not ours to count twice. Named with
      // where to look: a bare count left the SRE with a fleet 'done' and no word of which workspace it left out.
      st.running = st.running.filter((c) => c.workflowId !== childId);
      st.canary = st.canary.filter((c) => c.workflowId !== childId);
      st.counts.skipped += 1;
      addSkip(st, { workflowId: childId, subject, reason: takenByAnotherRunReason(childId) });
      run.refreshDetails();
      return;
    }
    recordChildEnd(run, { workflowId: childId, outcome: 'failed', reason: `could not start: ${(err as Error).message}` });
  }
}

/**
 * Before continue-as-new: the next run will not see the result events of children this run started,
 * so each is asked to signal its end instead. A child that can no longer be signalled has ended, and
 * its result event reaches this run, which waits for it; waiting is never wrong, only slower.
 */
export async function askChildrenToSignal(run: FleetRun): Promise<void> {
  const unreachable: string[] = [];
  await Promise.all(
    run.st.running
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
  await condition(() => run.st.running.every((c) => !unreachable.includes(c.workflowId)));
}
