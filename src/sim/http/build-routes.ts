import { ApiError, notFound } from '../api-error';
import { buildJson, logJson } from '../api-shapes';
import { refusesBuildsOnDeletedWorkspaces } from '../deleted-workspace-builds';
import { supportsStatePut } from '../state-put-support';
import { parseRichParameterValues } from '../template-parameters';
import type { Transition } from '../workspace-context';
import { noContent, ok, optionalString, page, paging, readJson, uuidParam, type Route } from './route';

const TRANSITIONS: readonly Transition[] = ['start', 'stop', 'delete'];
/** codersdk.CreateWorkspaceBuildReason: the values a client may send (the others are Coder's own). */
const BUILD_REASONS: readonly string[] = ['dashboard', 'cli', 'ssh_connection', 'vscode_connection', 'jetbrains_connection'];

/**
 * A Go `[]byte` field: encoding/json sends standard base64. The API reference renders it as an
 * array of integers, which is unconfirmed, so that reading is accepted too.
 */
export function decodeBytesField(value: unknown, field: string): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
      throw new ApiError(400, 'Request body must be valid JSON.', `"${field}" is not valid standard base64 (illegal base64 data)`);
    }
    return Buffer.from(value, 'base64');
  }
  if (Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return Buffer.from(value as number[]);
  throw new ApiError(400, 'Request body must be valid JSON.', `"${field}" must be a base64 string (or an array of byte values)`);
}

