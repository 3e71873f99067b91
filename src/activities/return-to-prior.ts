import { ApplicationFailure } from '@temporalio/common';
import { runBuildOnce } from './builds';
import { coderStep, FailureType } from './failures';
import type { ActivityDeps } from './ports';

/** The prior build is the one the workspace already ran: a provisioner's passing failure may be tried again. */
const PRIOR_BUILD_TRIES = 3;

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
    let afterBuildNumber = matches && ['pending', 'running'].includes(latest.job.status) ? latest.build_number - 1 : latest.build_number;
    for (let attempt = 1; ; attempt++) {
      try {
        const build = await runBuildOnce(coder, {
          workspaceId: input.workspaceId,
          subject: input.subject,
          transition: input.prior.transition,
          templateVersionId: input.prior.templateVersionId,
          afterBuildNumber,
          timeoutMs: input.timeoutMs,
        });
        return { buildId: build.id, changed: true };
      } catch (err) {
        if (!(err instanceof ApplicationFailure && err.type === FailureType.buildFailed) || attempt >= PRIOR_BUILD_TRIES) throw err;
        // Our failed build is now the latest: the next try comes after it.
        afterBuildNumber = (await coderStep('return to prior state', input.subject, () => coder.workspace(input.workspaceId))).latest_build.build_number;
      }
    }
  };
}
