import { ApiError, notFound, routeNotFound } from '../api-error';
import { buildJson, templateVersionJson } from '../api-shapes';
import type { JobStatus } from '../model';
import { daemonMatches, type DaemonStatus } from '../provisioner-daemons';
import { ok, type Route, type RouteContext } from './route';

const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed'];
const DAEMON_STATUSES: readonly DaemonStatus[] = ['idle', 'busy', 'offline'];

/**
 * coderd/provisionerdaemons.go and coderd/provisionerjobs.go: both routes are for owners and
 * template admins only ("For now, only owners and template admins can access provisioner jobs"),
 * anyone else gets 404; a query parameter they do not know is a 400 (`ErrorExcessParams`).
 */
function authorize(ctx: RouteContext, known: readonly string[]): void {
  const ref = (ctx.params.organization ?? '').toLowerCase();
  const org = ctx.deployment.org;
  if (ref !== org.id && ref !== org.name.toLowerCase() && ref !== 'default') throw notFound();
  if (!ctx.deployment.canUpdateTemplate(ctx.actor)) throw notFound();
  const excess = [...new Set(ctx.query.keys())].filter((k) => !known.includes(k));
  if (excess.length > 0) {
    throw new ApiError(400, 'Invalid query parameters.', undefined, excess.map((field) => ({ field, detail: `${field} is not a valid query param` })));
  }
}

/** `?status=a,b` and `?status=a&status=b` both, as httpapi's QueryParamParser.Strings reads them. */
function listParam(ctx: RouteContext, name: string): string[] {
  return ctx.query.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function limitParam(ctx: RouteContext): number {
  const raw = ctx.query.get('limit');
  if (raw === null || raw === '') return 50;
  if (!/^\d+$/.test(raw)) throw new ApiError(400, 'Invalid query parameters.', undefined, [{ field: 'limit', detail: `Query param "limit" must be a valid positive integer` }]);
  return Number(raw) || 50;
}

function tagsParam(ctx: RouteContext): Record<string, string> {
  const raw = ctx.query.get('tags');
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string')) return parsed as Record<string, string>;
  } catch {
    // answered below
  }
  throw new ApiError(400, 'Invalid query parameters.', undefined, [{ field: 'tags', detail: 'tags must be a JSON object of strings, e.g. {"scope":"organization"}' }]);
}

export const provisionerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/organizations/{organization}/provisionerdaemons',
    handle(ctx) {
      const pool = ctx.deployment.daemons;
      // Unlimited daemons: nothing to list, so the simulator answers as a Coder without this route.
      if (!pool) throw routeNotFound();
      authorize(ctx, ['limit', 'ids', 'tags', 'offline', 'status', 'max_age']);
      const statuses = listParam(ctx, 'status');
      const bad = statuses.filter((s) => !DAEMON_STATUSES.includes(s as DaemonStatus));
      if (bad.length) throw new ApiError(400, 'Invalid query parameters.', undefined, [{ field: 'status', detail: `"${bad.join(',')}" is not a daemon status (idle, busy, offline)` }]);
      const ids = listParam(ctx, 'ids');
      const tags = tagsParam(ctx);
      const withOffline = ctx.query.get('offline') === 'true' || statuses.includes('offline');
      const daemons = pool.daemons
        .filter((daemon) => (ids.length === 0 || ids.includes(daemon.id)) && daemonMatches(daemon, tags))
        .filter((daemon) => (statuses.length ? statuses.includes(pool.status(daemon)) : withOffline || pool.status(daemon) !== 'offline'))
        .slice(0, limitParam(ctx));
      const jobRef = (job: { id: string; status: JobStatus } | undefined) => (job ? { id: job.id, status: job.status } : null);
      return ok(
        daemons.map((daemon) => ({
          id: daemon.id,
          organization_id: ctx.deployment.org.id,
          key_id: '00000000-0000-0000-0000-000000000001',
          created_at: daemon.createdAt,
          last_seen_at: daemon.lastSeenAt,
          name: daemon.name,
          version: 'v2.31.7',
          api_version: '1.9',
          provisioners: ['terraform'],
          tags: daemon.tags,
          key_name: 'built-in',
          status: pool.status(daemon),
          current_job: jobRef(daemon.currentJob),
          previous_job: jobRef(daemon.previousJob),
        })),
      );
    },
  },
  {
    method: 'GET',
    path: '/organizations/{organization}/provisionerjobs',
    handle(ctx) {
      const d = ctx.deployment;
      authorize(ctx, ['limit', 'ids', 'status', 'tags', 'initiator']);
      const statuses = listParam(ctx, 'status');
      const bad = statuses.filter((s) => !JOB_STATUSES.includes(s as JobStatus));
      if (bad.length) throw new ApiError(400, 'Invalid query parameters.', undefined, [{ field: 'status', detail: `"${bad.join(',')}" is not a job status` }]);
      const ids = listParam(ctx, 'ids');
      const initiator = ctx.query.get('initiator');
      const jobs = [
        ...[...d.builds.values()].map((b) => ({ job: b.job, json: () => buildJson(d, b).job })),
        ...[...d.versions.values()].map((v) => ({ job: v.job, json: () => templateVersionJson(d, v).job })),
      ]
        .filter(({ job }) => (statuses.length === 0 || statuses.includes(job.status)) && (ids.length === 0 || ids.includes(job.id)) && (!initiator || job.initiatorId === initiator))
        // coderd's query orders by created_at DESC.
        .sort((a, b) => b.job.createdAt.localeCompare(a.job.createdAt))
        .slice(0, limitParam(ctx));
      return ok(jobs.map((j) => j.json()));
    },
  },
];
