import { runBuildOnce } from './builds';
import type { ActivityDeps } from './ports';

export interface StartPinnedInput {
  workspaceId: string;
  subject: string;
  templateVersionId: string;
  afterBuildNumber: number;
  timeoutMs: number;
}

/**
 * Zero-touch: starts the workspace on an explicit template version, on the state it already has
 * (that version migrates it itself). Never a plain start: Coder would reuse the previous build's
 * (old) version. The runbook's own write is buildWithState, which carries the migrated state.
 */
export function makeStartPinned({ coder }: ActivityDeps) {
  return async function startPinned(input: StartPinnedInput): Promise<{ buildId: string; buildNumber: number }> {
    const build = await runBuildOnce(coder, { ...input, transition: 'start' });
    return { buildId: build.id, buildNumber: build.build_number };
  };
}
