import { ApplicationFailure, log, patched, setHandler } from '@temporalio/workflow';
import {
  cancelFleetSignal,
  cancelFleetUpdate,
  pauseFleetSignal,
  pauseFleetUpdate,
  resumeFleetSignal,
  resumeFleetUpdate,
  type FleetControlEntry,
  type FleetControlInput,
} from '../contracts/migrate-fleet';
import type { FleetRun } from './fleet-run';
import { lockToRetake, retakeLockAtResume } from './fleet-lock-retake';

/** Why a pause, resume or cancel is refused (who may send it, and whether it means anything now); undefined when accepted. */
function controlRefusal(run: FleetRun, action: FleetControlEntry['action'], c: FleetControlInput): string | undefined {
  const { st, input } = run;
  if (!c || typeof c.by !== 'string' || c.by.trim() === '') return `say who you are: {"by": "<name>"}`;
  if (input.approval.approvers.length > 0 && !input.approval.approvers.includes(c.by)) {
    return `'${c.by}' may not ${action} this fleet (allowed: ${input.approval.approvers.join(', ')})`;
  }
  if (st.stage === 'done') return `the fleet has ended; nothing to ${action}`;
  if (st.cancelled) return `the fleet is being cancelled; it starts no new migration and ends when the running ones finish`;
  if (action === 'pause' && st.paused) return 'the fleet is already paused';
  if (action === 'resume' && !st.paused) return 'the fleet is not paused';
  if (action === 'resume' && run.resuming) return 'a resume is under way (it switches require_active_version on again first)';
  return undefined;
}

/**
 * A resume after a rollback takes require_active_version again first (fleet-lock-retake.ts); while
 * the target is still not the active version the fleet stays paused: the update is refused with why,
 * a signal is logged and ignored (a signal handler that throws would fail the fleet).
 */
async function resumeTakingLock(run: FleetRun, c: FleetControlInput, channel: 'cli' | 'signal'): Promise<FleetControlEntry> {
  run.resuming = true;
  let outcome;
  try {
    outcome = await retakeLockAtResume(run, c.by);
  } finally {
    run.resuming = false;
  }
  if (!outcome.resume) {
    if (channel === 'cli') throw ApplicationFailure.create({ message: outcome.why, type: 'WsmigrateRefused', nonRetryable: true });
    // A signal (an organization run's resume, `temporal workflow signal`) has nobody to answer: the note says it.
    const what = `The resume by ${c.by} (${new Date().toISOString()}) was not applied: ${outcome.why}.`;
    run.addNote(what);
    run.refreshDetails();
    log.warn('resume signal ignored', { reason: outcome.why });
    return { action: 'resume', by: c.by, at: new Date().toISOString(), reason: `ignored: ${outcome.why}`.slice(0, 300) };
  }
  // Cancelled or ended while Coder was asked: nothing to resume.
  if (run.st.cancelled || run.st.stage === 'done') return { action: 'resume', by: c.by, at: new Date().toISOString(), reason: 'ignored: the fleet was cancelled meanwhile' };
  return applyControl(run, 'resume', c, channel);
}

function applyControl(run: FleetRun, action: FleetControlEntry['action'], c: FleetControlInput, channel: 'cli' | 'signal'): FleetControlEntry {
  const st = run.st;
  const entry: FleetControlEntry = { action, by: c.by, at: new Date().toISOString(), ...(c.reason ? { reason: c.reason.slice(0, 300) } : {}) };
  st.control.push(entry);
  if (st.control.length > 50) st.control.shift();
  if (action === 'pause') st.paused = true;
  if (action === 'resume') st.paused = false;
  if (action === 'cancel') {
    st.cancelled = true;
    st.paused = false;
    // A cancel at the fleet's own gate answers it: waiting for an approval nobody will give ends now.
    run.gates.rejectPending(c.by, `fleet cancelled${c.reason ? `: ${c.reason}` : ''}`, channel);
  }
  run.refreshDetails();
  return entry;
}

type ControlAction = FleetControlEntry['action'];

/**
 * Pause, resume and cancel, each as an update (validated: the caller learns a refusal) and as a
 * signal twin (a refusal is logged and ignored): for a fleet and for an organization run alike.
 */
export function handleControls(
  refusal: (action: ControlAction, c: FleetControlInput) => string | undefined,
  apply: (action: ControlAction, c: FleetControlInput, channel: 'cli' | 'signal') => FleetControlEntry | Promise<FleetControlEntry>,
): void {
  for (const [update, signal, action] of [
    [pauseFleetUpdate, pauseFleetSignal, 'pause'],
    [resumeFleetUpdate, resumeFleetSignal, 'resume'],
    [cancelFleetUpdate, cancelFleetSignal, 'cancel'],
  ] as const) {
    setHandler(update, (c) => apply(action, c, 'cli'), {
      validator: (c) => {
        const why = refusal(action, c);
        if (why) throw new Error(why);
      },
    });
    setHandler(signal, (c) => {
      const why = refusal(action, c);
      if (why) return log.warn(`${action} signal ignored`, { reason: why });
      const applied = apply(action, c, 'signal');
      return applied instanceof Promise ? applied.then(() => undefined) : undefined;
    });
  }
}

/** A fleet's controls; none of them abandons a running migration. */
export function handleFleetControls(run: FleetRun): void {
  handleControls(
    (action, c) => controlRefusal(run, action, c),
    (action, c, channel) =>
      // Runs that resumed before the retake replay as they ran.
      action === 'resume' && lockToRetake(run) && patched('wsmigrate-lock-retake-at-resume') ? resumeTakingLock(run, c, channel) : applyControl(run, action, c, channel),
  );
}
