import { BlobStoreAccessError, BlobStoreUnavailableError, type BlobStore } from '../adapters/blob-store';

/** A ref that is never stored: asking for it proves the store answers and accepts our credentials. */
const PROBE = `sha256:${'0'.repeat(64)}`;

/**
 * Checks the blob store before the worker takes any task: wrong credentials or a missing bucket
 * stop the start with the variable to fix (every backup would fail anyway); a store that does
 * not answer is only warned about, since it may come back before the first backup.
 */
export async function checkBlobStore(blobs: BlobStore, log: (line: string) => void): Promise<void> {
  try {
    await blobs.has(PROBE);
  } catch (err) {
    if (err instanceof BlobStoreAccessError) {
      throw new Error(`the blob store ${blobs.location} refused this worker: ${err.message}`);
    }
    if (err instanceof BlobStoreUnavailableError) {
      log(`WARNING: the blob store ${blobs.location} does not answer yet; backups fail (and migrations roll back) until it does: ${err.message}`);
      return;
    }
    throw err;
  }
}
