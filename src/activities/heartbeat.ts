import { Context } from '@temporalio/activity';

/** Heartbeats while a long wait polls, so a dead worker's step is retried elsewhere within the heartbeat timeout. */
export function heartbeatIfInActivity(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // called outside an activity (unit tests): nothing to heartbeat
  }
}
