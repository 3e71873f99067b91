import { ApiError } from '../api-error';
import { faultConfigErrors } from '../fault-config';
import type { FaultConfig } from '../types';
import { noContent, ok, readJson, type Route, type RouteContext } from './route';
import { requireSimAdmin } from './sim-routes';

/**
 * The simulator's switches over HTTP (not Coder's API; Owners only), so a hazard can be driven from
 * outside the process: curl, a script, another test harness. Each does what the in-process handle's
 * method of the same name does (controls.ts).
 */

const validation = (field: string, detail: string) => new ApiError(400, 'Validation failed.', undefined, [{ field, detail }]);

function faultsReply(ctx: RouteContext) {
  return ok({ faults: ctx.controls.faults() ?? {}, injected: ctx.controls.faultCounts() });
}

/** GET /api/v2/sim/faults: the faults now in force and how many were injected since start. */
const getFaults: Route = {
  method: 'GET',
  path: '/sim/faults',
  handle(ctx) {
    requireSimAdmin(ctx);
    return faultsReply(ctx);
  },
};

/**
 * PUT /api/v2/sim/faults {…}: replaces every fault with these (the object `startSimulator({ faults })`
 * takes: error500Rate, rate429, failBuilds, lossyBuild, wrongStoredState, …). Every field is checked;
 * a bad one changes nothing. Requests to /api/v2/sim/… are never faulted.
 */
const putFaults: Route = {
  method: 'PUT',
  path: '/sim/faults',
  async handle(ctx) {
    requireSimAdmin(ctx);
    const body = await readJson(ctx);
    const errors = faultConfigErrors(body);
    if (errors.length > 0) throw new ApiError(400, 'Validation failed.', 'Nothing was changed: the faults in force are the ones before this request.', errors);
    ctx.controls.setFaults(body as FaultConfig);
    return faultsReply(ctx);
  },
};

/** DELETE /api/v2/sim/faults: no fault from now on. */
const deleteFaults: Route = {
  method: 'DELETE',
  path: '/sim/faults',
  handle(ctx) {
    requireSimAdmin(ctx);
    ctx.controls.setFaults(undefined);
    return noContent();
  },
};

/** PATCH /api/v2/sim/provisionerdaemons/{name} {"offline": true}: a daemon goes away (it finishes its job and takes no other), or comes back. */
const patchDaemon: Route = {
  method: 'PATCH',
  path: '/sim/provisionerdaemons/{name}',
  async handle(ctx) {
    requireSimAdmin(ctx);
    const body = await readJson(ctx);
    if (typeof body.offline !== 'boolean') throw validation('offline', `Must be true (the daemon goes away) or false (it comes back), got ${JSON.stringify(body.offline)}.`);
    const pool = ctx.deployment.daemons;
    if (!pool) throw new ApiError(400, 'The simulator runs unlimited daemons.', 'Start it with --provisioners N to take one offline.');
    const daemon = pool.daemons.find((d) => d.name === ctx.params.name);
    if (!daemon) throw new ApiError(404, `No provisioner daemon "${ctx.params.name}".`, `The daemons are ${pool.daemons.map((d) => d.name).join(', ')}.`);
    ctx.controls.setDaemonOffline(daemon.name, body.offline);
    return ok({ name: daemon.name, status: pool.status(daemon) });
  },
};

/**
 * PUT /api/v2/sim/user-builds {"interval_ms": 2000, "templates": ["team-tools"]}: users press Start and
 * Stop on their own workspaces of those templates (default: every template but the seeded one), one
 * build every interval_ms, sharing the daemons' queue. DELETE stops them. Both answer the stream's figures.
 */
const putUserBuilds: Route = {
  method: 'PUT',
  path: '/sim/user-builds',
  async handle(ctx) {
    requireSimAdmin(ctx);
    const body = await readJson(ctx);
    const interval = body.interval_ms ?? 2000;
    if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 10 || interval > 3_600_000) throw validation('interval_ms', `Must be a whole number of milliseconds from 10 to 3600000, got ${JSON.stringify(interval)}.`);
    const templates = body.templates;
    if (templates !== undefined && !(Array.isArray(templates) && templates.length > 0 && templates.every((t) => typeof t === 'string'))) {
      throw validation('templates', 'Must be a non-empty array of template names.');
    }
    try {
      ctx.controls.startUserBuilds({ intervalMs: interval, ...(templates !== undefined ? { templates: templates as string[] } : {}) });
    } catch (err) {
      throw new ApiError(400, 'Cannot start users\' builds.', (err as Error).message);
    }
    return ok(userBuildFigures(ctx));
  },
};

const deleteUserBuilds: Route = {
  method: 'DELETE',
  path: '/sim/user-builds',
  handle(ctx) {
    requireSimAdmin(ctx);
    ctx.controls.stopUserBuilds();
    return ok(userBuildFigures(ctx));
  },
};

function userBuildFigures(ctx: RouteContext) {
  const s = ctx.controls.userBuildStats();
  return { builds: s.builds, still_queued: s.stillQueued, queue_waits_ms: s.queueWaitsMs };
}

/**
 * GET /api/v2/sim/cluster: every object of the workspaces' cluster (kind, namespace, name, uid) and
 * every home volume lost outside a workspace delete: the truth a scenario judges a migration by,
 * independent of anything wsmigrate or Coder reports.
 */
const getCluster: Route = {
  method: 'GET',
  path: '/sim/cluster',
  handle(ctx) {
    requireSimAdmin(ctx);
    const cluster = ctx.deployment.provisioner.cluster;
    return ok({
      objects: cluster.objects().map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, uid: o.uid, created_at: o.createdAt })),
      pvc_losses: cluster.pvcLosses().map((l) => ({ workspace_id: l.workspace, namespace: l.namespace, name: l.name, old_uid: l.oldUid, ...(l.newUid ? { new_uid: l.newUid } : {}), build_id: l.buildId })),
    });
  },
};

export const simControlRoutes: Route[] = [getFaults, putFaults, deleteFaults, patchDaemon, putUserBuilds, deleteUserBuilds, getCluster];
