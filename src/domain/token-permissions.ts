/**
 * What a migration's token must be allowed to do, asked of Coder itself (`POST /api/v2/authcheck`,
 * codersdk/authorization.go `AuthorizationRequest`; coderd/authorize.go `checkAuthorization`)
 * instead of guessed from a role name. coderd/rbac/roles.go: a Template Admin may read and update
 * templates and read workspaces, but holds no `workspace.start`/`workspace.stop`, so it cannot stop
 * or start other users' workspaces; Owner and Organization Admin may do all of it.
 */

export interface AuthCheckObject {
  resource_type: 'template' | 'workspace';
  resource_id?: string;
  owner_id?: string;
  organization_id: string;
}

export interface AuthCheck {
  object: AuthCheckObject;
  action: 'read' | 'update' | 'start' | 'stop';
}

export interface PermissionScope {
  organizationId: string;
  templateId: string;
  /**
   * One workspace (its id and owner), or every workspace of the organization when absent. A dormant
   * one may be started by nobody (coderd/rbac: workspace_dormant), and Coder's check of it by id says
   * so; its migration only stops it (it is migrated stopped), so `start` is not asked for it.
   */
  workspace?: { id: string; ownerId: string; dormant?: boolean };
}

interface NeededPermission {
  /** Says what is missing, in the refusal. */
  what: string;
  check: (scope: PermissionScope) => AuthCheck;
}

const workspaceObject = (s: PermissionScope): AuthCheckObject => ({
  resource_type: 'workspace',
  organization_id: s.organizationId,
  ...(s.workspace ? { resource_id: s.workspace.id, owner_id: s.workspace.ownerId } : {}),
});
const templateObject = (s: PermissionScope): AuthCheckObject => ({ resource_type: 'template', resource_id: s.templateId, organization_id: s.organizationId });

/** Keyed by the name sent to Coder, which answers by the same names. */
export const NEEDED_PERMISSIONS: Readonly<Record<string, NeededPermission>> = {
  'template.read': { what: 'read the template', check: (s) => ({ object: templateObject(s), action: 'read' }) },
  'template.update': { what: 'update the template (push and promote a version, set require_active_version)', check: (s) => ({ object: templateObject(s), action: 'update' }) },
  // coderd/workspacebuilds.go workspaceBuildState and wsbuilder.go (custom state): both need `update` on the template.
  'state.read-and-write': { what: "read the workspaces' Terraform state and hand Coder a state in a build (update on the template)", check: (s) => ({ object: templateObject(s), action: 'update' }) },
  'workspace.read': { what: "read the template's workspaces and their builds", check: (s) => ({ object: workspaceObject(s), action: 'read' }) },
  'workspace.start': { what: "start the template's workspaces", check: (s) => ({ object: workspaceObject(s), action: 'start' }) },
  'workspace.stop': { what: "stop the template's workspaces", check: (s) => ({ object: workspaceObject(s), action: 'stop' }) },
};

/** The permissions a migration in this scope needs, by name. */
function neededFor(scope: Pick<PermissionScope, 'workspace'>): [string, NeededPermission][] {
  return Object.entries(NEEDED_PERMISSIONS).filter(([name]) => !(name === 'workspace.start' && scope.workspace?.dormant === true));
}

export function permissionChecks(scope: PermissionScope): Record<string, AuthCheck> {
  return Object.fromEntries(neededFor(scope).map(([name, p]) => [name, p.check(scope)]));
}

/** The refusal for what Coder said no to, naming each missing permission and the roles that hold them all; undefined when nothing is missing. */
export function describeMissingPermissions(answer: Readonly<Record<string, boolean>>, scope: Pick<PermissionScope, 'workspace'> & { template: string; organization: string }): string | undefined {
  const missing = neededFor(scope).filter(([name]) => answer[name] !== true);
  if (missing.length === 0) return undefined;
  const templateAdminLike = missing.every(([name]) => name === 'workspace.start' || name === 'workspace.stop');
  return (
    // The worker's, not the shell's: an operator whose own token works would otherwise look in the wrong place.
    `the worker's token (CODER_SESSION_TOKEN) may not ${missing.map(([, p]) => p.what).join('; ')} (Coder's /authcheck answered no). ` +
    (templateAdminLike ? "Coder's Template Admin role cannot start or stop other users' workspaces. " : '') +
    `Use the token of an Owner, or of an Organization Admin of ${scope.organization}, for template ${scope.template}`
  );
}
