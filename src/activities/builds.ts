import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceBuild } from '../adapters/coder';
import type { CoderApi } from './ports';
import { FailureType, coderStep, conflict } from './failures';
import { heartbeatIfInActivity } from './heartbeat';

export interface BuildRequest {
  workspaceId: string;
  subject: string; // owner/workspace, for messages
  transition: 'start' | 'stop';
  /** Pin the version: a build without it reuses the previous build's version, which is the runbook's hazard. */
  templateVersionId?: string;
  /** Builds numbered above this one were made by this migration (or an earlier attempt of this step). */
  afterBuildNumber: number;
  timeoutMs: number;
}

/**
 * Starts the build unless an earlier attempt already did, then waits for it. Safe to run twice:
 * a retried activity finds its own build by number, transition and version instead of making another.
 */
export async function runBuildOnce(coder: CoderApi, req: BuildRequest): Promise<WorkspaceBuild> {
  const step = `${req.transition} build`;
  const ws = await coderStep(step, req.subject, () => coder.workspace(req.workspaceId));
  const latest = ws.latest_build;
  let build: WorkspaceBuild;
  if (latest.build_number > req.afterBuildNumber) {
    const ours =
      latest.transition === req.transition &&
      (req.templateVersionId === undefined || latest.template_version_id === req.templateVersionId);
    if (!ours) {
      throw conflict(
        step,
        req.subject,
        `build #${latest.build_number} (${latest.transition}) was started by ${latest.initiator_name ?? 'someone else'} while the migration ran; ` +
          'stop here so a human can look before anything else changes',
      );
    }
    build = latest;
  } else {
    build = await coderStep(step, req.subject, () =>
      coder.createWorkspaceBuild(req.workspaceId, {
        transition: req.transition,
        ...(req.templateVersionId ? { template_version_id: req.templateVersionId } : {}),
      }),
    );
  }
  const done = await coderStep(step, req.subject, () =>
    coder.waitForBuild(build.id, {
      timeoutMs: req.timeoutMs,
      onPoll: (b: WorkspaceBuild) => heartbeatIfInActivity({ buildId: b.id, status: b.job.status }),
    }),
  );
  if (done.job.status !== 'succeeded') {
    throw ApplicationFailure.create({
      message: `${step} #${done.build_number} of ${req.subject} ended ${done.job.status}: ${done.job.error ?? 'no error text'}`,
      type: FailureType.buildFailed,
      nonRetryable: true,
    });
  }
  return done;
}
