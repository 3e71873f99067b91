import { makeCheckActiveVersion, makeReleaseActiveVersion, makeRequireActiveVersion } from './active-version-lock';
import { makeArchiveTemplateVersions, makePlanVersionArchive } from './archive-versions';
import { makeAssessHealth } from './assess-health';
import { makeBackupForRecovery } from './backup-for-recovery';
import { makeBackupState } from './backup-state';
import { makeBuildWithState } from './build-with-state';
import { makeCombinedSteps } from './combined-steps';
import { makeCheckFleetNames } from './check-fleet-names';
import { makeCheckGivenVersion } from './check-given-version';
import { makeCheckProtectedKept } from './check-protected-kept';
import { makeDiscoverFleetPage } from './discover-fleet';
import { makeListOrganizationTemplates } from './list-organization-templates';
import { makeReadLatestBuild } from './latest-build';
import { meterActivities } from './metered';
import { makeNotify } from './notify';
import type { ActivityDeps } from './ports';
import { makePostBuildCheck } from './post-build-check';
import { makePreflightWorkspace } from './preflight-workspace';
import { makeRequestCancellation } from './request-cancellation';
import { makeRestoreByBuild } from './restore-by-build';
import { makeReadProvisionerCapacity } from './read-provisioner-capacity';
import { makeRewriteState } from './rewrite-state';
import { makeRunsBesideWindow } from './runs-beside-window';
import { makeStartPinned } from './start-pinned';
import { makeStopWorkspace } from './stop-workspace';
import { makeTrackBuildChanges } from './track-build-changes';
import { makePreflightTemplate } from './preflight-template';
import { makePromoteTemplateVersion } from './promote-template-version';
import { makePushTemplateVersion } from './push-template-version';
import { makeRewriteTemplateSource } from './rewrite-template-source';
import { makeVerifyMigration } from './verify-migration';
import { cachedTemplateSourceLoader } from './template-source';
import { cachedBuildInfo, succeededVersionReader, versionParametersReader, versionVariablesReader } from './cached-reads';

export type { ActivityDeps, CoderApi, Importer, MessageRef, MigrationMetrics, Notification, Notifier, NotifyOutcome } from './ports';

/** Every runbook step as an activity, built from the adapters it needs (tests pass the simulator's). */
export function createActivities(deps: ActivityDeps) {
  const templateSources = cachedTemplateSourceLoader(deps.coder);
  const activities = {
    preflightWorkspace: makePreflightWorkspace(deps, templateSources, { buildInfo: cachedBuildInfo(deps.coder), templateVersion: succeededVersionReader(deps.coder), templateVersionVariables: versionVariablesReader(deps.coder), templateVersionParameters: versionParametersReader(deps.coder) }),
    stopWorkspace: makeStopWorkspace(deps),
    backupState: makeBackupState(deps),
    rewriteState: makeRewriteState(deps, templateSources),
    verifyMigration: makeVerifyMigration(deps, templateSources),
    buildWithState: makeBuildWithState(deps),
    startPinned: makeStartPinned(deps),
    postBuildCheck: makePostBuildCheck(deps),
    restoreByBuild: makeRestoreByBuild(deps),
    notify: makeNotify(deps),
    trackBuildChanges: makeTrackBuildChanges(deps, templateSources),
    preflightTemplate: makePreflightTemplate(deps),
    rewriteTemplateSource: makeRewriteTemplateSource(deps, templateSources),
    pushTemplateVersion: makePushTemplateVersion(deps),
    promoteTemplateVersion: makePromoteTemplateVersion(deps),
    assessHealth: makeAssessHealth(deps, templateSources),
    backupForRecovery: makeBackupForRecovery(deps),
    checkProtectedKept: makeCheckProtectedKept(deps, templateSources),
    checkFleetNames: makeCheckFleetNames(deps),
    checkGivenVersion: makeCheckGivenVersion(deps),
    discoverFleetPage: makeDiscoverFleetPage(deps, makeAssessHealth(deps, templateSources)),
    readLatestBuild: makeReadLatestBuild(deps),
    planVersionArchive: makePlanVersionArchive(deps),
    archiveTemplateVersions: makeArchiveTemplateVersions(deps),
    requireActiveVersion: makeRequireActiveVersion(deps),
    releaseActiveVersion: makeReleaseActiveVersion(deps),
    checkActiveVersion: makeCheckActiveVersion(deps),
    runsBesideWindow: makeRunsBesideWindow(deps),
    readProvisionerCapacity: makeReadProvisionerCapacity(deps),
    listOrganizationTemplates: makeListOrganizationTemplates(deps),
    requestCancellation: makeRequestCancellation(),
  };
  const steps = deps.metrics ? meterActivities(activities, deps.metrics) : activities;
  return { ...steps, ...makeCombinedSteps(steps) };
}

export type WsmigrateActivities = ReturnType<typeof createActivities>;
