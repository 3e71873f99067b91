import { builtBy } from '../domain/build-initiator';
import type { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceBuild } from '../adapters/coder';
import { refuse } from './failures';

/**
 * The refusal for a workspace whose latest build is a delete (done, or still running): there is
 * nothing to migrate or recover, and its delete's destroys are no damage. Names the delete and who
 * asked for it.
 */
export function refuseDeleted(step: string, subject: string, latest: Pick<WorkspaceBuild, 'build_number' | 'reason' | 'initiator_name' | 'job'>): ApplicationFailure {
  // coderd/autobuild/lifecycle_executor.go isEligibleForDelete: Coder's own delete of a dormant workspace
  // carries reason autodelete and its owner as initiator (wsbuilder's default), though the owner did nothing.
  const by =
    latest.reason === 'autodelete'
      ? `by Coder's auto-delete of dormant workspaces (build #${latest.build_number}, reason autodelete, ${latest.job.status}: it was dormant longer than the template's time_til_dormant_autodelete)`
      : `(build #${latest.build_number}, delete by ${builtBy({ initiator: latest.initiator_name, reason: latest.reason }, 'someone')}, ${latest.job.status})`;
  return refuse(step, subject, `the workspace was deleted ${by}; nothing to migrate, nothing was built`);
}
