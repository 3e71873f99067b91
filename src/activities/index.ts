import { makeArchiveTemplateVersions, makePlanVersionArchive } from './archive-versions';
import { makeBackupState } from './backup-state';
import { makeDiscoverFleetPage } from './discover-fleet';
import { makeNotify } from './notify';
import type { ActivityDeps } from './ports';
import { makePostBuildCheck } from './post-build-check';
import { makePreflightWorkspace } from './preflight-workspace';
import { makePushState } from './push-state';
import { makeRestoreState } from './restore-state';
import { makeReturnToPrior } from './return-to-prior';
import { makeRewriteState } from './rewrite-state';
import { makeStartPinned } from './start-pinned';
import { makeStopWorkspace } from './stop-workspace';
import {
  makePreflightTemplate,
  makePromoteTemplateVersion,
  makePushTemplateVersion,
  makeRewriteTemplateSource,
} from './template-steps';
import { makeVerifyMigration } from './verify-migration';
import { cachedTemplateSourceLoader } from './template-source';

export type { ActivityDeps, CoderApi, Importer, Notification, Notifier } from './ports';

/** Every runbook step as an activity, built from the adapters it needs (tests pass the simulator's). */
export function createActivities(deps: ActivityDeps) {
  const templateSources = cachedTemplateSourceLoader(deps.coder);
  return {
    preflightWorkspace: makePreflightWorkspace(deps),
    stopWorkspace: makeStopWorkspace(deps),
    backupState: makeBackupState(deps),
    rewriteState: makeRewriteState(deps, templateSources),
    verifyMigration: makeVerifyMigration(deps, templateSources),
    pushState: makePushState(deps),
    startPinned: makeStartPinned(deps),
    postBuildCheck: makePostBuildCheck(deps),
    restoreState: makeRestoreState(deps),
    returnToPrior: makeReturnToPrior(deps),
    notify: makeNotify(deps),
    preflightTemplate: makePreflightTemplate(deps),
    rewriteTemplateSource: makeRewriteTemplateSource(deps, templateSources),
    pushTemplateVersion: makePushTemplateVersion(deps),
    promoteTemplateVersion: makePromoteTemplateVersion(deps),
    discoverFleetPage: makeDiscoverFleetPage(deps),
    planVersionArchive: makePlanVersionArchive(deps),
    archiveTemplateVersions: makeArchiveTemplateVersions(deps),
  };
}

export type WsmigrateActivities = ReturnType<typeof createActivities>;
