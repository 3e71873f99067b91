import { ApplicationFailure, patched } from '@temporalio/workflow';
import type { Output, Rule } from '../domain/input-rules';
import { parseInput } from '../domain/migration-input';

/** Runs started before unknown input keys were refused replay with them dropped, as they ran. */
export const STRICT_INPUT_PATCH = 'wsmigrate-strict-input';

/**
 * A workflow's input checked, or a non-retryable WsmigrateInvalidInput failure naming each bad
 * field. `strict` (decided by a patch, before any command): a key no rule names is refused.
 */
export function parseWorkflowInput<R extends Rule<unknown, unknown>>(schema: R, rawInput: unknown, strict = patched(STRICT_INPUT_PATCH)): Output<R> {
  try {
    return parseInput(schema, rawInput, { unknownKeys: strict ? 'refuse' : 'drop' });
  } catch (err) {
    throw ApplicationFailure.create({ message: (err as Error).message, type: 'WsmigrateInvalidInput', nonRetryable: true });
  }
}
