import { Context } from '@temporalio/activity';

/** Heartbeats while a long wait polls, so a dead worker's step is retried elsewhere within the heartbeat timeout. */
export function heartbeatIfInActivity(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // called outside an activity (unit tests): nothing to heartbeat
  }
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
