import { ApiError } from '../api-error';
import type { User } from '../model';
import { ok, type Route, type RouteContext } from './route';

/**
 * codersdk.User (codersdk/users.go): `organization_ids` are the organizations the user is a member of;
 * the simulator has one. `name` is the full name ('' when none), `username` the login name.
 */
function userJson(user: User, organizationIds: readonly string[]): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    email: user.email,
    created_at: user.createdAt,
    status: user.status ?? 'active',
    organization_ids: [...organizationIds],
    roles: user.roles.map((name) => ({ name, display_name: name.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`) })),
  };
}

function userParam(ctx: RouteContext): User {
  const user = ctx.deployment.resolveUser(ctx.params.user ?? '', ctx.actor);
  if (!user) throw new ApiError(400, '"user" must be an existing uuid or username.', `queried user="${ctx.params.user ?? ''}"`);
  return user;
}

/**
 * `GET /users/{user}`: `me`, a username or a user id answers that user; one that does not exist
 * answers 400 `"user" must be an existing uuid or username.`, whether the input is garbage or a
 * name nobody has (coderd/httpmw/userparam.go, extractUserContext, which looks the user up as the
 * system, so any signed-in caller gets the same answer; coderd/users.go userByName). wsmigrate reads
 * `/users/me` to prove its token works, and a fleet's `--owner` names to refuse a typo.
 * `PUT /users/{user}/status/suspend` and `/activate` (coderd/users.go putSuspendUserAccount,
 * putActivateUserAccount → putUserStatus) answer the user (codersdk.User) with its new status.
 */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users/{user}',
    handle(ctx) {
      return ok(userJson(userParam(ctx), [ctx.deployment.org.id]));
    },
  },
  {
    method: 'PUT',
    path: '/users/{user}/status/suspend',
    handle(ctx) {
      return ok(userJson(ctx.deployment.setUserStatus(ctx.actor, userParam(ctx), 'suspended'), [ctx.deployment.org.id]));
    },
  },
  {
    method: 'PUT',
    path: '/users/{user}/status/activate',
    handle(ctx) {
      return ok(userJson(ctx.deployment.setUserStatus(ctx.actor, userParam(ctx), 'active'), [ctx.deployment.org.id]));
    },
  },
];
