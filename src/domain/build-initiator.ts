/**
 * Build reasons Coder's own jobs give (coderd/database/models.go BuildReason; the lifecycle executor,
 * coderd/autobuild/lifecycle_executor.go, and the task pauser). Such a build's initiator is the
 * workspace's owner all the same (wsbuilder.go buildTx: "if we haven't been told specifically who
 * initiated, default to owner"), though the owner pressed nothing.
 */
const CODER_OWN_REASONS = new Set(['autostart', 'autostop', 'autolock', 'dormancy', 'failedstop', 'autodelete', 'task_auto_pause']);

/** Who made a build, as a person would say it: `alice`, or `Coder's autostart` for Coder's own builds. */
export function builtBy(build: { initiator?: string; reason?: string }, unknown = 'someone else'): string {
  if (build.reason !== undefined && CODER_OWN_REASONS.has(build.reason)) return `Coder's ${build.reason}`;
  return build.initiator ?? unknown;
}
