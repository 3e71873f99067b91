import { runBuildOnce } from './builds';
import { coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface ReturnToPriorInput {
  workspaceId: string;
  subject: string;
  prior: { transition: 'start' | 'stop'; templateVersionId: string };
  timeoutMs: number;
}

/**
 * Compensation: brings the workspace back to the transition and version it had. Both are pinned:
 * an unpinned stop after a start on the new version would plan the old state against the new
 * version, which is exactly the build that destroys a PVC.
 */
export function makeReturnToPrior({ coder }: ActivityDeps) {
  return async function returnToPrior(input: ReturnToPriorInput): Promise<{ buildId?: string; changed: boolean }> {
    const ws = await coderStep('return to prior state', input.subject, () => coder.workspace(input.workspaceId));
    const latest = ws.latest_build;
    const matches = latest.transition === input.prior.transition && latest.template_version_id === input.prior.templateVersionId;
    if (matches && latest.job.status === 'succeeded') return { changed: false };
    // A matching build still running is ours from an earlier attempt: runBuildOnce waits for it.
    const afterBuildNumber = matches && ['pending', 'running'].includes(latest.job.status) ? latest.build_number - 1 : latest.build_number;
    const build = await runBuildOnce(coder, {
      workspaceId: input.workspaceId,
      subject: input.subject,
      transition: input.prior.transition,
      templateVersionId: input.prior.templateVersionId,
      afterBuildNumber,
      timeoutMs: input.timeoutMs,
    });
    return { buildId: build.id, changed: true };
  };
}
