import { ApiError } from '../api-error';
import { ok, type Route } from './route';

/**
 * `GET /users/{user}`: `me` (or the caller's own id or name) answers the token's user; anyone else
 * is refused, as Coder does ("getting non-personal users isn't supported yet",
 * coderd/httpmw/userparam.go). wsmigrate reads `/users/me` to prove its token works.
 */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users/{user}',
    handle(ctx) {
      const ref = (ctx.params.user ?? '').toLowerCase();
      const me = ctx.actor;
      if (ref !== 'me' && ref !== me.id && ref !== me.username.toLowerCase()) throw new ApiError(400, "getting non-personal users isn't supported yet");
      return ok({ id: me.id, username: me.username, email: me.email, created_at: me.createdAt, status: 'active', roles: me.roles.map((name) => ({ name, display_name: name.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`) })) });
    },
  },
];
