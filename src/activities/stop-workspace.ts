import { runBuildOnce } from './builds';
import type { ActivityDeps } from './ports';

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
  return async function stopWorkspace(input: StopWorkspaceInput): Promise<{ buildId: string; buildNumber: number }> {
    const build = await runBuildOnce(coder, { ...input, transition: 'stop' });
    return { buildId: build.id, buildNumber: build.build_number };
  };
}
