/**
 * The reason a run (or any call) failed, in words, from an error and its chain of causes. No SDK
 * import: the CLI's error path loads this for offline commands too.
 */

/** Wrappers the SDK puts around the real reason: said only when nothing underneath says more. */
const WRAPPER_MESSAGES = new Set(['Workflow execution failed', 'Activity task failed', 'Child Workflow execution failed', 'Workflow execution cancelled']);

/** One item of an `ApplicationFailure.details` array, as text (`{store, key}` → `store=…, key=…`). */
function detailText(detail: unknown): string {
  if (detail === null || detail === undefined) return '';
  if (typeof detail === 'string') return detail;
  if (typeof detail !== 'object') return String(detail);
  if (Array.isArray(detail)) return detail.map(detailText).filter(Boolean).join(', ');
  return Object.entries(detail as Record<string, unknown>)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

/** What one link of the chain says: its message, then its details (a string or an array of anything). */
function ownText(e: unknown): string[] {
  if (typeof e !== 'object') return [String(e).trim()];
  const { message, details } = e as { message?: unknown; details?: unknown };
  const texts = [typeof message === 'string' ? message.trim() : String(e).trim()];
  const list = Array.isArray(details) ? details : details === undefined ? [] : [details];
  for (const d of list) texts.push(detailText(d).trim());
  return texts;
}

/** Each error of the chain (the error, its cause, …), at most `limit` deep. */
function chainOf(err: unknown, limit = 8): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && chain.length < limit; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
    if (typeof e !== 'object') break;
  }
  return chain;
}

/**
 * An error's message followed by each cause's (and each detail) that the text does not already
 * contain, so a wrapper like "Workflow execution failed" never hides the reason underneath.
 */
export function failureText(err: unknown): string {
  const chain = chainOf(err);
  const parts: string[] = [];
  chain.forEach((e, i) => {
    for (const own of ownText(e)) {
      const isWrapper = WRAPPER_MESSAGES.has(own) && i < chain.length - 1;
      if (own && !isWrapper && !parts.some((p) => p.includes(own))) parts.push(own);
    }
  });
  return parts.join(': ') || 'unknown error';
}

/** The `type` of the innermost application failure in the chain (e.g. `WsmigrateRefused`), if any. */
export function failureTypeOf(err: unknown): string | undefined {
  let type: string | undefined;
  for (const e of chainOf(err)) {
    const t = (e as { type?: unknown } | null)?.type;
    if (typeof t === 'string' && t) type = t;
  }
  return type;
}
