import { CancellationScope, log, patched, proxyLocalActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { rolledBackAtEndText } from '../domain/rolled-back-at-end';
import { QUICK_LOCAL_STEP } from './activity-presets';
import type { FleetRun } from './fleet-run';

const local = proxyLocalActivities<WsmigrateActivities>(QUICK_LOCAL_STEP);

/**
 * The template's active version, read once more as the run ends: a rollback promoted after the run's
 * last build and before the minute's watch read it (fleet-lock-watch.ts) left the fleet saying `done`
 * over migrated workspaces whose owners' Update destroys their PVCs. Said in the run's note (status,
 * summary, Web UI, the organization's row), as `rolledBackAtEnd` in its result. Never fails the fleet.
 */
export async function checkActiveVersionAtEnd(run: FleetRun): Promise<string | undefined> {
  const { st, input } = run;
  const target = st.targetVersionId;
  // The watch already said it (and paused the run); a dry run moved nothing onto the target.
  if (!target || input.dryRun || run.rolledBackSaid) return undefined;
  if (!patched('wsmigrate-fleet-end-active-version')) return undefined;
  // Not cancellable and never thrown: the lock's give-back comes after it in finish(), cancelled run or not.
  const check = await CancellationScope.nonCancellable(() => local.checkActiveVersion({ organization: input.organization, template: input.template, targetVersionId: target })).catch((err: unknown) => {
    log.warn('could not read the template active version as the run ended', { template: run.fleetName, error: String(err) });
    return undefined;
  });
  if (!check || check.state === 'target') return undefined;
  const c = st.counts;
  const text = rolledBackAtEndText(
    {
      template: input.template,
      targetVersionId: target,
      activeVersionId: check.activeVersionId,
      ...(check.activeVersionName ? { activeVersionName: check.activeVersionName } : {}),
      migrated: c.migrated + c['already-migrated'],
    },
    'ended',
  );
  run.addNote(text);
  log.warn('the template active version is not the migrated one as the fleet ends', { template: run.fleetName, activeVersionId: check.activeVersionId });
  return text;
}
