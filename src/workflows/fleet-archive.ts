import { proxyActivities } from '@temporalio/workflow';
import type { WsmigrateActivities } from '../activities';
import { fnv1a } from '../domain/fnv1a';
import { QUICK_STEP } from './activity-presets';
import type { ActiveVersionRelease, FleetArchiveResult } from '../contracts/migrate-fleet';
import type { FleetRun } from './fleet-run';

const acts = proxyActivities<WsmigrateActivities>(QUICK_STEP);
const slow = proxyActivities<WsmigrateActivities>({ ...QUICK_STEP, startToCloseTimeout: '10m' });

/**
 * Once every workspace is migrated: archive the old versions nobody uses (after the `fleet-archive`
 * gate): tidiness, not a barrier (Coder still builds an archived version through its API, only its
 * version lists leave them out); then require_active_version is given back. Undefined unless asked.
 */
export async function archiveOldVersions(run: FleetRun): Promise<FleetArchiveResult | undefined> {
  const { st, input, fleetName } = run;
  const allDone = !st.cancelled && !run.moreRemains() && st.counts.failed + st.counts.restored + st.counts['needs-attention'] + (st.counts.declined ?? 0) === 0;
  if (!input.archiveOldVersions) return undefined;
  if (input.dryRun) return { archived: [], keptInUse: [], skipped: 'dry run' };
  if (!allDone) return { archived: [], keptInUse: [], skipped: 'not every workspace is migrated yet' };
  const plan = await slow.planVersionArchive({ organization: input.organization, template: input.template, targetVersionId: st.targetVersionId as string });
  if (plan.versions.length === 0) {
    return { archived: [], keptInUse: plan.inUse, skipped: 'no unused old version', ...(await releaseIfNoOldVersionLeft(run, plan.inUse.length)) };
  }
  const names = plan.versions.map((v) => v.name).join(', ');
  const decision = await run.gates.request(
    'fleet-archive',
    `versions:${fnv1a(plan.versions.map((v) => v.id).join(','))}`,
    `Archive ${plan.versions.length} old version(s) of ${fleetName} that no workspace uses (${names}): Coder's version lists stop offering them (its API still builds an archived version, so this is tidiness, not a barrier).` +
      (plan.inUse.length ? ` Kept, still in use: ${plan.inUse.map((v) => `${v.name} (${v.workspaces})`).join(', ')}.` : ''),
  );
  if (decision !== 'approved' && decision !== 'not-required') return { archived: [], keptInUse: plan.inUse, skipped: `archive ${decision}` };
  const done = await slow.archiveTemplateVersions({ template: input.template, versionIds: plan.versions.map((v) => v.id) });
  const byId = new Map(plan.versions.map((v) => [v.id, v]));
  const keptInUse = [...plan.inUse, ...done.keptInUse.map((id) => ({ id, name: byId.get(id)?.name ?? id, workspaces: 1 }))];
  return {
    archived: done.archived.map((id) => byId.get(id) ?? { id, name: id }),
    keptInUse,
    ...(await releaseIfNoOldVersionLeft(run, keptInUse.length)),
  };
}

/** Only once no old version can be built is the template's setting given back; an old version in use keeps it on. */
async function releaseIfNoOldVersionLeft(run: FleetRun, inUse: number): Promise<{ activeVersion?: ActiveVersionRelease }> {
  if (inUse > 0) return {};
  const activeVersion = await acts.releaseActiveVersion({ organization: run.input.organization, template: run.input.template });
  // The result's lock says how the run ends, not how it began: never "switched-on" beside "switched-off".
  if (activeVersion === 'switched-off') run.st.activeVersionLock = { state: 'given-back' };
  return { activeVersion };
}