export const buildRoutes: Route[] = [
  {
    // coderd/workspacebuilds.go patchCancelWorkspaceBuild.
    method: 'PATCH',
    path: '/workspacebuilds/{workspacebuild}/cancel',
    handle(ctx) {
      const d = ctx.deployment;
      const build = d.builds.get(uuidParam(ctx, 'workspacebuild', 'workspace build'));
      if (!build) throw notFound();
      // `expect_status` (running|pending): checked before the build is looked at; another value is a 400.
      const expect = ctx.query.get('expect_status') ?? '';
      if (expect !== '' && expect !== 'running' && expect !== 'pending') {
        throw new ApiError(400, `Invalid expect_status "${expect}". Only 'running' or 'pending' are allowed.`);
      }
      d.cancelBuild(ctx.actor, build, expect === '' ? undefined : (expect as 'running' | 'pending'));
      return ok({ message: 'Job has been marked as canceled...' });
    },
  },
  {
    method: 'POST',
    path: '/workspaces/{workspace}/builds',
    async handle(ctx) {
      const d = ctx.deployment;
      // No read check here: createBuild answers 404 or 403 as wsbuilder's authorize does.
      const ws = d.workspaces.get(uuidParam(ctx, 'workspace', 'workspace'));
      if (!ws) throw notFound();
      const body = await readJson(ctx);
      const transition = body.transition;
      if (typeof transition !== 'string' || !TRANSITIONS.includes(transition as Transition)) {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'transition', detail: 'Validation failed for tag "oneof" with value: "' + String(transition ?? '') + '"' }]);
      }
      // coderd/workspacebuilds.go postWorkspaceBuilds, from 2.28 (deleted-workspace-builds.ts): a deleted
      // workspace takes a delete build only. Before, a start or stop was queued and provisioned like any other.
      if (ws.deleted && transition !== 'delete' && refusesBuildsOnDeletedWorkspaces(ctx.serverVersion)) {
        throw new ApiError(409, `Cannot ${transition} a deleted workspace!`, 'This workspace has been deleted and cannot be modified.');
      }
      const versionId = optionalString(body, 'template_version_id');
      if (versionId !== undefined && !/^[0-9a-f-]{36}$/i.test(versionId)) {
        throw new ApiError(400, 'Request body must be valid JSON.', '"template_version_id" must be a UUID');
      }
      // codersdk.CreateWorkspaceBuildRequest `reason`: validated against a fixed list (httpapi.Read, 400).
      const reason = optionalString(body, 'reason');
      if (reason !== undefined && reason !== '' && !BUILD_REASONS.includes(reason)) {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'reason', detail: `Validation failed for tag "oneof" with value: "${reason}"` }]);
      }
      const logLevel = optionalString(body, 'log_level');
      if (logLevel !== undefined && logLevel !== 'debug') {
        throw new ApiError(400, 'Validation failed.', undefined, [{ field: 'log_level', detail: 'Validation failed for tag "oneof"' }]);
      }
      const state = decodeBytesField(body.state, 'state');
      const richParameterValues = parseRichParameterValues(body.rich_parameter_values);
      const build = d.createBuild(ctx.actor, ws, {
        transition: transition as Transition,
        ...(versionId !== undefined ? { templateVersionId: versionId.toLowerCase() } : {}),
        ...(state !== undefined ? { state } : {}),
        orphan: body.orphan === true,
        ...(logLevel !== undefined ? { logLevel: 'debug' as const } : {}),
        // postWorkspaceBuildsInternal sets it on the builder for start and stop only: a delete stays `initiator`.
        ...(reason && transition !== 'delete' ? { reason } : {}),
        ...(richParameterValues ? { richParameterValues } : {}),
      });
      return ok(buildJson(d, build), 201);
    },
  },
  {
    method: 'GET',
    path: '/workspaces/{workspace}/builds',
    handle(ctx) {
      const d = ctx.deployment;
      const ws = d.readableWorkspace(ctx.actor, uuidParam(ctx, 'workspace', 'workspace'));
      const builds = ws.buildIds.map((id) => d.builds.get(id)).filter((b) => b !== undefined).reverse();
      return ok(page(builds, paging(ctx.query)).map((b) => buildJson(d, b)));
    },
  },
  {
    method: 'GET',
    path: '/users/{user}/workspace/{workspacename}/builds/{buildnumber}',
    handle(ctx) {
      const d = ctx.deployment;
      const owner = d.resolveUser(ctx.params.user ?? '', ctx.actor);
      const name = (ctx.params.workspacename ?? '').toLowerCase();
      const ws = owner ? [...d.workspaces.values()].find((w) => w.ownerId === owner.id && w.name.toLowerCase() === name && d.canReadWorkspace(ctx.actor, w)) : undefined;
      const build = ws?.buildIds.map((id) => d.builds.get(id)).find((b) => String(b?.buildNumber) === ctx.params.buildnumber);
      if (!build) throw notFound();
      return ok(buildJson(d, build));
    },
  },
  {
    method: 'GET',
    path: '/workspacebuilds/{workspacebuild}',
    handle(ctx) {
      const build = ctx.deployment.readableBuild(ctx.actor, uuidParam(ctx, 'workspacebuild', 'workspace build'));
      return ok(buildJson(ctx.deployment, build));
    },
  },
  {
    // coderd/workspacebuilds.go workspaceBuildParameters: the values the build resolved.
    method: 'GET',
    path: '/workspacebuilds/{workspacebuild}/parameters',
    handle(ctx) {
      const build = ctx.deployment.readableBuild(ctx.actor, uuidParam(ctx, 'workspacebuild', 'workspace build'));
      return ok(build.parameters.map((p) => ({ name: p.name, value: p.value })));
    },
  },
  {
    method: 'GET',
    path: '/workspacebuilds/{workspacebuild}/logs',
    handle(ctx) {
      const build = ctx.deployment.readableBuild(ctx.actor, uuidParam(ctx, 'workspacebuild', 'workspace build'));
      if (ctx.query.has('follow')) {
        throw new ApiError(400, 'Following logs needs a WebSocket upgrade, which the simulator does not serve.', 'Poll GET …/logs?after=<last id> instead.');
      }
      const after = Number(ctx.query.get('after') ?? '0') || 0;
      const beforeRaw = ctx.query.get('before');
      const before = beforeRaw ? Number(beforeRaw) : Infinity;
      return ok(build.job.logs.filter((l) => l.id > after && l.id < before).map(logJson));
    },
  },
  {
    method: 'GET',
    path: '/workspacebuilds/{workspacebuild}/state',
    handle(ctx) {
      const d = ctx.deployment;
      const build = d.readableBuild(ctx.actor, uuidParam(ctx, 'workspacebuild', 'workspace build'));
      return { status: 200, bytes: d.readState(ctx.actor, build), contentType: 'application/json' };
    },
  },
  {
    method: 'PUT',
    path: '/workspacebuilds/{workspacebuild}/state',
    availableIn: supportsStatePut,
    async handle(ctx) {
      const d = ctx.deployment;
      const build = d.readableBuild(ctx.actor, uuidParam(ctx, 'workspacebuild', 'workspace build'));
      // coderd/workspacebuilds.go workspaceBuildUpdateState: the rights are checked before the body is read.
      d.authorizeStateWrite(ctx.actor, build);
      const body = await readJson(ctx);
      // A nil []byte: `{}` stores an empty state.
      const state = decodeBytesField(body.state, 'state') ?? Buffer.alloc(0);
      d.putState(ctx.actor, build, state);
      return noContent();
    },
  },
];
