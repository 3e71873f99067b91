import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, routeNotFound } from '../api-error';
import type { SimControls } from '../controls';
import type { SimDeployment } from '../deployment';
import type { SimRandom } from '../random';
import type { FaultConfig, RequestLogEntry } from '../types';
import { authcheckRoute } from './authcheck-route';
import { buildInfoRoute } from './buildinfo-route';
import { buildRoutes } from './build-routes';
import { fileRoutes } from './file-routes';
import { organizationRoutes } from './organization-routes';
import { provisionerRoutes } from './provisioner-routes';
import type { Reply, Route, RouteContext } from './route';
import { simControlRoutes } from './sim-control-routes';
import { simLifecycleTickRoute, simPrebuildsReconcileRoute, simTokenRoute } from './sim-routes';
import { templateRoutes } from './template-routes';
import { userRoutes } from './user-routes';
import { workspaceRoutes } from './workspace-routes';
import { workspaceScheduleRoutes } from './workspace-schedule-routes';

const API_PREFIX = '/api/v2';
const SESSION_COOKIE = 'coder_session_token';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

const ROUTES = [buildInfoRoute, authcheckRoute, simTokenRoute, simLifecycleTickRoute, simPrebuildsReconcileRoute, ...simControlRoutes, ...userRoutes, ...workspaceRoutes, ...workspaceScheduleRoutes, ...buildRoutes, ...templateRoutes, ...fileRoutes, ...provisionerRoutes, ...organizationRoutes].map(compile);

export interface SimHttpServerOptions {
  deployment: SimDeployment;
  serverVersion: string;
  faultRandom: SimRandom;
  /** Injected faults, daemons, users' builds: read per request, switched through /api/v2/sim/…. */
  controls: SimControls;
}

function sessionToken(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers['coder-session-token'];
  if (typeof header === 'string' && header) return header;
  const cookie = req.headers.cookie?.split(';').map((c) => c.trim().split('=')).find(([k]) => k === SESSION_COOKIE);
  if (cookie?.[1]) return decodeURIComponent(cookie[1]);
  return url.searchParams.get(SESSION_COOKIE) ?? undefined;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let rejected = false;
    req.on('data', (chunk: Buffer) => {
      if (rejected) return;
      size += chunk.length;
      if (size > limit) {
        rejected = true;
        reject(new ApiError(413, 'File too large.', `The request body is over the limit of ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!rejected) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.bytes !== undefined) {
    res.writeHead(reply.status, { 'Content-Type': reply.contentType ?? 'application/octet-stream', 'Content-Length': reply.bytes.length });
    res.end(reply.bytes);
    return;
  }
  if (reply.json === undefined) {
    res.writeHead(reply.status);
    res.end();
    return;
  }
  const body = Buffer.from(JSON.stringify(reply.json), 'utf8');
  res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

function faultApplies(faults: FaultConfig, path: string): boolean {
  // The simulator's own controls never fail: a scenario must always be able to switch its faults off.
  if (path.startsWith(`${API_PREFIX}/sim/`)) return false;
  if (path === `${API_PREFIX}/buildinfo` && !faults.includeBuildInfo) return false;
  if (faults.only && !faults.only.some((fragment) => path.includes(fragment))) return false;
  return true;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The HTTP face of the simulator: coderd's routes, auth, error bodies, and injected faults. */
export class SimHttpServer {
  readonly log: RequestLogEntry[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<import('node:net').Socket>();

  constructor(private readonly opts: SimHttpServerOptions) {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  listen(port: number, host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const address = this.server.address() as AddressInfo;
        resolve(`http://${host}:${address.port}`);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      for (const socket of this.sockets) socket.destroy();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const entry: RequestLogEntry = { method, path: url.pathname, status: 0 };
    this.log.push(entry);
    const faults = this.opts.controls.faults();
    if (faults && faultApplies(faults, url.pathname)) {
      if (faults.addedLatencyMs) await sleep(faults.addedLatencyMs);
      const rnd = this.opts.faultRandom;
      if (faults.latencySpikeRate && rnd.next() < faults.latencySpikeRate) {
        this.opts.controls.injected.latencySpike++;
        await sleep(faults.latencySpikeMs ?? 5000);
      }
      if (faults.dropConnectionRate && rnd.next() < faults.dropConnectionRate) {
        this.opts.controls.injected.dropped++;
        req.socket.destroy();
        return;
      }
      if (faults.rate429 && rnd.next() < faults.rate429) {
        const retryAfter = String(faults.retryAfterSeconds ?? 1);
        res.setHeader('Retry-After', retryAfter);
        this.opts.controls.injected.http429++;
        entry.status = 429;
        send(res, { status: 429, json: { message: 'You have been rate limited.', detail: `Retry after ${retryAfter} seconds.` } });
        return;
      }
      if (faults.error500Rate && rnd.next() < faults.error500Rate) {
        this.opts.controls.injected.http500++;
        entry.status = 500;
        send(res, { status: 500, json: { message: 'Internal error.', detail: 'simulated fault (error500Rate)' } });
        return;
      }
    }
    const reply = await this.dispatch(req, url, method).catch((err: unknown): Reply => {
      if (err instanceof ApiError) return { status: err.status, json: err.body() };
      return { status: 500, json: { message: 'Internal error.', detail: err instanceof Error ? err.message : String(err) } };
    });
    entry.status = reply.status;
    const after = this.opts.controls.faults();
    if (after?.replyDelayMs && method !== 'GET' && faultApplies(after, url.pathname)) await sleep(after.replyDelayMs);
    if (!res.destroyed) send(res, reply);
  }

  private async dispatch(req: IncomingMessage, url: URL, method: string): Promise<Reply> {
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) throw routeNotFound();
    const path = url.pathname.slice(API_PREFIX.length);
    const version = this.opts.serverVersion;
    let pathMatched = false;
    const allowed: string[] = [];
    for (const compiled of ROUTES) {
      const m = compiled.pattern.exec(path);
      if (!m) continue;
      if (compiled.route.availableIn && !compiled.route.availableIn(version)) {
        // A release without this handler: answer as for an unknown route, not 405 for its sibling method.
        if (compiled.route.method === method) throw routeNotFound();
        continue;
      }
      pathMatched = true;
      allowed.push(compiled.route.method);
      if (compiled.route.method !== method) continue;
      const params = Object.fromEntries(compiled.names.map((name, i) => [name, decodeURIComponent(m[i + 1] ?? '')]));
      const d = this.opts.deployment;
      let actor = undefined as RouteContext['actor'] | undefined;
      if (!compiled.route.public) {
        const token = sessionToken(req, url);
        if (!token) throw new ApiError(401, `Cookie "${SESSION_COOKIE}" or query parameter must be provided.`);
        actor = d.signedInUser(token);
        if (!actor) throw new ApiError(401, 'API key is invalid.', 'The session token is unknown or expired; log in again.');
      }
      const ctx: RouteContext = {
        deployment: d,
        controls: this.opts.controls,
        actor: actor as RouteContext['actor'],
        params,
        query: url.searchParams,
        headers: req.headers,
        body: (limit = 10 * 1024 * 1024) => readBody(req, limit),
        serverVersion: version,
      };
      return compiled.route.handle(ctx);
    }
    // Coder's own routes answer as chi does; the simulator's controls say which methods they take.
    if (pathMatched && path.startsWith('/sim/')) throw new ApiError(405, `Method not allowed: ${API_PREFIX}${path} takes ${[...new Set(allowed)].join(', ')} (README, "The simulator's own controls").`);
    if (pathMatched) throw new ApiError(405, 'Method not allowed.');
    throw routeNotFound();
  }
}
