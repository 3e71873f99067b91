import { CancellationScope, condition, isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { LatestBuild } from '../activities/latest-build';
import type { GateId } from '../domain/approval-policy';
import { builtBy } from '../domain/build-initiator';
import type { ApprovalGates, GateResult } from './approval-gates';

/** How long a gate waits before it first asks Coder whether someone built the workspace, and at most between asks. */
const GATE_RECHECK_FIRST_MS = 10_000;
const GATE_RECHECK_MAX_MS = 15 * 60_000;

/** The patch of a gate's watch whose reads run to their end (see answerWatchingBuilds). */
const readsEndPatch = (patchId: string): string => `${patchId}-reads-end`;

/**
 * A gate that asks for a build planned on one build of a workspace. The plan's build carries its
 * own state (coderd/wsbuilder/wsbuilder.go `State`: the new build runs on exactly those bytes, not
 * on the latest build's), so once anyone builds the workspace under the gate (the owner's Update or
 * Start, Coder's autostart or autostop: coderd/autobuild/lifecycle_executor.go) the plan describes
 * a workspace that no longer exists.
 */
export interface WatchedGate {
  gates: ApprovalGates;
  /** Local or not, as the caller's other quick reads. */
  acts: Pick<ReturnType<typeof proxyActivities<WsmigrateActivities>>, 'readLatestBuild'>;
  /** Each gate its own patch: runs begun before it replay without the watch's timers and reads. */
  patchId: string;
  gateId: GateId;
  workspaceId: string;
  subject: string;
  /** The build the plan was made on: the one backed up. */
  plannedOn: number;
  /** What approving does once the plan is stale ("approving builds nothing on this plan: …"). */
  approving: string;
}

/**
 * Waits for the answer to `asked` (a request of `w.gateId` just made). While that gate waits (not
 * merely let through by the policy), a build newer than the plan amends its summary, wherever an
 * approver reads it, to say so and what each answer does now.
 */
export async function answerWatchingBuilds(asked: Promise<GateResult>, w: WatchedGate): Promise<GateResult> {
  if (w.gates.pending?.gateId !== w.gateId) return await asked;
  // Never cancel a local activity that may be out: when the answer and the watch's timer reach the run in one
  // task, the watch's read and the gate's notice run side by side, and a cancel of the read sent after its
  // result reached Temporal's core fails the workflow task ("[TMPRL1100] Invalid transition in state machine":
  // sdk-core local_activity_state_machine.rs has no cancel once the result is in). The watch ends by itself
  // once the gate is answered, after the read in flight: what the answer starts needs Coder as much as it does.
  if (patched(readsEndPatch(w.patchId))) {
    const watching = noteBuildsUnderGate(w, () => CancellationScope.nonCancellable(() => readLatest(w)), 'next-recheck');
    const answer = await asked;
    await watching;
    return answer;
  }
  // Runs begun before: their watch, cancelled with the answer, as it was.
  const scope = patched(w.patchId) ? new CancellationScope() : undefined;
  const watching = scope?.run(() => noteBuildsUnderGate(w, () => readLatest(w), 'stop-watching'));
  const answer = await asked;
  // A read still retrying (Coder down) must not hold up what the decision starts.
  scope?.cancel();
  await watching;
  return answer;
}

const readLatest = (w: WatchedGate): Promise<LatestBuild> =>
  w.acts.readLatestBuild.executeWithOptions({ summary: `has anyone built ${w.subject} since the plan at the ${w.gateId} gate?` }, [{ workspaceId: w.workspaceId, subject: w.subject }]);

/**
 * Rechecks back off (each is a timer and a read in the history). Best effort: a read that fails
 * leaves the gate as it was; the build step checks the latest build again before it writes.
 */
async function noteBuildsUnderGate(w: WatchedGate, read: () => Promise<LatestBuild>, afterFailedRead: 'next-recheck' | 'stop-watching'): Promise<void> {
  const waiting = () => w.gates.pending?.gateId === w.gateId;
  try {
    for (let waitMs = GATE_RECHECK_FIRST_MS; ; waitMs = Math.min(2 * waitMs, GATE_RECHECK_MAX_MS)) {
      if (await condition(() => !waiting(), waitMs)) return;
      if (afterFailedRead === 'next-recheck' && !waiting()) return;
      let latest: LatestBuild;
      try {
        latest = await read();
      } catch (err) {
        if (afterFailedRead === 'stop-watching' || isCancellation(err)) throw err;
        log.warn(`could not check the workspace under the ${w.gateId} gate; checking again at the next recheck`, { subject: w.subject, error: (err as Error).message });
        continue;
      }
      if (!waiting()) return;
      if (latest.buildNumber > w.plannedOn) return await w.gates.amendPending(changedUnderGate(latest, w));
    }
  } catch (err) {
    if (!isCancellation(err)) log.warn(`could not check the workspace under the ${w.gateId} gate`, { subject: w.subject, error: (err as Error).message });
  }
}

/** What the approver must know once the plan under the gate is stale: whose build, and what approve and reject do now. */
export function changedUnderGate(latest: LatestBuild, w: Pick<WatchedGate, 'plannedOn' | 'approving'>): string {
  const build = `build #${latest.buildNumber} (${latest.transition} on ${latest.templateVersionName ?? latest.templateVersionId.slice(0, 8)}, ${latest.jobStatus} when seen, by ${builtBy(latest)})`;
  if (latest.transition === 'delete') {
    // The build step and the next round's preflight refuse a deleted workspace: neither answer builds anything.
    return `THE WORKSPACE WAS DELETED SINCE THIS PLAN: ${build} came after build #${w.plannedOn}, the one backed up and planned. This plan will not be applied: approving or rejecting builds nothing on it, and the run ends naming the delete.`;
  }
  return `THE WORKSPACE CHANGED SINCE THIS PLAN: ${build} came after build #${w.plannedOn}, the one backed up and planned. This plan will not be applied; ${w.approving}. Rejecting leaves their build as it is.`;
}
