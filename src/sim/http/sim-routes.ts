import { ApiError } from '../api-error';
import { runLifecycleTick } from '../lifecycle';
import { reconcilePrebuilds } from '../prebuilds';
import { ROLE_NAMES, type RoleName } from '../rbac';
import { ok, optionalString, readJson, type Route, type RouteContext } from './route';

/** The simulator's own controls (not Coder's API): site Owners only, so a test's member token cannot reach them. */
export function requireSimAdmin(ctx: RouteContext): void {
  if (!ctx.actor.roles.includes('owner')) throw new ApiError(403, 'Only an Owner may use the simulator\'s /sim endpoints.', 'Use the admin token the simulator printed.');
}

export const simTokenRoute: Route = {
  method: 'POST',
  path: '/sim/tokens',
  async handle(ctx) {
    requireSimAdmin(ctx);
    const body = await readJson(ctx);
    const role = optionalString(body, 'role') ?? 'member';
    if (!ROLE_NAMES.includes(role as RoleName)) {
      throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'role', detail: `Must be one of ${ROLE_NAMES.join(', ')}, got "${role}".` }]);
    }
    const user = ctx.deployment.mintUser(role as RoleName, optionalString(body, 'username'), optionalString(body, 'name'));
    return ok({ user_id: user.id, username: user.username, name: user.name, role, token: user.token }, 201);
  },
};

/**
 * POST /api/v2/sim/lifecycle/tick {at?: RFC 3339, force?: boolean, workspace_ids?: string[]}: one run
 * of the lifecycle executor at that time (default now), over those workspaces (default all); force
 * fires every workspace with a schedule or a deadline.
 */
export const simLifecycleTickRoute: Route = {
  method: 'POST',
  path: '/sim/lifecycle/tick',
  async handle(ctx) {
    requireSimAdmin(ctx);
    const body = await readJson(ctx);
    const atRaw = optionalString(body, 'at');
    const at = atRaw === undefined ? new Date() : new Date(atRaw);
    if (Number.isNaN(at.getTime())) throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'at', detail: `"${atRaw ?? ''}" is not an RFC 3339 time such as 2026-12-01T09:30:00Z.` }]);
    if (body.force !== undefined && typeof body.force !== 'boolean') throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'force', detail: 'Must be a boolean.' }]);
    const ids = body.workspace_ids;
    if (ids !== undefined && !(Array.isArray(ids) && ids.every((id) => typeof id === 'string'))) {
      throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'workspace_ids', detail: 'Must be an array of workspace ids.' }]);
    }
    return ok(runLifecycleTick(ctx.deployment, at, { force: body.force === true, ...(ids !== undefined ? { workspaceIds: (ids as string[]).map((id) => id.toLowerCase()) } : {}) }));
  },
};

/** POST /api/v2/sim/prebuilds/reconcile: one run of Coder's prebuilds reconciler (prebuilds.ts). */
export const simPrebuildsReconcileRoute: Route = {
  method: 'POST',
  path: '/sim/prebuilds/reconcile',
  handle(ctx) {
    requireSimAdmin(ctx);
    return ok(reconcilePrebuilds(ctx.deployment));
  },
};
