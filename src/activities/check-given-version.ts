import { ApplicationFailure } from '@temporalio/common';
import { givenVersionProblem } from '../adapters/coder';
import { FailureType, coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface CheckGivenVersionInput {
  organization: string;
  template: string;
  versionId: string;
  /** The fleet will make the template require its active version (its guards are checked too). */
  requireActiveVersion?: boolean;
  /** A dry run builds nothing: its version need not be the active one. */
  dryRun?: boolean;
}

/**
 * A fleet given `--version` skips the template's migration and takes that version as done for every
 * workspace already on it: refused before the fleet changes anything unless it is an imported `_v1`
 * version of this very template, and (unless a dry run) its active version.
 */
export function makeCheckGivenVersion({ coder }: ActivityDeps) {
  return async function checkGivenVersion(input: CheckGivenVersionInput): Promise<void> {
    const subject = `template ${input.organization}/${input.template}`;
    const template = await coderStep('check version', subject, () => coder.templateByName(input.organization, input.template));
    const problem = await coderStep('check version', subject, () =>
      givenVersionProblem(coder, { id: template.id, organization: input.organization, name: input.template }, input.versionId, input.dryRun ? undefined : { activeVersionId: template.active_version_id, lock: Boolean(input.requireActiveVersion) }),
    );
    if (!problem) return;
    throw ApplicationFailure.create({
      message: `fleet of ${subject} refused before any change: ${problem.text}`,
      type: problem.unknown ? FailureType.unknownName : FailureType.refused,
      nonRetryable: true,
    });
  };
}
