import { ApplicationFailure } from '@temporalio/common';
import { unknownNames, UNKNOWN_NAMES_HINT } from '../adapters/coder';
import type { FleetFilters } from '../domain/fleet-input';
import { FailureType, coderStep } from './failures';
import type { ActivityDeps } from './ports';

export interface CheckFleetNamesInput {
  organization: string;
  /** What the filters apply to, for the message: `template coder/k8s-dev`, `organization coder`. */
  subject: string;
  filters: Pick<FleetFilters, 'owners' | 'exclude'>;
}

/**
 * Every owner and every excluded `owner/workspace` a fleet was given must be one Coder knows: a typo
 * in `--owner` otherwise migrates nothing and reports "done", and a typo in `--exclude` migrates the
 * very workspace someone meant to keep out. Refused before the fleet changes anything.
 */
export function makeCheckFleetNames({ coder }: ActivityDeps) {
  return async function checkFleetNames(input: CheckFleetNamesInput): Promise<void> {
    const problems = await coderStep('check names', input.subject, () => unknownNames(coder, input.filters));
    if (problems.length === 0) return;
    throw ApplicationFailure.create({
      message: `fleet of ${input.subject} refused before any change: Coder has ${problems.join(', ')}; ${UNKNOWN_NAMES_HINT}`,
      type: FailureType.unknownName,
      nonRetryable: true,
    });
  };
}
