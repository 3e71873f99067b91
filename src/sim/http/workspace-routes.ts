import { ApiError, notFound } from '../api-error';
import { workspaceJson, workspaceStatus } from '../api-shapes';
import type { SimDeployment } from '../deployment';
import type { User, WorkspaceRecord } from '../model';
import { parseRichParameterValues } from '../template-parameters';
import { parseWorkspaceQuery, type WorkspaceQuery } from '../workspace-query';
import { noContent, ok, optionalString, page, paging, readJson, uuidParam, type Route, type RouteContext } from './route';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function includeDeleted(ctx: RouteContext): boolean {
  return ctx.query.get('include_deleted') === 'true';
}

function visible(ctx: RouteContext, ws: WorkspaceRecord): WorkspaceRecord {
  if (ws.deleted && !includeDeleted(ctx)) {
    // coderd/workspaces.go workspace: the message names the workspace by its id, not its name.
    throw new ApiError(410, `Workspace "${ws.id}" was deleted, you can view this workspace by specifying '?deleted=true' and trying again.`);
  }
  return ws;
}

function matches(d: SimDeployment, actor: User, ws: WorkspaceRecord, q: WorkspaceQuery): boolean {
  const owner = d.userById(ws.ownerId);
  const template = d.template(ws.templateId);
  if (q.owner !== undefined) {
    const wanted = q.owner === 'me' ? actor.username.toLowerCase() : q.owner;
    if (owner?.username.toLowerCase() !== wanted && owner?.id !== wanted) return false;
  }
  if (q.template !== undefined && template?.name.toLowerCase() !== q.template) return false;
  if (q.name !== undefined && !ws.name.toLowerCase().includes(q.name)) return false;
  if (q.status !== undefined && workspaceStatus(d.latestBuild(ws)) !== q.status) return false;
  if (q.id !== undefined && ws.id !== q.id) return false;
  if (q.organization !== undefined && d.org.name !== q.organization && d.org.id !== q.organization) return false;
  if (q.dormant !== undefined && (ws.dormantAt !== undefined) !== q.dormant) return false;
  if (q.outdated !== undefined && template && (d.latestBuild(ws).templateVersionId !== template.activeVersionId) !== q.outdated) return false;
  return true;
}

/** Code-point order of lower-cased text, as LOWER(x) ASC sorts it. */
function byLower(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * GetWorkspaces' ORDER BY (coderd/database/queries/workspaces.sql): the requester's own favourites
 * first, then workspaces whose latest build is a successful start, then owner name, then workspace
 * name (both lower-cased). A workspace that starts or stops moves, so offset paging can skip or repeat it.
 */
function workspaceOrder(d: SimDeployment, requester: User): (a: WorkspaceRecord, b: WorkspaceRecord) => number {
  const favourite = (ws: WorkspaceRecord): number => (ws.favorite && ws.ownerId === requester.id ? 0 : 1);
  const running = (ws: WorkspaceRecord): number => {
    const latest = d.latestBuild(ws);
    return latest.transition === 'start' && latest.job.status === 'succeeded' ? 0 : 1;
  };
  const owner = (ws: WorkspaceRecord): string => d.userById(ws.ownerId)?.username ?? '';
  return (a, b) => favourite(a) - favourite(b) || running(a) - running(b) || byLower(owner(a), owner(b)) || byLower(a.name, b.name);
}

/** PUT/DELETE /workspaces/{id}/favorite (coderd/workspaces.go putFavoriteWorkspace): only the owner. */
function favoriteRoute(method: 'PUT' | 'DELETE'): Route {
  return {
    method,
    path: '/workspaces/{workspace}/favorite',
    handle(ctx) {
      const ws = ctx.deployment.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
      if (ws.ownerId !== ctx.actor.id) throw new ApiError(400, 'You can only favorite workspaces that you own.');
      ws.favorite = method === 'PUT';
      return noContent();
    },
  };
}

/** POST /users/{user}/workspaces and its organization-scoped twin (codersdk CreateWorkspaceRequest). */
function createWorkspaceRoute(path: string): Route {
  return {
    method: 'POST',
    path,
    async handle(ctx) {
      const d = ctx.deployment;
      if (ctx.params.organization !== undefined) {
        const ref = ctx.params.organization.toLowerCase();
        if (ref !== d.org.id && ref !== d.org.name && ref !== 'default') throw notFound();
      }
      const owner = d.resolveUser(ctx.params.user ?? '', ctx.actor);
      if (!owner) throw notFound();
      const body = await readJson(ctx);
      const name = optionalString(body, 'name');
      if (name === undefined) throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'name', detail: 'Validation failed for tag "required"' }]);
      const templateId = optionalString(body, 'template_id');
      const templateVersionId = optionalString(body, 'template_version_id');
      if ((templateId === undefined) === (templateVersionId === undefined)) {
        throw new ApiError(400, 'Exactly one of "template_id" or "template_version_id" must be given.');
      }
      const richParameterValues = parseRichParameterValues(body.rich_parameter_values);
      const { ws } = d.createWorkspace(ctx.actor, owner, {
        name,
        ...(richParameterValues ? { richParameterValues } : {}),
        ...(templateId !== undefined ? { templateId: templateId.toLowerCase() } : {}),
        ...(templateVersionId !== undefined ? { templateVersionId: templateVersionId.toLowerCase() } : {}),
      });
      return ok(workspaceJson(d, ws), 201);
    },
  };
}

