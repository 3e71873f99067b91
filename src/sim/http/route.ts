import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../api-error';
import type { SimControls } from '../controls';
import type { SimDeployment } from '../deployment';
import type { User } from '../model';

export interface Reply {
  status: number;
  json?: unknown;
  bytes?: Buffer;
  contentType?: string;
}

export interface RouteContext {
  deployment: SimDeployment;
  /** The simulator's switches (faults, daemons, users' builds), for its own /sim routes. */
  controls: SimControls;
  /** The caller; routes marked `public` (buildinfo) must not read it, as no token was checked. */
  actor: User;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body; rejects with 413 past `limit` bytes. */
  body(limit?: number): Promise<Buffer>;
  serverVersion: string;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under /api/v2 with `{param}` segments. */
  path: string;
  public?: boolean;
  /** False when the configured Coder release does not have this route (it then answers like an unknown route). */
  availableIn?: (version: string) => boolean;
  handle(ctx: RouteContext): Promise<Reply> | Reply;
}

export function ok(json: unknown, status = 200): Reply {
  return { status, json };
}

export function noContent(): Reply {
  return { status: 204 };
}

/** Parses a JSON request body as coderd's httpapi.Read does, answering 400 on anything else. */
export async function readJson(ctx: RouteContext): Promise<Record<string, unknown>> {
  const raw = await ctx.body(10 * 1024 * 1024);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new ApiError(400, 'Request body must be valid JSON.', (err as Error).message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'Request body must be valid JSON.', 'expected a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError(400, 'Request body must be valid JSON.', `"${field}" must be a string`);
  return value;
}

export function uuidParam(ctx: RouteContext, name: string, what: string): string {
  const value = ctx.params[name] ?? '';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new ApiError(400, `Invalid UUID "${value}".`, `${what} must be a UUID.`);
  }
  return value.toLowerCase();
}

/** `limit` and `offset` as coderd parses them (negative or non-numeric → 400). */
export function paging(query: URLSearchParams): { limit?: number; offset: number } {
  const parse = (name: string): number | undefined => {
    const raw = query.get(name);
    if (raw === null || raw === '') return undefined;
    if (!/^\d+$/.test(raw)) throw new ApiError(400, 'Query parameters have invalid values.', undefined, [{ field: name, detail: `Query param "${name}" must be a valid non-negative integer.` }]);
    return Number(raw);
  };
  const limit = parse('limit');
  return { ...(limit ? { limit } : {}), offset: parse('offset') ?? 0 };
}

export function page<T>(items: readonly T[], p: { limit?: number; offset: number }): T[] {
  return items.slice(p.offset, p.limit !== undefined ? p.offset + p.limit : undefined);
}
