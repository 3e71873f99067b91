import { ApplicationFailure } from '@temporalio/common';
import { EXIT, exitCodeOf, exitCodeOfFailureType } from '../../src/cli/io';
import { FailureType } from '../../src/domain/failure-types';

/**
 * README, "Exit codes of every command": 3 denied/refused for a run refused by a precondition, the
 * guard or a person (a gate rejected or timed out), 2 usage for a name Coder does not know or an input
 * no workflow takes, 1 for every other failure. A script (a fleet's wrapper, CI) branches on these:
 * a workspace busy with someone else's build or a plan the guard denied is "try later / look at it",
 * never "wsmigrate broke". Every failure type a run can end with, both ways the CLI reads it (the
 * failure itself, `migrate --wait`; its type as `status` reads it).
 */
describe('the exit code of a failed run, by its failure type', () => {
  const expected: Record<string, number> = {
    [FailureType.refused]: EXIT.denied,
    [FailureType.dormant]: EXIT.denied,
    [FailureType.rejected]: EXIT.denied,
    [FailureType.guardDenied]: EXIT.denied,
    [FailureType.busy]: EXIT.denied,
    [FailureType.unknownName]: EXIT.usage,
    [FailureType.invalidInput]: EXIT.usage,
    'CoderApi.not-found': EXIT.usage,
    [FailureType.conflict]: EXIT.failure,
    [FailureType.buildFailed]: EXIT.failure,
    [FailureType.dataLoss]: EXIT.failure,
    [FailureType.builtMeanwhile]: EXIT.failure,
    [FailureType.blobUnavailable]: EXIT.failure,
    [FailureType.blobUnreadable]: EXIT.failure,
    [FailureType.blobStoreAccess]: EXIT.failure,
    [FailureType.rolledBack]: EXIT.failure,
    [FailureType.needsAttention]: EXIT.failure,
  };

  it('covers every failure type wsmigrate defines', () => {
    expect(Object.values(FailureType).filter((t) => !(t in expected))).toEqual([]);
  });

  it.each(Object.entries(expected))('%s exits %i', (type, code) => {
    expect(exitCodeOfFailureType(type)).toBe(code);
    expect(exitCodeOf(ApplicationFailure.create({ message: `a run that ended ${type}`, type, nonRetryable: true }))).toBe(code);
  });

  it('a failure with no type, or one wsmigrate does not know, exits 1', () => {
    expect(exitCodeOfFailureType(undefined)).toBe(EXIT.failure);
    expect(exitCodeOfFailureType('SomethingElse')).toBe(EXIT.failure);
    expect(exitCodeOf(new Error('boom'))).toBe(EXIT.failure);
  });
});
