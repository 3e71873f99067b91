import { ApiError } from '../api-error';
import { ok, type Route } from './route';

/**
 * `GET /users/{user}`: `me`, a username or a user id answers that user; one that does not exist
 * answers 400 `"user" must be an existing uuid or username.`, whether the input is garbage or a
 * name nobody has (coderd/httpmw/userparam.go, extractUserContext, which looks the user up as the
 * system, so any signed-in caller gets the same answer; coderd/users.go userByName). wsmigrate reads
 * `/users/me` to prove its token works, and a fleet's `--owner` names to refuse a typo.
 */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users/{user}',
    handle(ctx) {
      const user = ctx.deployment.resolveUser(ctx.params.user ?? '', ctx.actor);
      if (!user) throw new ApiError(400, '"user" must be an existing uuid or username.', `queried user="${ctx.params.user ?? ''}"`);
      return ok({ id: user.id, username: user.username, email: user.email, created_at: user.createdAt, status: 'active', roles: user.roles.map((name) => ({ name, display_name: name.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`) })) });
    },
  },
];
