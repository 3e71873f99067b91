import { Context } from '@temporalio/activity';

/** Longest gap between two heartbeats with the same details; a quarter of the heartbeat timeout when that is shorter. */
export const SAME_HEARTBEAT_EVERY_MS = 10_000;

const lastBeat = new WeakMap<Context, { json: string; at: number }>();

/**
 * Heartbeats while a long wait polls, so a dead worker's step is retried elsewhere within the
 * heartbeat timeout. Details equal to the last beat's (a poll that saw the build in the same
 * status) are sent again only once SAME_HEARTBEAT_EVERY_MS has passed: what a retry reads (the
 * build id, an ended build) is always a change and always sent. Temporal's core sends a beat to
 * the server at most once per throttle interval (0.8 × the heartbeat timeout, at most 60 s), and
 * cancellation comes back in its answer, so a beat at least this often keeps both as they were.
 */
export function heartbeatIfInActivity(details?: unknown, now: () => number = Date.now): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return; // called outside an activity (unit tests): nothing to heartbeat
  }
  const json = JSON.stringify(details) ?? '';
  const last = lastBeat.get(context);
  const every = Math.min(SAME_HEARTBEAT_EVERY_MS, (context.info.heartbeatTimeoutMs || Infinity) / 4);
  if (last && last.json === json && now() - last.at < every) return;
  lastBeat.set(context, { json, at: now() });
  context.heartbeat(details);
}

/** The build an earlier attempt of this activity heartbeated once it had created it (`{ buildId }`), if any. */
export function heartbeatedBuildId(): string | undefined {
  try {
    const details = Context.current().info.heartbeatDetails as { buildId?: unknown } | undefined;
    return typeof details?.buildId === 'string' ? details.buildId : undefined;
  } catch {
    return undefined; // outside an activity (unit tests)
  }
}

/** The build an earlier attempt heartbeated as ended well (`{ buildId, buildNumber, succeeded: true }`): a retry only checks it again. */
export function heartbeatedSucceededBuild(): { buildId: string; buildNumber: number } | undefined {
  try {
    const d = Context.current().info.heartbeatDetails as { buildId?: unknown; buildNumber?: unknown; succeeded?: unknown } | undefined;
    return d?.succeeded === true && typeof d.buildId === 'string' && typeof d.buildNumber === 'number' ? { buildId: d.buildId, buildNumber: d.buildNumber } : undefined;
  } catch {
    return undefined; // outside an activity (unit tests)
  }
}
