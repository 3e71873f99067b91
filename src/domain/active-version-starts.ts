/**
 * Coder starts some workspaces on the template's ACTIVE version, whatever their previous build ran:
 * the lifecycle executor's autostart when the template requires the active version or the workspace
 * has automatic_updates "always" (coderd/autobuild/lifecycle_executor.go `useActiveVersion`, then
 * wsbuilder `ActiveVersion()`), and a member's start under require_active_version (Premium). Such a
 * start carries the latest build's state (wsbuilder `getState`). Migrate such a workspace onto a version
 * that is not the active one, and its next start builds the `_v1` state on the old active version:
 * Terraform destroys the `_v1` PVC and creates an empty one.
 */
export interface ActiveVersionFacts {
  id: string;
  template_active_version_id: string;
  /** As Coder reads it back: false without a Premium licence, whatever was set. */
  template_require_active_version?: boolean | undefined;
  automatic_updates?: string | undefined;
}

/** Why migrating this workspace onto `targetVersionId` would hand its next start the old active version; undefined when it would not. */
export function startsOnAnotherActiveVersion(ws: ActiveVersionFacts, targetVersionId: string): string | undefined {
  if (ws.template_active_version_id === targetVersionId) return undefined;
  const why = [
    ...(ws.automatic_updates === 'always' ? ['the workspace has automatic updates "always"'] : []),
    ...(ws.template_require_active_version === true ? ['the template requires its active version'] : []),
  ];
  if (why.length === 0) return undefined;
  return (
    `${why.join(' and ')}, so Coder starts it (its autostart, and its owner's start) on the template's active version ${ws.template_active_version_id}, ` +
    `not on the target version ${targetVersionId}: that start would build the migrated _v1 state on the old version and destroy the PVC. Nothing was stopped. ` +
    `Promote the target version first ('wsmigrate migrate template' without --no-promote, or 'coder templates versions promote')` +
    (ws.template_require_active_version === true
      ? ''
      : `, or turn automatic updates off for this workspace (PUT /api/v2/workspaces/${ws.id}/autoupdates {"automatic_updates":"never"})`)
  );
}
