import { attemptTimeoutMs, nextWorkflowTaskAttempt, workflowTaskRetryText } from '../../src/client/workflow-task-retry';
import { failingWorkflowTaskText } from '../../src/client/workflow-task-failure';

const at = (iso: string) => ({ seconds: Date.parse(iso) / 1000, nanos: 0 });

describe('a failing workflow task: when Temporal gives it to a worker again', () => {
  it("each attempt holds the task for the run's timeout, plus from the fourth a backoff from 5 s doubling, capped at 10 min", () => {
    expect([2, 3, 4, 5, 6].map((n) => attemptTimeoutMs(n, 10_000))).toEqual([10_000, 10_000, 15_000, 20_000, 30_000]);
    expect(attemptTimeoutMs(30, 10_000)).toBe(10_000 + 600_000);
  });

  it('a started attempt: status names the attempt, when the next comes, and why a restart or a reset does not hurry it', () => {
    const next = nextWorkflowTaskAttempt({ attempt: 5, state: 2, startedTime: at('2026-12-07T01:00:00Z') }, 10_000);
    expect(next).toEqual({ attempt: 5, state: 'started', startedAt: new Date('2026-12-07T01:00:00Z'), dueAt: new Date('2026-12-07T01:00:20Z') });
    const text = workflowTaskRetryText(next, Date.parse('2026-12-07T01:00:05Z'));
    expect(text).toBe(
      'Temporal retries it by itself: attempt 5 started at 2026-12-07T01:00:00.000Z and the next is given to a worker at about 2026-12-07T01:00:20.000Z (in about 15s); ' +
        'once the worker is fixed, that attempt moves the run on and this error goes. Each attempt after the third waits longer: 5 s more, doubling each time, up to about 10 min by default. ' +
        "Restarting the worker does not bring it sooner: Temporal gives a started attempt to no other worker until it times out. " +
        "Do not 'temporal workflow reset' to hurry it: a reset starts the run again from an earlier point and runs its steps again",
    );
    expect(workflowTaskRetryText(next, Date.parse('2026-12-07T01:00:30Z'))).toContain('the next is given to a worker any moment now (its timeout has passed)');
  });

  it('a scheduled attempt waits for the next worker to poll; without times it says only that it retries with a backoff', () => {
    expect(workflowTaskRetryText(nextWorkflowTaskAttempt({ attempt: 3, state: 1 }, 10_000))).toMatch(/^Temporal has scheduled attempt 3: the next worker to poll the task queue takes it/);
    expect(workflowTaskRetryText(undefined)).toMatch(/^Temporal retries it by itself with a backoff that grows to about 10 min between attempts; .*Do not 'temporal workflow reset'/);
  });

  it("status's line: the recorded error with when it was recorded, what to do, and the retry, one full stop between sentences", () => {
    const line = failingWorkflowTaskText(
      { attempt: 4, message: 'cannot decrypt a Temporal payload encrypted with key id aa: the worker has key id bb.', failedAt: '2026-12-07T00:59:00.000Z',
        next: { attempt: 4, state: 'started', startedAt: new Date('2026-12-07T01:00:00Z'), dueAt: new Date('2026-12-07T01:00:15Z') } },
      ['123@worker-1'],
      Date.parse('2026-12-07T01:00:10Z'),
    );
    expect(line).toMatch(/^the worker \(123@worker-1\) fails this run's workflow task \(attempt 4\), so the run moves no further and answers no status query \(the error Temporal recorded at 2026-12-07T00:59:00.000Z; it keeps only the first failed attempt's, so it shows until an attempt succeeds\): cannot decrypt .*key id bb\. Fix that worker/);
    expect(line).toContain('the run resumes where it stopped. Temporal retries it by itself: attempt 4 started at 2026-12-07T01:00:00.000Z and the next is given to a worker at about 2026-12-07T01:00:15.000Z (in about 5s)');
    expect(line).not.toMatch(/\.\./);
  });
});
