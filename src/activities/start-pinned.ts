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
 * Starts the workspace on an explicit template version. Never a plain start: Coder would reuse the
 * previous build's (old) version, which plans the _v1 resources away and destroys the PVC.
 */
export function makeStartPinned({ coder }: ActivityDeps) {
  return async function startPinned(input: StartPinnedInput): Promise<{ buildId: string; buildNumber: number }> {
    const build = await runBuildOnce(coder, { ...input, transition: 'start' });
    return { buildId: build.id, buildNumber: build.build_number };
  };
}
