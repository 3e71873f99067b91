import { notFound } from '../api-error';
import { templateJson } from '../api-shapes';
import { ok, type Route } from './route';

/** The two reads a deployment-wide run makes first: who am I (`/users/me`), and which templates exist. */
export const organizationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users/{user}',
    handle(ctx) {
      const user = ctx.deployment.resolveUser(ctx.params.user ?? '', ctx.actor);
      // coderd lets members read other users' basic profile; the simulator needs only `me`, owners see all.
      if (!user || (user.id !== ctx.actor.id && !ctx.actor.owner)) throw notFound();
      return ok({ id: user.id, username: user.username, name: user.username, email: user.email, created_at: user.createdAt, status: 'active', organization_ids: [ctx.deployment.org.id], roles: user.owner ? [{ name: 'owner', display_name: 'Owner' }] : [] });
    },
  },
  {
    method: 'GET',
    path: '/organizations/{organization}/templates',
    handle(ctx) {
      const d = ctx.deployment;
      const ref = (ctx.params.organization ?? '').toLowerCase();
      if (ref !== d.org.id && ref !== d.org.name.toLowerCase() && ref !== 'default') throw notFound();
      return ok([...d.templates.values()].sort((a, b) => a.name.localeCompare(b.name)).map((t) => templateJson(d, t)));
    },
  },
];
