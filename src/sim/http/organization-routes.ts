import { notFound } from '../api-error';
import { templateJson } from '../api-shapes';
import { ok, type Route } from './route';

/** Which templates an organization has: the first read of a deployment-wide run (who the token is: user-routes). */
export const organizationRoutes: Route[] = [
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
