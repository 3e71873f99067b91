import { isCancellation, log, patched, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { countsRecord } from '../domain/fleet-summary';
import { QUICK_LOCAL_STEP } from './activity-presets';
import type { FleetRun } from './fleet-run';

const local = proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP);

/** How often a running fleet reads the template's active version (Coder's lifecycle executor runs every minute). */
export const ACTIVE_VERSION_WATCH_MS = 60_000;

/**
 * Someone promoting another version (a rollback to the old one) while the fleet runs: Coder's
 * "Update" of a migrated workspace then builds that version on its `_v1` state and destroys its PVC,
 * and so does autostart of a workspace with automatic updates; with require_active_version on, every
 * autostart and member's start does. So, for as long as the fleet runs (gates included), it reads the
 * active version every minute; when it is no longer the fleet's target, wsmigrate's own setting is
 * given back at once (Coder builds each workspace's previous version again), the fleet pauses and
 * says why and what to do. It keeps watching after that: it says when the migrated version is active
 * again (the note is the run's last word, in its summary too), and a later rollback pauses the fleet
 * again. The fleet's resume takes the setting again once the target is active (fleet-lock-retake.ts). Runs beside the fleet's steps; never fails the fleet.
 */
export function watchActiveVersion(run: FleetRun): void {
  const { st, input } = run;
  const target = st.targetVersionId;
  if (!target || input.dryRun || st.stage === 'done') return;
  if (!patched('wsmigrate-active-version-watch')) return;
  // A function, not inline tests: the fleet's steps change the stage while this waits.
  const ended = () => st.stage === 'done';
  void (async () => {
    while (!ended()) {
      await sleep(ACTIVE_VERSION_WATCH_MS);
      if (ended()) return;
      const check = await local.checkActiveVersion({ organization: input.organization, template: input.template, targetVersionId: target }).catch((err: unknown) => {
        if (isCancellation(err)) throw err;
        log.warn('could not read the template active version; reading again in a minute', { template: run.fleetName, error: String(err) });
        return undefined;
      });
      if (!check) continue;
      if (check.state === 'target') {
        if (run.rolledBackSaid) {
          run.noteTargetActiveAgain(target);
          run.refreshDetails();
        }
        continue;
      }
      if (run.rolledBackSaid) continue;
      const active = `${check.activeVersionName ? `${check.activeVersionName} ` : ''}(${check.activeVersionId})`;
      // rolledBack: the fleet's resume takes it again once the target is active (fleet-lock-retake.ts).
      if (check.release === 'switched-off') st.activeVersionLock = { state: 'given-back', rolledBack: true };
      const what =
        `The active version of template ${run.fleetName} is no longer the migrated version ${target}: it is ${active} (promoted while the fleet ran, or the target was never promoted). ` +
        (check.release === 'switched-off'
          ? `wsmigrate switched require_active_version off, since with it Coder's autostart and members' starts would build that version on migrated workspaces and destroy their PVCs (without it they build each workspace's previous version). `
          : check.release === 'left-on-by-operator'
            ? `require_active_version is on by the operator's choice: Coder's autostart and members' starts now build that version, which destroys the PVC of every migrated workspace it builds; switch it off or promote ${target} again now. `
            : '') +
        `A user's "Update" of a migrated workspace (and the autostart of one with automatic updates) now builds that version and destroys its PVC: promote ${target} again now. ` +
        `The fleet is paused: once it is promoted again, 'wsmigrate fleet resume ${run.workflowId}'${check.release === 'switched-off' ? ' (which switches require_active_version on again)' : ''}, or cancel it.`;
      run.addNote(what);
      if (!st.paused && !st.cancelled) {
        st.paused = true;
        st.control.push({ action: 'pause', by: 'wsmigrate', reason: `active version changed to ${active}`, at: new Date().toISOString() });
      }
      run.refreshDetails();
      log.warn('the template active version changed under the fleet', { template: run.fleetName, activeVersionId: check.activeVersionId, release: check.release });
      await run.notify({ kind: 'fleet-paused', subject: `Fleet ${run.fleetName} paused: active version changed`, text: what, counts: countsRecord(st.counts) });
      // Runs that ended their watch here replay as they ran.
      if (!patched('wsmigrate-active-version-rewatch')) return;
      run.rolledBackSaid = true;
    }
  })().catch((err: unknown) => {
    if (!isCancellation(err)) log.warn('the active-version watch stopped', { template: run.fleetName, error: String(err) });
  });
}
