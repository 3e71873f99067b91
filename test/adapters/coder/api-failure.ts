import { CoderApiError } from '../../../src/adapters/coder/errors';

/** The CoderApiError a client call ends with; anything else (or no failure) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<CoderApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CoderApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
