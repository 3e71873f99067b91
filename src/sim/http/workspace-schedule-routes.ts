import { ApiError } from '../api-error';
import { parseWeeklySchedule } from '../cron-schedule';
import type { WorkspaceRecord } from '../model';
import { nextAllowedAutostart } from '../schedule-times';
import { templateScheduleOptions } from '../template-meta';
import { noContent, readJson, uuidParam, type Route, type RouteContext } from './route';

/** The workspace's own settings need update on it (dbauthz UpdateWorkspaceAutostart/TTL/AutomaticUpdates). */
function updatableWorkspace(ctx: RouteContext): WorkspaceRecord {
  const d = ctx.deployment;
  const ws = d.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
  if (!d.can(ctx.actor, 'update', d.workspaceObject(ws))) throw new ApiError(403, 'Forbidden.', 'Updating this workspace needs `update` on it: its owner, an Organization Admin or an Owner.');
  return ws;
}

const MINUTE = 60_000;
const TTL_MAX_MS = 30 * 24 * 60 * MINUTE;

/**
 * PUT /workspaces/{id}/autostart, /ttl and /autoupdates (codersdk UpdateWorkspaceAutostartRequest,
 * UpdateWorkspaceTTLRequest, UpdateWorkspaceAutomaticUpdatesRequest; coderd/workspaces.go): the
 * settings coderd/autobuild/lifecycle_executor.go acts on. Each answers 204.
 */
export const workspaceScheduleRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/workspaces/{workspace}/autostart',
    async handle(ctx) {
      const ws = updatableWorkspace(ctx);
      const body = await readJson(ctx);
      const schedule = body.schedule;
      if (schedule === undefined || schedule === null || schedule === '') {
        delete ws.autostartSchedule;
        delete ws.nextStartAt;
        return noContent();
      }
      if (typeof schedule !== 'string') throw new ApiError(400, 'Request body must be valid JSON.', '"schedule" must be a string such as "CRON_TZ=Europe/Dublin 30 9 * * 1-5".');
      const template = ctx.deployment.template(ws.templateId);
      // putWorkspaceAutostart reads the template through the schedule store: without Premium autostart is always allowed.
      if (template && !templateScheduleOptions(template.meta, ctx.deployment.licence).userAutostartEnabled) throw new ApiError(400, 'Autostart is not allowed for workspaces using this template.');
      parseWeeklySchedule(schedule);
      ws.autostartSchedule = schedule;
      // coderd/workspaces.go putWorkspaceAutostart stores next_start_at with the schedule (NextAllowedAutostart from now).
      const next = nextAllowedAutostart(schedule, new Date());
      if (next) ws.nextStartAt = next;
      else delete ws.nextStartAt;
      return noContent();
    },
  },
  {
    method: 'PUT',
    path: '/workspaces/{workspace}/ttl',
    async handle(ctx) {
      const ws = updatableWorkspace(ctx);
      const body = await readJson(ctx);
      const ttl = body.ttl_ms;
      if (ttl === undefined || ttl === null || ttl === 0) {
        delete ws.ttlMs;
        return noContent();
      }
      const invalid = (detail: string) => new ApiError(400, 'Invalid workspace autostop timer.', undefined, [{ field: 'ttl_ms', detail }]);
      if (typeof ttl !== 'number' || !Number.isInteger(ttl)) throw invalid('ttl_ms must be a whole number of milliseconds');
      if (ttl < MINUTE) throw invalid('time until shutdown must be at least one minute');
      if (ttl > TTL_MAX_MS) throw invalid('time until shutdown must be less than 30 days');
      ws.ttlMs = ttl;
      return noContent();
    },
  },
  {
    method: 'PUT',
    path: '/workspaces/{workspace}/autoupdates',
    async handle(ctx) {
      const ws = updatableWorkspace(ctx);
      const body = await readJson(ctx);
      const value = body.automatic_updates;
      if (value !== 'always' && value !== 'never') {
        throw new ApiError(400, 'Invalid request', `Unsupported value for automatic updates: "${String(value)}"; use "always" or "never".`);
      }
      ws.automaticUpdates = value;
      return noContent();
    },
  },
];
