/**
 * Premium's prebuilt workspaces: owned by Coder's `prebuilds` system user until someone claims one
 * (coderd/database/modelmethods.go Workspace.IsPrebuild: "owned by PrebuildsSystemUserID"; the same test
 * Coder's own UI makes). Coder's reconciler (enterprise/coderd/prebuilds/reconcile.go) deletes every
 * running prebuild of a version that is no longer active, with a build of its own at any moment, and
 * builds new ones on the active version; one a migration built onto the new version keeps its old
 * preset and is deleted all the same. An unclaimed prebuild holds nobody's data. So wsmigrate never
 * migrates one: the work is thrown away, and the reconciler's delete races the migration's builds.
 * A claimed one belongs to a person and is a workspace like any other.
 */
export const PREBUILDS_SYSTEM_USER_ID = 'c42fdf75-3097-471c-8c33-fb52454d81c0';

/** `is_prebuild` where Coder sends it; the owner's id otherwise (a release without the field). */
export function isPrebuiltWorkspace(ws: { owner_id: string; is_prebuild?: boolean | undefined }): boolean {
  return ws.is_prebuild === true || ws.owner_id.toLowerCase() === PREBUILDS_SYSTEM_USER_ID;
}

/** Why a prebuilt workspace is left to Coder, in the words a report uses. */
export const PREBUILT_LEFT_TO_CODER =
  "a prebuilt workspace (owned by Coder's prebuilds system user, nobody's data): Coder's prebuilds reconciler deletes those of an old version and builds new ones on the active version, so it is left to Coder";
