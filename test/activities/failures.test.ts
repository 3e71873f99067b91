import { ApplicationFailure } from '@temporalio/common';
import { coderStep, jobOutcomeText, refuseOn } from '../../src/activities/failures';
import { makeNotify } from '../../src/activities/notify';
import { stepsOf } from './fixtures/steps';
import { createFileBlobStore } from '../../src/adapters/blob-store';
import { CoderClient } from '../../src/adapters/coder';
import { FailureType } from '../../src/domain/failure-types';
import { startSimulator, type CoderSimulator } from '../../src/sim';

/**
 * How a step's failure reads and whether Temporal tries it again: Coder's final answers (404, 403)
 * are not retried, its passing ones (5xx) are; a pure check's error is a refusal; a notification
 * that cannot be delivered never fails the migration.
 */
describe('step failures: final or retried, named by step and workspace', () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 1, buildLatencyMs: 5 });
  });
  afterAll(() => sim.close());
  const coder = () => new CoderClient({ url: sim.url, token: sim.token, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('the step passed');
      },
      (e: unknown) => e as ApplicationFailure,
    );

  it("Coder's 404 is final, its 5xx is retried; both keep Coder's message after the step and the workspace", async () => {
    const missing = await failureOf(coderStep('back up state', 'alice/dev', () => coder().workspace('00000000-0000-4000-8000-00000000dead')));
    expect(missing).toBeInstanceOf(ApplicationFailure);
    expect(missing).toMatchObject({ type: 'CoderApi.not-found', nonRetryable: true, message: expect.stringMatching(/^back up state failed for alice\/dev: .+/) });
    sim.setFaults({ error500Rate: 1, only: ['/workspaces/'] });
    try {
      const down = await failureOf(coderStep('back up state', 'alice/dev', () => coder().workspace(sim.workspaces()[0].id)));
      expect(down).toMatchObject({ type: 'CoderApi.server', nonRetryable: false, message: expect.stringMatching(/^back up state failed for alice\/dev: .*500/) });
    } finally {
      sim.setFaults(undefined);
    }
    const other = new RangeError('not from Coder');
    await expect(coderStep('s', 'w', () => Promise.reject(other))).rejects.toBe(other);
  });

  it("a pure check's error of a listed type is a final refusal with the prefix and suffix around its message; any other error passes through", () => {
    const refused = (() => {
      try {
        refuseOn('preflight', 'alice/dev', [RangeError], () => {
          throw new RangeError('version "x" is not semver');
        }, 'Coder says ', '; upgrade Coder');
      } catch (e) {
        return e as ApplicationFailure;
      }
    })();
    expect(refused).toMatchObject({ type: FailureType.refused, nonRetryable: true, message: 'preflight refused for alice/dev: Coder says version "x" is not semver; upgrade Coder' });
    expect(refuseOn('preflight', 'alice/dev', [RangeError], () => 7)).toBe(7);
    // Any of the listed types, and no prefix or suffix unless given.
    expect(() => refuseOn('preflight', 'alice/dev', [RangeError, SyntaxError], () => {
      throw new SyntaxError('state is not JSON');
    })).toThrow(expect.objectContaining({ type: FailureType.refused, message: 'preflight refused for alice/dev: state is not JSON' }));
    expect(() => refuseOn('preflight', 'alice/dev', [RangeError], () => {
      throw new TypeError('bug');
    })).toThrow(TypeError);
  });

  it("a build's outcome in Coder's words, or what a job without words means", () => {
    expect(jobOutcomeText({ status: 'failed', error: 'node pool exhausted' })).toBe('node pool exhausted');
    expect(jobOutcomeText({ status: 'canceled', error: null })).toBe('its job was canceled in Coder (PATCH …/cancel, by a user or an admin)');
    expect(jobOutcomeText({ status: 'failed' })).toBe('no error text');
  });

  it('a notification that fails is reported undelivered with a short reason, never thrown; a delivered one hands back its message refs', async () => {
    const blobs = createFileBlobStore({ dir: '/nonexistent-never-written' });
    const failing = stepsOf({ coder: coder(), blobs, notifier: { notify: () => Promise.reject(new Error(`Slack answered 500: ${'x'.repeat(300)}`)) } }, { notify: makeNotify });
    const n = { kind: 'migration-failed' as const, workflowId: 'wf', subject: 'alice/dev', text: 'failed' };
    const r = await failing.notify(n);
    expect(r.delivered).toBe(false);
    expect(r.error).toBe(`Slack answered 500: ${'x'.repeat(300)}`.slice(0, 200));
    const refs = [{ backend: 'slack', channel: 'C1', ts: '1.2' }];
    const ok = stepsOf({ coder: coder(), blobs, notifier: { notify: async () => ({ messageRefs: refs }) } }, { notify: makeNotify });
    expect(await ok.notify(n)).toEqual({ delivered: true, messageRefs: refs });
    // A backend that answers nothing, or no refs, delivered all the same.
    for (const answer of [{ messageRefs: [] }, {}, undefined]) {
      const plain = stepsOf({ coder: coder(), blobs, notifier: { notify: async () => answer } }, { notify: makeNotify });
      expect(await plain.notify(n)).toEqual({ delivered: true });
    }
  });
});
