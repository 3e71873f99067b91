/** One HTTP exchange with Coder, as seen by whoever watches the transport (metrics, logs). */
export interface CoderCall {
  method: string;
  /** The path with its identifiers replaced ("/workspaces/:id/builds"), so it is a bounded label. */
  route: string;
  /** HTTP status, or 0 when no answer came (network failure, timeout). */
  status: number;
  durationMs: number;
}

export type CoderCallObserver = (call: CoderCall) => void;

/**
 * Coder's API paths alternate collection and identifier (/workspaces/{id}/builds,
 * /users/{user}/workspace/{name}, /templates/{id}/versions/{name}), so every second segment is an
 * identifier: a user, workspace or template name, or a uuid. None of them may become a label.
 */
export function routeOf(path: string): string {
  const segments = path.split('?')[0].split('/').filter((s) => s.length > 0);
  return `/${segments.map((s, i) => (i % 2 === 1 ? ':id' : s)).join('/')}`;
}

/** 2xx, 4xx, 5xx, or 'network' when no answer came: the label Prometheus users expect. */
export function statusClass(status: number): string {
  return status === 0 ? 'network' : `${Math.floor(status / 100)}xx`;
}
