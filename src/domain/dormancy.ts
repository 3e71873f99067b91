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

export function dormantNote(ws: { id: string; dormant_at?: string | null }): DormantNote | undefined {
  if (!ws.dormant_at) return undefined;
  return {
    since: ws.dormant_at,
    action:
      'Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; ' +
      `its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws.id}/dormant {"dormant": false})`,
  };
}
