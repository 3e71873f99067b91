/**
 * A dormant workspace (Coder's `dormant_at` set, PUT /workspaces/{id}/dormant in coderd/workspaces.go
 * putWorkspaceDormant) is rbac type workspace_dormant: it may be stopped but started by nobody, not even
 * an Owner (coderd/rbac/roles.go, coderd/rbac/policy), until it is made active again. What a reader is told to do about it.
 */
export interface DormantNote {
  since: string;
  /** What to do, with the request that does it. */
  action: string;
}

/** Who must act on a dormant workspace and how: one sentence for scan, the preflight, the fleet and the restore. */
export function dormantWhoMustAct(workspaceId: string): string {
  // coderd/workspaces.go putWorkspaceDormant: PUT /workspaces/{workspace}/dormant, codersdk.UpdateWorkspaceDormancy.
  return `its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${workspaceId}/dormant {"dormant": false})`;
}

/** Why a fleet skipped a running dormant workspace, and who must act (its summary, status, details and result say it). */
export function dormantSkipReason(workspaceId: string, since: string): string {
  return `skipped: dormant since ${since} (Coder starts it for nobody, so the migration could not start it again after its stop); nothing was stopped or built: ${dormantWhoMustAct(workspaceId)}, then run the fleet (or 'wsmigrate migrate workspace') again`;
}

export function dormantNote(ws: { id: string; dormant_at?: string | null }): DormantNote | undefined {
  if (!ws.dormant_at) return undefined;
  return {
    since: ws.dormant_at,
    action:
      'Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; ' +
      dormantWhoMustAct(ws.id),
  };
}
