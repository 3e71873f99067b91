import { CancellationScope, getExternalWorkflowHandle, log, setHandler, workflowInfo } from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/common';
import { outcomeOfFailure, type ChildOutcome, type ChildReport } from '../domain/fleet-progress';
import { childApprovalSignal, childDoneSignal, reportBySignalRequest, type ChildApprovalNote } from '../contracts/fleet-report';
import { withActivityMessage } from './activity-presets';

const FLEET_ID_PREFIX = 'wsmigrate-fleet/';

function fleetParentId(): string | undefined {
  const parent = workflowInfo().parent;
  return parent && parent.workflowId.startsWith(FLEET_ID_PREFIX) ? parent.workflowId : undefined;
}

async function signalFleet<T extends unknown[]>(send: (fleetId: string) => Promise<T | void>): Promise<void> {
  const fleetId = fleetParentId();
  if (!fleetId) return;
  // Even a cancelled migration reports: the fleet must never wait for a child that will not answer.
  await CancellationScope.nonCancellable(async () => {
    try {
      await send(fleetId);
    } catch (err) {
      log.warn('could not report to the fleet (it may have ended)', { fleetId, error: (err as Error).message });
    }
  });
}

/**
 * How one migration reports its end to the fleet that started it (nothing for a migration started by
 * hand). Made at the workflow's start, so a request to signal that arrives at any time is heard.
 */
class FleetReport {
  private bySignal: boolean;

  /** Reads `fleetReport` from the raw input: anything but 'result' (an older fleet, a bad value) means signal. */
  constructor(rawInput: unknown) {
    this.bySignal = (rawInput as { fleetReport?: unknown } | undefined)?.fleetReport !== 'result';
    if (!this.bySignal) setHandler(reportBySignalRequest, () => void (this.bySignal = true));
  }

  /** With 'result', the fleet run that started this child reads the result event: a signal would only add events to both. */
  async done(result: { outcome: ChildOutcome; pvcUidsKept?: number; recovery?: unknown } | undefined, failure?: unknown): Promise<void> {
    if (this.bySignal) await reportToFleet(result, failure);
  }
}

/**
 * Runs one workspace workflow's steps and tells the fleet that started it how they ended: the
 * result, or the failure with the activity's own message (which is also what the run fails with).
 */
export async function reportingToFleet<R extends { outcome: ChildOutcome; pvcUidsKept?: number; recovery?: unknown }>(
  rawInput: unknown,
  steps: () => Promise<R>,
  /** Told of a failure (the one the run ends with, and the error as thrown) before the fleet is. */
  onFailure?: (failure: unknown, err: unknown) => void,
): Promise<R> {
  const report = new FleetReport(rawInput);
  let result: R;
  try {
    result = await steps();
  } catch (err) {
    const failure = withActivityMessage(err);
    onFailure?.(failure, err);
    await report.done(undefined, failure);
    throw failure;
  }
  await report.done(result);
  return result;
}

/** Reports the migration's end to the fleet that started it, by signal (no-op for a migration started by hand). */
async function reportToFleet(result: { outcome: ChildOutcome; pvcUidsKept?: number; recovery?: unknown } | undefined, failure?: unknown): Promise<void> {
  const info = workflowInfo();
  let report: ChildReport;
  if (result) {
    report = { workflowId: info.workflowId, outcome: result.outcome, ...(result.pvcUidsKept !== undefined ? { pvcUidsKept: result.pvcUidsKept } : {}), ...(result.recovery ? { recovered: true } : {}) };
  } else {
    const type = failure instanceof ApplicationFailure ? failure.type : undefined;
    report = { workflowId: info.workflowId, outcome: outcomeOfFailure(type), reason: ((failure as Error)?.message ?? String(failure)).slice(0, 500) };
  }
  report.durationMs = Date.now() - info.startTime.getTime();
  await signalFleet((id) => getExternalWorkflowHandle(id).signal(childDoneSignal, report));
}

/** Tells the fleet a gate of this migration opened or closed, so the fleet's progress lists it. */
export async function noteApprovalToFleet(note: Omit<ChildApprovalNote, 'workflowId'>): Promise<void> {
  await signalFleet((id) => getExternalWorkflowHandle(id).signal(childApprovalSignal, { ...note, workflowId: workflowInfo().workflowId }));
}
