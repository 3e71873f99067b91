import { runBuildOnce } from './builds';
import type { ActivityDeps } from './ports';
import type { StepReads } from './step-reads';

export interface StopWorkspaceInput {
  workspaceId: string;
  subject: string;
  afterBuildNumber: number;
  timeoutMs: number;
}

/**
 * Option A: stop before anything else, on the version the workspace runs (a stop needs no pin:
 * state and version still match). Afterwards a user's "Update and Restart" runs no stop build.
 */
export function makeStopWorkspace({ coder }: ActivityDeps) {
  /** `reads`: keeps the ended stop build for the part of a combined step that reads what it changed. */
  return async function stopWorkspace(input: StopWorkspaceInput, reads?: StepReads): Promise<{ buildId: string; buildNumber: number }> {
    const build = await runBuildOnce(coder, { ...input, transition: 'stop' }, reads);
    return { buildId: build.id, buildNumber: build.build_number };
  };
}
