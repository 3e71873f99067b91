import { CoderApiError } from '../../../src/adapters/coder/errors';

/** The CoderApiError a call fails with; fails the test if it succeeds or fails otherwise. */
export async function caught(promise: Promise<unknown>): Promise<CoderApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CoderApiError);
    return error as CoderApiError;
  }
  throw new Error('expected a failure');
}
