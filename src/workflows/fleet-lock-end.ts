import { CancellationScope, isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { QUICK_STEP, failureMessage } from './activity-presets';
import type { FleetRun } from './fleet-run';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);

/**
 * As a fleet run ends, whatever the ending (done, done with failures, a batch's limit, cancelled,
 * failed), wsmigrate's require_active_version is given back. Held between runs (a schedule's windows,
 * a run that stopped short) nothing would watch the active version: an admin's rollback would then
 * make Coder's autostart build the old version on every migrated workspace's `_v1` state
 * (coderd/autobuild/lifecycle_executor.go useActiveVersion) and destroy its PVC, and every unmigrated
 * workspace's autostart would fail on the new version's guard until the next window. The next run
 * switches it on again. Not at continue-as-new (the run goes on), nor on a worker's crash (it replays).
 * The operator's own setting (on before wsmigrate, no mark) stays on. Never fails the fleet.
 */
export async function giveBackLockAtEnd(run: FleetRun): Promise<void> {
  const { st, input, fleetName } = run;
  const lock = st.activeVersionLock;
  const ours = lock?.state === 'switched-on' || (lock?.state === 'already-on' && lock.byWsmigrate);
  if (!ours || input.dryRun) return;
  if (!patched('wsmigrate-lock-give-back-at-end')) return;
  // A cancel arriving now must not leave the setting on with no run left to give it back.
  await CancellationScope.nonCancellable(async () => {
    try {
      const release = await acts.releaseActiveVersion({ organization: input.organization, template: input.template, heldByThisRun: true });
      // 'was-off': switched off meanwhile (the watch, or a person); either way nothing holds members now.
      st.activeVersionLock = release === 'left-on-by-operator' ? { state: 'already-on', byWsmigrate: false } : { state: 'given-back', atRunEnd: true };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const what = `wsmigrate could not give require_active_version back on template ${fleetName} as this run ended (${failureMessage(err).slice(0, 200)}): it stays on with no run watching the active version. Switch it off with \`coder templates edit ${input.template} --require-active-version=false\` (or start the next run), and do not promote an old version meanwhile.`;
      run.addNote(what);
      log.warn('require_active_version was not given back at the end of the run', { template: fleetName, error: failureMessage(err) });
    }
  });
}