export const workspaceRoutes: Route[] = [
  createWorkspaceRoute('/users/{user}/workspaces'),
  createWorkspaceRoute('/organizations/{organization}/members/{user}/workspaces'),
  favoriteRoute('PUT'),
  favoriteRoute('DELETE'),
  {
    // coderd/workspaces.go patchWorkspace: `update` on the workspace (404 without it); no name or the same is a 204;
    // a rename only with CODER_ALLOW_WORKSPACE_RENAMES; a name in use by the owner is a 409.
    method: 'PATCH',
    path: '/workspaces/{workspace}',
    async handle(ctx) {
      const d = ctx.deployment;
      const ws = d.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
      if (!d.can(ctx.actor, 'update', d.workspaceObject(ws))) throw notFound();
      const name = optionalString(await readJson(ctx), 'name');
      if (name === undefined || name === '' || name === ws.name) return noContent();
      if (!d.allowWorkspaceRenames) throw new ApiError(400, 'Workspace renames are not allowed.');
      if (!/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,30})$/.test(name)) {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'name', detail: 'Validation failed for tag "workspace_name": 1-32 letters, digits or "-", not starting with "-".' }]);
      }
      if (ws.deleted) throw new ApiError(405, `Workspace "${ws.name}" is deleted and cannot be updated.`);
      const taken = [...d.workspaces.values()].some((w) => w !== ws && !w.deleted && w.ownerId === ws.ownerId && w.name.toLowerCase() === name.toLowerCase());
      if (taken) throw new ApiError(409, `Workspace "${name}" already exists.`, undefined, [{ field: 'name', detail: 'This value is already in use and should be unique.' }]);
      ws.name = name;
      ws.updatedAt = new Date().toISOString();
      return noContent();
    },
  },
  {
    // coderd/workspaces.go putWorkspaceDormant: `update` on the workspace; the state it already has is a 304.
    method: 'PUT',
    path: '/workspaces/{workspace}/dormant',
    async handle(ctx) {
      const d = ctx.deployment;
      const ws = d.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
      const body = await readJson(ctx);
      if (typeof body.dormant !== 'boolean') throw new ApiError(400, 'Request body must be valid JSON.', '"dormant" must be true or false');
      if (!d.can(ctx.actor, 'update', d.workspaceObject(ws))) throw new ApiError(403, 'Forbidden.');
      if ((ws.dormantAt !== undefined) === body.dormant) return { status: 304, bytes: Buffer.alloc(0), contentType: 'application/json' };
      // UpdateWorkspaceDormantDeletingAt (coderd/database/queries/workspaces.sql): deleting_at follows
      // dormant_at (schedule-times.ts); made active, last_used_at is now, so dormancy does not strike again at once.
      if (body.dormant) ws.dormantAt = new Date().toISOString();
      else {
        delete ws.dormantAt;
        ws.lastUsedAt = new Date().toISOString();
      }
      ws.updatedAt = new Date().toISOString();
      return ok(workspaceJson(d, ws));
    },
  },
  {
    method: 'GET',
    path: '/workspaces',
    handle(ctx) {
      const d = ctx.deployment;
      const q = parseWorkspaceQuery(ctx.query.get('q') ?? '');
      // coderd/searchquery/search.go parseOrganization: a UUID filters by id (an unknown one matches nothing);
      // a name must be an organization's, else 400 rather than an empty list.
      if (q.organization !== undefined && !UUID.test(q.organization) && q.organization !== d.org.name.toLowerCase()) {
        throw new ApiError(400, 'Invalid workspace search query.', undefined, [
          { field: 'organization', detail: `Query param "organization" has invalid value: organization "${q.organization}" either does not exist, or you are unauthorized to view it` },
        ]);
      }
      const p = paging(ctx.query);
      const all = [...d.workspaces.values()]
        .filter((ws) => !ws.deleted && d.canReadWorkspace(ctx.actor, ws) && matches(d, ctx.actor, ws, q))
        .sort(workspaceOrder(d, ctx.actor));
      return ok({ workspaces: page(all, p).map((ws) => workspaceJson(d, ws)), count: all.length });
    },
  },
  {
    method: 'GET',
    path: '/workspaces/{workspace}',
    handle(ctx) {
      const ws = ctx.deployment.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
      return ok(workspaceJson(ctx.deployment, visible(ctx, ws)));
    },
  },
  {
    method: 'GET',
    path: '/users/{user}/workspace/{workspacename}',
    handle(ctx) {
      const d = ctx.deployment;
      const owner = d.resolveUser(ctx.params.user ?? '', ctx.actor);
      if (!owner) throw notFound();
      const name = (ctx.params.workspacename ?? '').toLowerCase();
      const candidates = [...d.workspaces.values()].filter((w) => w.ownerId === owner.id && w.name.toLowerCase() === name && d.canReadWorkspace(ctx.actor, w));
      const ws = candidates.find((w) => !w.deleted) ?? (includeDeleted(ctx) ? candidates[candidates.length - 1] : undefined);
      if (!ws) throw notFound();
      return ok(workspaceJson(d, ws));
    },
  },
];
