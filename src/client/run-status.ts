import type { Client } from '@temporalio/client';
import { rethrowNoRun } from './run-not-found';
import { FailureType } from '../contracts/failures';
import { isEndingPhase } from '../domain/phase-note';
import { terminatedRunLines } from '../domain/terminated-run';
import type { PendingApproval } from '../domain/approval-policy';
import { migrationStatus, type MigrationStatus } from './migrations';
import { runOutcome, type RunOutcome } from './run-outcome';
import { activityWaits, describeQueryError, noWorkerText, queuedBuildWait, taskQueueWorkers } from './run-waits';
import { failingWorkflowTask, failingWorkflowTaskText } from './workflow-task-failure';

/** Coder, when the shell has CODER_URL and a token: lets status say a build waits in Coder's queue. */
export interface StatusCoder {
  workspaceByOwnerAndName(owner: string, name: string): Promise<{ latest_build: NonNullable<Parameters<typeof queuedBuildWait>[1]> & { template_version_name?: string } }>;
}

/** What `wsmigrate status` shows: the run's own status where a worker answers, and what Temporal says of the run. */
export interface RunStatus {
  workflowId: string;
  /**
   * The run's phase; `failed`, `cancelled`, `terminated` or `timed-out` once Temporal says it ended so,
   * and `declined` once a gate ended it without a yes (a person rejected it, or nobody answered in time).
   */
  phase: string;
  /** The phase it was in when it ended without completing. */
  lastPhase?: string;
  run: RunOutcome;
  stepsDone?: string[];
  verdict?: { verdict: string; summary: string };
  pendingApproval?: PendingApproval;
  error?: string;
  /** Everything the run's status query answered (absent when no worker answers). */
  detail?: MigrationStatus;
  /** What a running run waits on that is no gate: no worker on its task queue, a step being retried, a step whose worker went quiet. */
  waitingOn?: string[];
  /** A workspace run Temporal terminated or timed out (its compensation never ran): what it left, and what to do. */
  left?: string[];
}

