/**
 * A dormant workspace (Coder's `dormant_at` set, PUT /workspaces/{id}/dormant in coderd/workspaces.go
 * putWorkspaceDormant) is rbac type workspace_dormant: it may be stopped but started by nobody, not even
 * an Owner (coderd/rbac/roles.go, coderd/rbac/policy), until it is made active again. What a reader is told to do about it.
 */
export interface DormantNote {
  since: string;
  /** When Coder deletes it, home PVC and all (its `deleting_at`); absent when the template never auto-deletes. */
  deletingAt?: string;
  /** Its owner is suspended: only an admin can make it active. */
  ownerSuspended?: true;
  /** What to do, with the request that does it. */
  action: string;
}

/** What is known of a workspace's owner: a suspended one cannot sign in (coderd/httpmw/apikey.go), so cannot act. */
export interface OwnerStanding {
  name: string;
  suspended: boolean;
}

/** Who must act on a dormant workspace and how: one sentence for scan, the preflight, the fleet and the restore. */
export function dormantWhoMustAct(workspaceId: string, owner?: OwnerStanding): string {
  // coderd/workspaces.go putWorkspaceDormant: PUT /workspaces/{workspace}/dormant, codersdk.UpdateWorkspaceDormancy.
  const request = `PUT /api/v2/workspaces/${workspaceId}/dormant {"dormant": false}`;
  if (owner?.suspended) {
    return `a Coder admin makes it active first, not its owner: ${owner.name} is suspended and cannot sign in (its page in the dashboard, or ${request})`;
  }
  return `its owner or an admin makes it active first (its page in the dashboard, or ${request})`;
}

/**
 * Coder's lifecycle executor deletes a dormant workspace once deleting_at (dormant_at + the template's
 * time_til_dormant_autodelete) has passed: a delete build, reason autodelete
 * (coderd/autobuild/lifecycle_executor.go isEligibleForDelete). Making it active clears deleting_at.
 */
export function autoDeleteWarning(deletingAt: string): string {
  return `Coder deletes it, home PVC included, at ${deletingAt} (the template's time_til_dormant_autodelete) unless it is made active before`;
}

/** Why a fleet skipped a running dormant workspace, and who must act (its summary, status, details and result say it). */
export function dormantSkipReason(workspaceId: string, since: string, more: { owner?: OwnerStanding; deletingAt?: string } = {}): string {
  return (
    `skipped: dormant since ${since} (Coder starts it for nobody, so the migration could not start it again after its stop); nothing was stopped or built: ${dormantWhoMustAct(workspaceId, more.owner)}, then run the fleet (or 'wsmigrate migrate workspace') again` +
    (more.deletingAt ? `. ${autoDeleteWarning(more.deletingAt)}` : '')
  );
}

export function dormantNote(ws: { id: string; dormant_at?: string | null; deleting_at?: string | null }, owner?: OwnerStanding): DormantNote | undefined {
  if (!ws.dormant_at) return undefined;
  return {
    since: ws.dormant_at,
    ...(ws.deleting_at ? { deletingAt: ws.deleting_at } : {}),
    ...(owner?.suspended ? { ownerSuspended: true as const } : {}),
    action:
      'Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; ' +
      dormantWhoMustAct(ws.id, owner) +
      (ws.deleting_at ? `. ${autoDeleteWarning(ws.deleting_at)}` : ''),
  };
}
