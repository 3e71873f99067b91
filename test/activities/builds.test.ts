import { ApplicationFailure } from '@temporalio/common';
import { runBuildOnce, workspaceUnlessDeleted } from '../../src/activities/builds';
import { CoderApiError, type CoderApiErrorKind } from '../../src/adapters/coder/errors';
import type { WorkspaceBuild } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';

/** Coder's answer as the client raises it: 410 for a workspace deleted, 404 for one never there (or not readable), 500 for a fault. */
function apiError(status: number, kind: CoderApiErrorKind, retryable: boolean): CoderApiError {
  return new CoderApiError(`get a workspace: Coder answered ${status}`, { kind, status, method: 'GET', path: '/workspaces/w1', endpoint: 'get a workspace', retryable, attempts: 1 });
}

const build = (n: number, transition: 'start' | 'stop' = 'start'): WorkspaceBuild =>
  ({ id: `b${n}`, build_number: n, transition, template_version_id: 'v0', initiator_id: 'u-owner', initiator_name: 'alice', job: { status: 'succeeded' } }) as unknown as WorkspaceBuild;

/**
 * A deleted workspace (410) is someone else's build: final, nothing built. Any other failure to read
 * it (a 404, a 500) is not a delete and must not end the migration as one: it stays Coder's failure,
 * for Temporal to retry or to refuse as it is.
 */
describe('workspaceUnlessDeleted and the 409 on a build POST: a deleted workspace told apart from every other failure', () => {
  const reading = (...answers: (WorkspaceBuild | Error)[]) => {
    const calls: string[] = [];
    const coder = {
      workspace: async () => {
        calls.push('workspace');
        const a = answers.shift();
        if (a instanceof Error) throw a;
        return { id: 'w1', latest_build: a };
      },
      getWorkspaceBuildState: async () => (calls.push('state'), Buffer.alloc(0)),
      createWorkspaceBuild: async () => {
        calls.push('POST');
        throw new CoderApiError('create a workspace build: Coder answered 409', { kind: 'conflict', status: 409, method: 'POST', path: '/workspaces/w1/builds', endpoint: 'create a workspace build', retryable: false, attempts: 3 });
      },
    };
    return { calls, coder: coder as never };
  };

  it('a 410 ends the step as built meanwhile: the workspace deleted after the build it read, nothing built, never retried', async () => {
    const { coder } = reading(apiError(410, 'not-found', false));
    await expect(workspaceUnlessDeleted(coder, 'stop build', 'alice/dev', 'w1', 7)).rejects.toMatchObject({
      type: FailureType.builtMeanwhile,
      nonRetryable: true,
      message: 'stop build: alice/dev: the workspace was deleted after build #7, the one this step read; nothing was built',
    });
  });

  it('a 404 or a 500 is not a delete: Coder\'s failure, named by the step, retryable as Coder said', async () => {
    for (const [err, kind, nonRetryable] of [
      [apiError(404, 'not-found', false), 'not-found', true],
      [apiError(500, 'server', true), 'server', false],
    ] as const) {
      const { coder } = reading(err);
      const failure = await workspaceUnlessDeleted(coder, 'stop build', 'alice/dev', 'w1', 7).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: `CoderApi.${kind}`, nonRetryable, message: `stop build failed for alice/dev: ${err.message}` });
    }
  });

  it("a POST Coder refuses with 409, then the workspace gone (410): the owner's delete stood in the way, nothing built; any other failure of that read is Coder's", async () => {
    const deleted = reading(build(7), apiError(410, 'not-found', false));
    await expect(runBuildOnce(deleted.coder, { workspaceId: 'w1', subject: 'alice/dev', transition: 'stop', afterBuildNumber: 7, timeoutMs: 1000 })).rejects.toMatchObject({
      type: FailureType.builtMeanwhile,
      nonRetryable: true,
      message: 'stop build: alice/dev: the workspace was deleted after build #7, the one this step read; nothing was built',
    });
    expect(deleted.calls).toEqual(['workspace', 'state', 'POST', 'workspace']);

    const unreadable = reading(build(7), apiError(500, 'server', true));
    const failure = await runBuildOnce(unreadable.coder, { workspaceId: 'w1', subject: 'alice/dev', transition: 'stop', afterBuildNumber: 7, timeoutMs: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(CoderApiError);
    expect(failure).toMatchObject({ status: 500 });

    // Someone's build active at the POST: theirs is named.
    const theirs = reading(build(7), build(8, 'stop'));
    await expect(runBuildOnce(theirs.coder, { workspaceId: 'w1', subject: 'alice/dev', transition: 'stop', afterBuildNumber: 7, timeoutMs: 1000 })).rejects.toMatchObject({
      type: FailureType.builtMeanwhile,
      message: 'stop build: alice/dev: build #8 (stop, succeeded) was started by alice after build #7, the one this step read; nothing was written over it',
    });
  });

  it('a POST that fails otherwise (a 500 after the retries) is not taken for a 409: the failure stays retryable and nothing is re-read', async () => {
    const calls: string[] = [];
    const coder = {
      workspace: async () => (calls.push('workspace'), { id: 'w1', latest_build: build(7) }),
      getWorkspaceBuildState: async () => Buffer.alloc(0),
      createWorkspaceBuild: async () => {
        calls.push('POST');
        throw new CoderApiError('create a workspace build: Coder answered 500', { kind: 'server', status: 500, method: 'POST', path: '/workspaces/w1/builds', endpoint: 'create a workspace build', retryable: true, attempts: 3 });
      },
    };
    await expect(runBuildOnce(coder as never, { workspaceId: 'w1', subject: 'alice/dev', transition: 'stop', afterBuildNumber: 7, timeoutMs: 1000 })).rejects.toMatchObject({
      type: 'CoderApi.server',
      nonRetryable: false,
      message: 'stop build failed for alice/dev: create a workspace build: Coder answered 500',
    });
    expect(calls).toEqual(['workspace', 'POST']);
  });
});
