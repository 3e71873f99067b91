/**
 * Whether a Coder release refuses a start or stop build on a deleted workspace. coderd/workspacebuilds.go
 * `postWorkspaceBuilds` gained the check in PR #20584 (merged to main 2025-10-30, cherry-picked as #20586):
 * 409 "Cannot start a deleted workspace!". Before it, nothing in postWorkspaceBuilds, wsbuilder.buildTx or
 * dbauthz InsertWorkspaceBuild looked at `workspaces.deleted` (GetWorkspaceByID does not filter it), so the
 * build was queued and provisioned: the deleted workspace's resources came back, invisible in the dashboard.
 *
 * UNCONFIRMED: which release first shipped the cherry-pick. Taken here as 2.28.0 (the release branch cut
 * around that date); an earlier patch backport was not found. The product must hold for both readings:
 * it never builds on a workspace someone deleted, whatever Coder would accept.
 */
export function refusesBuildsOnDeletedWorkspaces(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return true;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Dev builds (v0.0.0-devel) are main, which has the check.
  if (major === 0 && minor === 0 && patch === 0 && version.includes('devel')) return true;
  if (major !== 2) return major > 2;
  return minor >= 28;
}
