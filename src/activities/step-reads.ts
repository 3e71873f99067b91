import type { BuildLog, Workspace, WorkspaceBuild } from '../adapters/coder';

/**
 * What one part of a combined step read from Coder, handed to the next part so it does not ask
 * again for the same thing. A part writes here only what it read itself, and a later part uses it
 * only where nothing was written to Coder in between (a fresh read after each write stays a read).
 * In-process only: Temporal calls an activity with its input alone, and then every part reads.
 */
export interface StepReads {
  /** The workspace as the preflight read it (the health check follows with no write between). */
  workspace?: Workspace;
  /** States by build id, as read (the health check reads the latest build's state again otherwise). */
  states?: Map<string, Buffer>;
  /** A build as its wait saw it end: ended builds keep their number, transition and version. */
  endedBuild?: WorkspaceBuild;
  /** The logs of `endedBuild`, complete once it ended: read once for both checks that look at them. */
  endedBuildLogs?: BuildLog[];
}