/** A run's status: a failed run says failed and why, even when its last query still names the step it failed in. */
export async function runStatus(client: Client, workflowId: string, coder?: StatusCoder): Promise<RunStatus> {
  const run: RunOutcome = await runOutcome(client, workflowId).catch(rethrowNoRun(workflowId));
  const ended = run.state !== 'running' && run.state !== 'completed';
  const waitingOn: string[] = [];
  let searchPhase: string | undefined;
  let gateWithoutWorker: string | undefined;
  let noWorker = false;
  let polling: string[] = [];
  if (run.state === 'running') {
    // A query waits for a worker; with none on the task queue it hangs, then says only DEADLINE_EXCEEDED.
    // Ask Temporal who polls first, and read what it knows of the run without a worker.
    const d = await client.workflow.getHandle(workflowId).describe();
    searchPhase = (d.searchAttributes?.WsmigratePhase as string[] | undefined)?.[0];
    const gate = (d.searchAttributes?.WsmigratePendingApproval as string[] | undefined)?.[0];
    const workers = await taskQueueWorkers(client, d.taskQueue).catch(() => undefined);
    polling = workers?.live ?? [];
    if (workers && workers.live.length === 0) {
      noWorker = true;
      waitingOn.push(noWorkerText(workers));
    } else {
      // A worker polls but fails the run's workflow tasks: its query would only hang, then blame no worker.
      const failing = await failingWorkflowTask(client, workflowId, d.raw.pendingWorkflowTask, d.raw.executionConfig?.defaultWorkflowTaskTimeout).catch(() => undefined);
      if (failing) {
        noWorker = true;
        waitingOn.push(failingWorkflowTaskText(failing, polling));
      }
    }
    waitingOn.push(...activityWaits(d.raw.pendingActivities ?? []));
    // wsmigrate/<template>/<owner>/<workspace>: a workspace run whose build may sit in Coder's queue.
    const parts = workflowId.split('/');
    if (coder && parts.length === 4 && parts[0] === 'wsmigrate' && (d.raw.pendingActivities ?? []).length > 0) {
      const subject = `${parts[2]}/${parts[3]}`;
      const ws = await coder.workspaceByOwnerAndName(parts[2], parts[3]).catch(() => undefined);
      const queued = queuedBuildWait(subject, ws?.latest_build);
      if (queued) waitingOn.push(queued);
    }
    // Without a worker the gate it waits at (and who may decide) cannot be read, but Temporal keeps its
    // name: the run waits on a person too, whose decision only a running worker takes.
    if (noWorker && gate && gate !== 'none') {
      gateWithoutWorker = gate;
      waitingOn.push(`and on a person: it waits at the '${gate}' gate (search attribute WsmigratePendingApproval); once a worker runs, 'wsmigrate status ${workflowId}' names who may approve, and 'wsmigrate approve ${workflowId} --approver <you>' decides`);
    }
  }
  // An ended run's query needs a worker; its outcome does not, so the reason is shown either way.
  const detail = noWorker
    ? undefined
    : await migrationStatus(client, workflowId).catch((err: unknown) => {
        if (ended) return undefined;
        if (run.state === 'running') {
          const who = polling.length ? ` (polling it lately: ${polling.join(', ')}; a worker killed in the last minute still shows)` : '';
          waitingOn.unshift(`no worker answered the run's status query (${describeQueryError(err)})${who}: if no 'wsmigrate worker' runs on this task queue, start one; the run resumes where it stopped`);
          return undefined;
        }
        throw err;
      });
  const phase = detail?.phase ?? (run.state === 'running' ? (gateWithoutWorker ? 'awaiting-approval' : searchPhase) : undefined);
  // A gate answered no (rejected, or unanswered until its time-out): a person's decision, not a failure.
  // The step it waited in says nothing ("during preflight"); what was undone after it does ("restored").
  const declined = run.state === 'failed' && run.failureType === FailureType.rejected;
  const endedIn = declined ? (phase && isEndingPhase(phase) ? phase : undefined) : phase;
  const left = run.state === 'terminated' || run.state === 'timed-out' ? await leftByTerminatedRun(workflowId, run.state, detail, coder) : undefined;
  return {
    workflowId,
    phase: ended ? (declined ? 'declined' : run.state) : (phase ?? run.state),
    ...(ended && endedIn && endedIn !== run.state ? { lastPhase: endedIn } : {}),
    run,
    ...(detail && 'stepsDone' in detail ? { stepsDone: detail.stepsDone } : {}),
    ...(detail && 'verdict' in detail && detail.verdict ? { verdict: detail.verdict } : {}),
    ...(detail?.pendingApproval && !ended ? { pendingApproval: detail.pendingApproval } : {}),
    ...(detail && 'error' in detail && detail.error ? { error: detail.error } : {}),
    ...(detail ? { detail } : {}),
    ...(waitingOn.length ? { waitingOn } : {}),
    ...(left ? { left } : {}),
  };
}

/** What a terminated or timed-out workspace run left: from its last status, and Coder's latest build when the shell reads Coder. */
async function leftByTerminatedRun(workflowId: string, how: 'terminated' | 'timed-out', detail: MigrationStatus | undefined, coder: StatusCoder | undefined): Promise<string[] | undefined> {
  // wsmigrate/<template>/<owner>/<workspace>: a migration or a recovery; fleets and templates say their own.
  const parts = workflowId.split('/');
  if (parts.length !== 4 || parts[0] !== 'wsmigrate') return undefined;
  const ws = detail && 'stepsDone' in detail && 'approvals' in detail ? detail : undefined;
  const latest = coder ? (await coder.workspaceByOwnerAndName(parts[2]!, parts[3]!).catch(() => undefined))?.latest_build : undefined;
  return terminatedRunLines({
    subject: `${parts[2]}/${parts[3]}`,
    template: parts[1]!,
    how,
    ...(ws ? { lastPhase: ws.phase, stepsDone: ws.stepsDone, ...(ws.backup ? { backupRef: ws.backup.ref } : {}) } : {}),
    ...(latest ? { latest } : {}),
  });
}

