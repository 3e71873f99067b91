import { ApiError } from './api-error';

/** A parsed `q` of GET /workspaces. */
export interface WorkspaceQuery {
  owner?: string;
  template?: string;
  /** Partial, case-insensitive match. */
  name?: string;
  status?: string;
  id?: string;
  outdated?: boolean;
  organization?: string;
  dormant?: boolean;
}

/** Keys coderd accepts; the ones the simulator does not filter on are accepted and ignored. */
const IGNORED_KEYS = new Set([
  'has-agent',
  'last_used_after',
  'last_used_before',
  'has-ai-task',
  'has_external_agent',
  'healthy',
  'include_agent_metadata',
  'shared',
  'shared_with_user',
  'shared_with_group',
]);

function invalid(detail: string): ApiError {
  return new ApiError(400, 'Invalid workspace search query.', undefined, [{ field: 'q', detail }]);
}

/** database.WorkspaceStatus (coderd/database/models.go). */
const WORKSPACE_STATUSES = new Set(['pending', 'starting', 'running', 'stopping', 'stopped', 'failed', 'canceling', 'canceled', 'deleting', 'deleted']);

function invalidParam(key: string, detail: string): ApiError {
  return new ApiError(400, 'Invalid workspace search query.', undefined, [{ field: key, detail: `Query param "${key}" has invalid value: ${detail}` }]);
}

function tokenize(q: string): string[] {
  const terms: string[] = [];
  const re = /(?:[^\s"]+|"[^"]*")+/g;
  for (const m of q.matchAll(re)) terms.push(m[0]);
  return terms;
}

function unquote(value: string): string {
  return value.replace(/"/g, '');
}

function parseBool(key: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalid(`Query param "${key}" must be a valid boolean: "${value}" is not one.`);
}

/**
 * Parses coderd's workspace search syntax: space-separated `key:value` terms (values may be
 * double-quoted), lower-cased as a whole; a bare term is a name, `owner/name` sets both.
 * `user:` is taken as `owner:` too, since newer docs spell it that way (unconfirmed rename).
 */
export function parseWorkspaceQuery(q: string): WorkspaceQuery {
  const query: WorkspaceQuery = {};
  for (const term of tokenize(q.toLowerCase())) {
    const colon = term.indexOf(':');
    if (colon < 0 || term.startsWith('"')) {
      const bare = unquote(term);
      const slash = bare.indexOf('/');
      if (slash >= 0) {
        query.owner = bare.slice(0, slash);
        query.name = bare.slice(slash + 1);
      } else query.name = bare;
      continue;
    }
    const key = term.slice(0, colon);
    const value = unquote(term.slice(colon + 1));
    if (value === '') throw invalid(`Query element "${term}" has an empty value.`);
    switch (key) {
      case 'owner':
      case 'user':
        query.owner = value;
        break;
      case 'template':
        query.template = value;
        break;
      case 'name':
        query.name = value;
        break;
      case 'status':
        // search.go: httpapi.ParseEnum[database.WorkspaceStatus]; any other value is a 400, not an empty list.
        if (!WORKSPACE_STATUSES.has(value)) throw invalidParam(key, `"${value}" is not a valid workspace status`);
        query.status = value;
        break;
      case 'id':
        query.id = value;
        break;
      case 'organization':
        query.organization = value;
        break;
      case 'outdated':
        query.outdated = parseBool(key, value);
        break;
      case 'dormant':
        query.dormant = parseBool(key, value);
        break;
      default:
        if (IGNORED_KEYS.has(key) || key.startsWith('param:') || key === 'param') break;
        throw invalid(`Query param "${key}" is not a valid query param`);
    }
  }
  return query;
}
