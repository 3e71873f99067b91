import { isCancellation, log, patched, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import type { ActiveVersionLock } from '../contracts/migrate-fleet';
import { countsRecord } from '../domain/fleet-summary';
import { QUICK_LOCAL_STEP } from './activity-presets';
import type { FleetRun } from './fleet-run';

const local = proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP);

/** How often a fleet holding the lock reads the template's active version (Coder's lifecycle executor runs every minute). */
export const ACTIVE_VERSION_WATCH_MS = 60_000;

/** wsmigrate's own require_active_version: this run's, or an earlier batch's (its marker). */
function lockIsOurs(lock: ActiveVersionLock | undefined): boolean {
  return lock?.state === 'switched-on' || (lock?.state === 'already-on' && lock.byWsmigrate);
}

/**
 * While the fleet holds require_active_version, Coder's autostart and members' starts build the
 * template's *active* version. Someone promoting an old version again (a rollback) would then have
 * Coder build it on migrated `_v1` states and destroy their PVCs. So, for as long as the fleet runs
 * (gates included), it reads the active version every minute; when it is no longer the fleet's
 * target, the setting is given back at once (Coder builds each workspace's previous version again),
 * the fleet pauses and says why. Runs beside the fleet's steps; never fails the fleet.
 */
export function watchActiveVersion(run: FleetRun): void {
  const { st, input } = run;
  const target = st.targetVersionId;
  if (!target || input.dryRun || st.stage === 'done' || !lockIsOurs(st.activeVersionLock)) return;
  if (!patched('wsmigrate-active-version-watch')) return;
  const watching = () => st.stage !== 'done' && lockIsOurs(st.activeVersionLock);
  void (async () => {
    while (watching()) {
      await sleep(ACTIVE_VERSION_WATCH_MS);
      if (!watching()) return;
      const check = await local.checkActiveVersion({ organization: input.organization, template: input.template, targetVersionId: target }).catch((err: unknown) => {
        if (isCancellation(err)) throw err;
        log.warn('could not read the template active version; reading again in a minute', { template: run.fleetName, error: String(err) });
        return undefined;
      });
      if (!check || check.state === 'target') continue;
      const active = `${check.activeVersionName ? `${check.activeVersionName} ` : ''}(${check.activeVersionId})`;
      const released = check.release === 'switched-off' || check.release === 'was-off';
      if (released) st.activeVersionLock = { state: 'given-back' };
      const what =
        `The active version of template ${run.fleetName} is no longer the migrated version ${target}: ${active} was promoted. ` +
        (released
          ? `wsmigrate switched require_active_version off, since with it Coder's autostart and members' starts would build that version on migrated workspaces and destroy their PVCs (without it they build each workspace's previous version). `
          : `require_active_version is on by the operator's choice: Coder's autostart and members' starts now build that version, which destroys the PVC of every migrated workspace it builds; switch it off or promote ${target} again now. `) +
        `The fleet is paused: promote ${target} again, then 'wsmigrate fleet resume ${run.workflowId}', or cancel it.`;
      st.note = st.note ? `${st.note} ${what}` : what;
      if (!st.paused && !st.cancelled) {
        st.paused = true;
        st.control.push({ action: 'pause', by: 'wsmigrate', reason: `active version changed to ${active}`, at: new Date().toISOString() });
      }
      run.refreshDetails();
      log.warn('the template active version changed under the fleet', { template: run.fleetName, activeVersionId: check.activeVersionId, release: check.release });
      await run.notify({ kind: 'fleet-paused', subject: `Fleet ${run.fleetName} paused: active version changed`, text: what, counts: countsRecord(st.counts) });
      return;
    }
  })().catch((err: unknown) => {
    if (!isCancellation(err)) log.warn('the active-version watch stopped', { template: run.fleetName, error: String(err) });
  });
}
