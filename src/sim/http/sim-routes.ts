import { ApiError } from '../api-error';
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
    const user = ctx.deployment.mintUser(role as RoleName, optionalString(body, 'username'));
    return ok({ user_id: user.id, username: user.username, role, token: user.token }, 201);
  },
};
