import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { BLOB_STEP_ATTEMPTS, blobStep, currentWorkflowRun } from '../../src/activities/blob-step';
import { BlobStoreAccessError, BlobStoreUnavailableError, createFileBlobStore, type BlobStore } from '../../src/adapters/blob-store';
import { FailureType } from '../../src/domain/failure-types';

/**
 * blobStep: what a failed blob store call becomes. A missing or unreachable backup is retried a
 * few times and then given up with a message that says so; an untrustworthy blob, a refused
 * store or a bad ref is final at once; a full disk says what to free. Each names the step and
 * the workspace.
 */
describe('blobStep: blob store failures become retryable or final failures that name the step and workspace', () => {
  let dir: string;
  let blobs: BlobStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsmigrate-blobstep-'));
    blobs = createFileBlobStore({ dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function failureOf(fn: () => Promise<unknown>, attempt?: number, hint?: string): Promise<ApplicationFailure> {
    const run = () => blobStep('restore state', 'alice/dev', fn, hint);
    const p = attempt === undefined ? run() : new MockActivityEnvironment({ attempt }, { logger: quiet }).run(run);
    return p.then(
      () => {
        throw new Error('blobStep passed a failure through as success');
      },
      (e: unknown) => {
        expect(e).toBeInstanceOf(ApplicationFailure);
        return e as ApplicationFailure;
      },
    );
  }
  /** The failures are the point here: the mock worker's "Activity failed" warnings are not. */
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const missingRef = `sha256:${'ab'.repeat(32)}`;

  it('passes the result of a call that succeeds', async () => {
    const ref = await blobStep('back up state', 'alice/dev', () => blobs.put(Buffer.from('state'), { kind: 'state-backup' }));
    expect(await blobStep('restore state', 'alice/dev', () => blobs.get(ref.ref))).toEqual(Buffer.from('state'));
  });

  it('a backup that is not there is retried, then given up on the last attempt, naming the store and key', async () => {
    const first = await failureOf(() => blobs.get(missingRef), 1, 'Restore it from the store\'s versioning, then retry');
    expect(first).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: false });
    expect(first.message).toMatch(/^restore state failed for alice\/dev: .+\. Restore it from the store's versioning, then retry$/);
    expect(first.message).not.toContain('gave up');
    expect(first.details).toEqual([{ store: blobs.location, key: expect.stringContaining('ab'.repeat(32)) }]);

    const before = await failureOf(() => blobs.get(missingRef), BLOB_STEP_ATTEMPTS - 1);
    expect(before.nonRetryable).toBe(false);
    const last = await failureOf(() => blobs.get(missingRef), BLOB_STEP_ATTEMPTS);
    expect(last).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: true });
    expect(last.message).toMatch(new RegExp(`^restore state failed for alice/dev: .+ \\(gave up after ${BLOB_STEP_ATTEMPTS} attempts\\)$`));
  });

  it('outside an activity a missing blob counts as a first attempt (retryable)', async () => {
    expect(await failureOf(() => blobs.get(missingRef))).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: false });
  });

  it('a store that does not answer is retryable the same way', async () => {
    const down = () => Promise.reject(new BlobStoreUnavailableError('s3://bucket/wsmigrate did not answer (ECONNREFUSED)', 's3://bucket/wsmigrate', 'sha256/00'));
    expect(await failureOf(down, 1)).toMatchObject({
      type: FailureType.blobUnavailable,
      nonRetryable: false,
      message: 'restore state failed for alice/dev: s3://bucket/wsmigrate did not answer (ECONNREFUSED)',
      details: [{ store: 's3://bucket/wsmigrate', key: 'sha256/00' }],
    });
    expect((await failureOf(down, BLOB_STEP_ATTEMPTS)).nonRetryable).toBe(true);
  });

  it('a blob whose bytes no longer match its hash is final at once: a retry cannot make it trustworthy', async () => {
    const ref = await blobs.put(Buffer.from('the real state'), { kind: 'state-backup' });
    writeFileSync(join(dir, 'sha256', ref.sha256), 'swapped bytes');
    const err = await failureOf(() => blobs.get(ref.ref), 1);
    expect(err).toMatchObject({ type: FailureType.blobUnreadable, nonRetryable: true, details: [{ store: blobs.location, key: expect.stringContaining(ref.sha256) }] });
    expect(err.message).toMatch(/^restore state failed for alice\/dev: /);
  });

  it('a store that refuses us is final, naming the store', async () => {
    const err = await failureOf(() => Promise.reject(new BlobStoreAccessError('s3://bucket answered 403 AccessDenied', 's3://bucket', 'sha256/01')), 1);
    expect(err).toMatchObject({ type: FailureType.blobStoreAccess, nonRetryable: true, message: 'restore state failed for alice/dev: s3://bucket answered 403 AccessDenied', details: [{ store: 's3://bucket', key: 'sha256/01' }] });
  });

  it('a ref that is not a blob ref is a final refusal', async () => {
    const err = await failureOf(() => blobs.get('not-a-ref'), 1);
    expect(err).toMatchObject({ type: FailureType.refused, nonRetryable: true });
    expect(err.message).toMatch(/^restore state failed for alice\/dev: not a blob ref: "not-a-ref"/);
  });

  it('a full disk is retried a few times, then says what to free', async () => {
    const full = () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    const first = await failureOf(full, 1);
    expect(first).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: false });
    expect(first.message).toBe(
      "restore state failed for alice/dev: the blob store's disk is full (ENOSPC); nothing was stored. Free space on the store's disk (or point WSMIGRATE_BLOB_DIR/WSMIGRATE_BLOB_URL at a larger store) and run the migration again",
    );
    const last = await failureOf(full, BLOB_STEP_ATTEMPTS);
    expect(last.nonRetryable).toBe(true);
    expect(last.message).toContain(`(ENOSPC); nothing was stored (gave up after ${BLOB_STEP_ATTEMPTS} attempts). Free space`);
    const quota = await failureOf(() => Promise.reject(Object.assign(new Error('quota'), { code: 'EDQUOT' })), 1);
    expect(quota.message).toContain("the blob store's disk is full (EDQUOT)");
    const readOnly = await failureOf(() => Promise.reject(Object.assign(new Error('read-only'), { code: 'EROFS' })), 1);
    expect(readOnly).toMatchObject({ type: FailureType.blobUnavailable, nonRetryable: false });
    expect(readOnly.message).toContain('the blob store is on a read-only file system (EROFS); nothing was stored');
  });

  it('any other error passes through untouched (a bug, not a store failure)', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    await expect(blobStep('restore state', 'alice/dev', () => Promise.reject(bug))).rejects.toBe(bug);
    const other = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    await expect(blobStep('restore state', 'alice/dev', () => Promise.reject(other))).rejects.toBe(other);
  });

  it('currentWorkflowRun names the run inside an activity and nothing outside one', async () => {
    expect(currentWorkflowRun()).toEqual({});
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'migrate-alice-dev', runId: 'r-1' } });
    expect(await env.run(async () => currentWorkflowRun())).toEqual({ workflowId: 'migrate-alice-dev', runId: 'r-1' });
  });
});
