import { ApiError } from '../api-error';
import type { SimDeployment } from '../deployment';
import type { User } from '../model';
import type { Action, RbacObject } from '../rbac';
import { ok, readJson, type Route } from './route';

/** coderd/authorize.go checkAuthorization: at most this many checks may name a resource_id. */
const MAX_ID_FETCH = 10;

interface CheckObject {
  resource_type?: unknown;
  resource_id?: unknown;
  owner_id?: unknown;
  organization_id?: unknown;
  any_org?: unknown;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A resource_id names a stored object, whose own owner and organization are then used (workspace, template, user). */
function storedObject(d: SimDeployment, actor: User, type: string, id: string): RbacObject | undefined {
  if (type === 'workspace') {
    const ws = d.workspaces.get(id);
    // dbauthz GetWorkspaceByID: one the caller cannot read is an error, so the check is false.
    return ws && d.canReadWorkspace(actor, ws) ? d.workspaceObject(ws) : undefined;
  }
  if (type === 'template') {
    const t = d.templates.get(id);
    return t && d.can(actor, 'read', d.templateObject(t)) ? d.templateObject(t) : undefined;
  }
  if (type === 'user') return d.userById(id) ? { type: 'user', id, ownerId: id } : undefined;
  const msg = `Object type "${type}" does not support "resource_id" field.`;
  throw new ApiError(400, msg, undefined, [{ field: 'resource_type', detail: msg }]);
}

/**
 * POST /api/v2/authcheck (codersdk/authorization.go AuthorizationRequest; coderd/authorize.go
 * checkAuthorization): named checks of an object and an action, answered for the caller's token as
 * a map of check name → allowed.
 */
export const authcheckRoute: Route = {
  method: 'POST',
  path: '/authcheck',
  async handle(ctx) {
    const d = ctx.deployment;
    const body = await readJson(ctx);
    const checks = body.checks;
    if (checks !== undefined && (checks === null || typeof checks !== 'object' || Array.isArray(checks))) {
      throw new ApiError(400, 'Request body must be valid JSON.', '"checks" must be an object of named checks.');
    }
    const entries = Object.entries((checks ?? {}) as Record<string, { object?: CheckObject; action?: unknown }>);
    const idFetch = entries.filter(([, c]) => text(c?.object?.resource_id) !== undefined).length;
    if (idFetch > MAX_ID_FETCH) {
      throw new ApiError(400, `Endpoint only supports using "resource_id" field ${MAX_ID_FETCH} times, found ${idFetch} usages. Remove ${idFetch - MAX_ID_FETCH} objects with this field set.`);
    }
    const answer: Record<string, boolean> = {};
    for (const [name, check] of entries) {
      const o = check?.object ?? {};
      const type = text(o.resource_type);
      if (type === undefined) throw new ApiError(400, `Object's "resource_type" field must be defined for key "${name}".`);
      let object: RbacObject | undefined = { type };
      const owner = text(o.owner_id);
      if (owner !== undefined) object.ownerId = owner === 'me' ? ctx.actor.id : owner;
      const org = text(o.organization_id);
      // any_org: "in some organization": the only one the simulator has.
      if (org !== undefined) object.orgId = org;
      else if (o.any_org === true) object.orgId = d.org.id;
      const id = text(o.resource_id);
      if (id !== undefined) {
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
          throw new ApiError(400, `Object "${id}" id is not a valid uuid.`, undefined, [{ field: 'resource_id', detail: 'invalid UUID format' }]);
        }
        object = storedObject(d, ctx.actor, type, id.toLowerCase());
      }
      answer[name] = object !== undefined && typeof check?.action === 'string' && d.can(ctx.actor, check.action as Action, object);
    }
    return ok(answer);
  },
};
