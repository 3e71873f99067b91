import { CancellationScope, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { QUICK_STEP, failureMessage } from './activity-presets';
import type { FleetRun } from './fleet-run';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

/** Whether a resume must take require_active_version again: the watch gave it back at a rollback, and the run goes on. */
export function lockToRetake(run: FleetRun): boolean {
  const { st, input } = run;
  const lock = st.activeVersionLock;
  return lock?.state === 'given-back' && lock.rolledBack === true && input.requireActiveVersion && !input.dryRun && st.stage !== 'done' && !st.archive;
}

/** What the resume does after the take: go on, or stay paused because the target is still not the active version. */
export type RetakeOutcome = { resume: true } | { resume: false; why: string };

/**
 * The fleet's resume after a rollback (the watch gave wsmigrate's require_active_version back and
 * paused the fleet): the setting is taken again, the same way the run took it first
 * (requireActiveVersion: wsmigrate's mark naming this run, which the worker's lock keeper reads, then
 * the setting, read back), so migrated workspaces are held again for the rest of the run and given
 * back as it ends. Only while the active version is the fleet's target: with the setting on and an
 * old version active, Coder's autostart and members' starts build that old version on migrated
 * workspaces (coderd/autobuild/lifecycle_executor.go useActiveVersion) and destroy their PVCs. The
 * activity reads the active version first and declines otherwise; then the fleet stays paused and the
 * resume is refused, saying to promote the target first. At resume, not when the watch sees the
 * target active again: an operator's word that the rollback is over, read against Coder as it is
 * given, and before the window starts another migration (the watch reads only once a minute, and a
 * paused fleet has nothing to hold members for that the operator has not chosen).
 */
export async function retakeLockAtResume(run: FleetRun, by: string): Promise<RetakeOutcome> {
  const { st, input, fleetName } = run;
  const target = st.targetVersionId;
  if (!target) return { resume: true };
  const ask = () => acts.requireActiveVersion({ organization: input.organization, template: input.template, workflowId: run.workflowId, targetVersionId: target });
  let lock;
  try {
    // Not cancellable: a cancel while Coder switches it on must still leave the run knowing, to give it back as it ends.
    lock = await CancellationScope.nonCancellable(ask);
  } catch (err) {
    if (isCancellation(err)) throw err;
    const what = `wsmigrate could not switch require_active_version on again on template ${fleetName} as ${by} resumed the fleet (${failureMessage(err).slice(0, 200)}): the fleet goes on without it, as on a Coder without Premium; a member's build of an old version on a migrated workspace destroys its PVC. Pause and resume again to retry.`;
    run.addNote(what);
    log.warn('require_active_version was not taken again at resume', { template: fleetName, error: failureMessage(err) });
    return { resume: true };
  }
  if (lock.state === 'declined') {
    // The given-back state stays: the next resume takes it again.
    return { resume: false, why: `the fleet stays paused: ${lock.reason.replace(/ \(then a later run switches it on\)$/, '')}, then resume the fleet` };
  }
  const now = new Date().toISOString();
  // Switched on: Coder's active version was read as the target just now (the watch may not have read it yet).
  if (lock.state === 'switched-on') run.noteTargetActiveAgain(target);
  st.activeVersionLock = lock;
  const what =
    lock.state === 'switched-on'
      ? `require_active_version switched on again as ${by} resumed the fleet (${now}); given back as the run ends.`
      : lock.state === 'already-on'
        ? `require_active_version was on already as ${by} resumed the fleet (${now})${lock.byWsmigrate ? '' : ", by the operator's choice: left on after the run"}.`
        : `require_active_version could not be switched on again as ${by} resumed the fleet (${'reason' in lock ? lock.reason : lock.state}): a member's build of an old version on a migrated workspace destroys its PVC.`;
  run.addNote(what);
  // The run ended while Coder switched it on (a cancel): its own give-back found nothing to give, so it is given here.
  if (st.stage === 'done' && lock.state === 'switched-on') {
    await CancellationScope.nonCancellable(() => acts.releaseActiveVersion({ organization: input.organization, template: input.template, heldByThisRun: true })).then(
      () => (st.activeVersionLock = { state: 'given-back', atRunEnd: true }),
      (err: unknown) => log.warn('require_active_version taken at resume was not given back at the end of the run', { template: fleetName, error: failureMessage(err) }),
    );
  }
  return { resume: true };
}
