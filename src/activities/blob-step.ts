import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { BlobRefError } from '../domain/blob-ref';
import { BlobNotFoundError, BlobStoreAccessError, BlobStoreUnavailableError, BlobUnreadableError } from '../adapters/blob-store';
import { FailureType } from '../domain/failure-types';
import { joinSentences, withAside } from '../domain/sentences';

/**
 * How many attempts a step gives a store that is down or a blob that is not there. A few, because
 * the server may come back or the task may land on a worker that can read the blob; not more,
 * because an unreadable backup needs a human, and saying so beats retrying for an hour.
 */
export const BLOB_STEP_ATTEMPTS = 3;

function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1; // outside an activity (unit tests, CLI)
  }
}

/** The workflow run an activity serves, for the backup's record; empty outside an activity. */
export function currentWorkflowRun(): { workflowId?: string; runId?: string } {
  try {
    const run = Context.current().info.workflowExecution;
    return run ? { workflowId: run.workflowId, runId: run.runId } : {};
  } catch {
    return {};
  }
}

/**
 * Runs a blob store call inside a step. Its errors already name the store and the key; this adds
 * the step and the workspace, and decides what a retry can fix. `hint` says what to do when it gives up.
 */
export async function blobStep<T>(step: string, subject: string, fn: () => Promise<T>, hint = ''): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // The store's message may end with a full stop of its own (a store elsewhere ends "…read every backup."): one stop, never two.
    const message = (why: string) => `${step} failed for ${subject}: ${joinSentences(why, hint)}`;
    if (err instanceof BlobNotFoundError || err instanceof BlobStoreUnavailableError) {
      const final = attempt() >= BLOB_STEP_ATTEMPTS;
      throw ApplicationFailure.create({
        message: message(final ? withAside(err.message, `gave up after ${BLOB_STEP_ATTEMPTS} attempts`) : err.message),
        type: FailureType.blobUnavailable,
        nonRetryable: final,
        details: [{ store: err.location, key: err.key }],
      });
    }
    if (err instanceof BlobUnreadableError) {
      throw ApplicationFailure.create({ message: message(err.message), type: FailureType.blobUnreadable, nonRetryable: true, details: [{ store: err.location, key: err.key }] });
    }
    if (err instanceof BlobStoreAccessError) {
      throw ApplicationFailure.create({ message: message(err.message), type: FailureType.blobStoreAccess, nonRetryable: true, details: [{ store: err.location, key: err.key }] });
    }
    if (err instanceof BlobRefError) {
      throw ApplicationFailure.create({ message: message(err.message), type: FailureType.refused, nonRetryable: true });
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS') {
      // A full or read-only disk does not heal by retrying for minutes: a few attempts, then say so.
      const final = attempt() >= BLOB_STEP_ATTEMPTS;
      const why = code === 'EROFS' ? 'the blob store is on a read-only file system' : 'the blob store\'s disk is full';
      throw ApplicationFailure.create({
        message: message(`${why} (${code}); nothing was stored${final ? ` (gave up after ${BLOB_STEP_ATTEMPTS} attempts)` : ''}. Free space on the store's disk (or point WSMIGRATE_BLOB_DIR/WSMIGRATE_BLOB_URL at a larger store) and run the migration again`),
        type: FailureType.blobUnavailable,
        nonRetryable: final,
      });
    }
    throw err;
  }
}
