/**
 * Coder's built-in roles, reduced to the resources and actions the simulator serves, as
 * coderd/rbac/roles.go (ReloadBuiltinRoles) defines them. Members hold everything on what they own
 * (the member role's User permissions and the organization-member role) and `read`/`use` on the
 * organization's templates through the Everyone group's ACL.
 */
export type RoleName = 'owner' | 'template-admin' | 'organization-admin' | 'member';

/** The roles a token can be minted for; every user is also a member. */
export const ROLE_NAMES: readonly RoleName[] = ['owner', 'template-admin', 'organization-admin', 'member'];

/** codersdk/rbacresources_gen.go spells actions so; `start`/`stop` are policy.ActionWorkspaceStart/Stop. */
export type Action = 'create' | 'read' | 'update' | 'delete' | 'start' | 'stop' | 'ssh' | 'application_connect' | 'use' | 'view_insights';

export interface RbacObject {
  type: string;
  id?: string;
  /** The owning user, for user-owned resources (workspaces, files, the user itself). */
  ownerId?: string;
  /** The organization, for org-scoped resources (workspaces, templates). */
  orgId?: string;
}

export interface Subject {
  id: string;
  roles: readonly RoleName[];
  /** Organizations the user is a member of. */
  orgIds: readonly string[];
}

const ALL_WORKSPACE_ACTIONS: readonly Action[] = ['create', 'read', 'update', 'delete', 'start', 'stop', 'ssh', 'application_connect'];
const ALL_TEMPLATE_ACTIONS: readonly Action[] = ['create', 'read', 'update', 'delete', 'use', 'view_insights'];
/**
 * A dormant workspace (type workspace_dormant): the owner, organization admin and member roles hold
 * read, create, update, delete and stop on it, never start ("so dormant workspaces can be stopped, but
 * not started", coderd/rbac/policy); nobody may start one until it is made active again.
 */
const DORMANT_WORKSPACE_ACTIONS: readonly Action[] = ['create', 'read', 'update', 'delete', 'stop'];

/** templateAdminRole.Site: templates fully; files create/read; workspaces read only; never start or stop. */
const TEMPLATE_ADMIN_SITE: Readonly<Record<string, readonly Action[]>> = {
  template: ALL_TEMPLATE_ACTIONS,
  file: ['create', 'read'],
  workspace: ['read'],
  workspace_dormant: ['read'],
  provisioner_daemon: ['create', 'read', 'update', 'delete'],
  user: ['read'],
  group: ['read'],
  group_member: ['read'],
  organization: ['read'],
  organization_member: ['read'],
  assign_org_role: ['read'],
};

/** The member role's Site permissions. */
const MEMBER_SITE: Readonly<Record<string, readonly Action[]>> = {
  assign_role: ['read'],
  oauth2_app: ['read'],
  workspace_proxy: ['read'],
};

/** Resources the org admin's allPermsExcept leaves out (workspace comes back without exec). */
const ORG_ADMIN_EXCEPT = new Set(['assign_role', 'user_secret', 'deployment_config', 'workspace_dormant']);

function ownerAllows(action: Action, object: RbacObject): boolean {
  // ownerRole: everything; workspaces with every action (NoOwnerWorkspaceExec off, the default).
  if (object.type === 'workspace') return ALL_WORKSPACE_ACTIONS.includes(action);
  if (object.type === 'workspace_dormant') return DORMANT_WORKSPACE_ACTIONS.includes(action);
  return true;
}

function orgAdminAllows(subject: Subject, action: Action, object: RbacObject): boolean {
  if (object.type === 'user' && action === 'read') return true;
  if (object.orgId === undefined || !subject.orgIds.includes(object.orgId)) return false;
  if (object.type === 'workspace') return ALL_WORKSPACE_ACTIONS.includes(action) && action !== 'ssh' && action !== 'application_connect';
  if (object.type === 'workspace_dormant') return DORMANT_WORKSPACE_ACTIONS.includes(action);
  return !ORG_ADMIN_EXCEPT.has(object.type);
}

function memberAllows(subject: Subject, action: Action, object: RbacObject): boolean {
  if (MEMBER_SITE[object.type]?.includes(action)) return true;
  const ownsIt = object.ownerId !== undefined && object.ownerId === subject.id;
  const inOrg = object.orgId === undefined || subject.orgIds.includes(object.orgId);
  if (object.type === 'workspace') return ownsIt && inOrg && ALL_WORKSPACE_ACTIONS.includes(action);
  if (object.type === 'workspace_dormant') return ownsIt && inOrg && DORMANT_WORKSPACE_ACTIONS.includes(action);
  if (object.type === 'user') return ownsIt && action === 'read';
  // Templates have no owner: members reach them through the Everyone group's ACL (read, use).
  if (object.type === 'template') return object.orgId !== undefined && subject.orgIds.includes(object.orgId) && (action === 'read' || action === 'use');
  if (object.type === 'organization') return object.id !== undefined && subject.orgIds.includes(object.id) && action === 'read';
  return ownsIt;
}

/** Whether the subject may do the action on the object (coderd/rbac's Authorize over the built-in roles). */
export function authorize(subject: Subject, action: Action, object: RbacObject): boolean {
  if (subject.roles.includes('owner') && ownerAllows(action, object)) return true;
  if (subject.roles.includes('template-admin') && TEMPLATE_ADMIN_SITE[object.type]?.includes(action)) return true;
  if (subject.roles.includes('organization-admin') && orgAdminAllows(subject, action, object)) return true;
  return memberAllows(subject, action, object);
}
