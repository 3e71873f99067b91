import { ApplicationFailure } from '@temporalio/workflow';
import type { Output, Rule } from '../domain/input-rules';
import { parseInput } from '../domain/migration-input';
import { FailureType } from '../domain/failure-types';

/** A workflow's input checked, or a non-retryable WsmigrateInvalidInput failure naming each bad field (a key no rule names included). */
export function parseWorkflowInput<R extends Rule<unknown, unknown>>(schema: R, rawInput: unknown): Output<R> {
  try {
    return parseInput(schema, rawInput, { unknownKeys: 'refuse' });
  } catch (err) {
    throw ApplicationFailure.create({ message: (err as Error).message, type: FailureType.invalidInput, nonRetryable: true });
  }
}
