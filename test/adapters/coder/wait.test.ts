import { CoderClient } from '../../../src/adapters/coder/client';
import { CoderWaitTimeoutError } from '../../../src/adapters/coder/errors';
import type { WorkspaceBuild } from '../../../src/adapters/coder/schemas';
import { fixture } from './coder-fixtures';
import { FakeCoder, fakeClock } from './fake-coder';

function buildWithJob(status: string) {
  const build = fixture('workspace-build');
  build.job.status = status;
  return build;
}

describe('waiting for jobs', () => {
  let coder: FakeCoder;
  let clock: ReturnType<typeof fakeClock>;
  let client: CoderClient;
  const buildId = fixture('workspace-build').id as string;

  beforeEach(async () => {
    coder = await FakeCoder.start();
    clock = fakeClock();
    client = new CoderClient({ url: coder.url, token: 'tok-abcdefghijklmnop', sleep: clock.sleep, now: clock.now });
  });
  afterEach(() => coder.close());

  it.each(['succeeded', 'failed', 'canceled'])('waitForBuild returns the build once its job is %s', async (terminal) => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('pending') }, { status: 200, json: buildWithJob('running') }, { status: 200, json: buildWithJob(terminal) });
    const seen: string[] = [];
    const build = await client.waitForBuild(buildId, { onPoll: (b: WorkspaceBuild) => seen.push(b.job.status) });
    expect(build.job.status).toBe(terminal);
    expect(seen).toEqual(['pending', 'running', terminal]);
  });

  it('given the build as its creation answered, the wait sleeps before it first asks, and asks nothing when that build has already ended', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('running') }, { status: 200, json: buildWithJob('succeeded') });
    const seen: string[] = [];
    const first = buildWithJob('pending') as unknown as WorkspaceBuild;
    expect((await client.waitForBuild(buildId, { first, onPoll: (b: WorkspaceBuild) => seen.push(b.job.status) })).job.status).toBe('succeeded');
    expect(seen).toEqual(['pending', 'running', 'succeeded']);
    expect(coder.received).toHaveLength(2);
    expect(clock.sleeps).toEqual([250, 250]);

    coder.received.length = 0;
    expect((await client.waitForBuild(buildId, { first: buildWithJob('failed') as unknown as WorkspaceBuild })).job.status).toBe('failed');
    expect(coder.received).toHaveLength(0);
  });

  it("a reading of another build is not taken for this build's", async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('running') });
    const other = { ...buildWithJob('succeeded'), id: 'another-build' } as unknown as WorkspaceBuild;
    await expect(client.waitForBuild(buildId, { first: other, timeoutMs: 1000 })).rejects.toBeInstanceOf(CoderWaitTimeoutError);
    expect(coder.received.length).toBeGreaterThan(0);
  });

  it('keeps waiting through canceling, which is not finished yet', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('canceling') }, { status: 200, json: buildWithJob('canceled') });
    expect((await client.waitForBuild(buildId)).job.status).toBe('canceled');
    expect(coder.received).toHaveLength(2);
  });

  it('polls every 250 ms at first, then half the time the job has been in its status, up to 5 s', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, ...Array.from({ length: 30 }, () => ({ status: 200, json: buildWithJob('running') })), { status: 200, json: buildWithJob('succeeded') });
    await client.waitForBuild(buildId);
    expect(clock.sleeps.slice(0, 3)).toEqual([250, 250, 250]);
    expect(Math.max(...clock.sleeps)).toBe(5000);
    expect(clock.sleeps).toEqual([...clock.sleeps].sort((a, b) => a - b));
  });

  it('a job that leaves the queue is polled quickly again: a short build after a long wait is seen ending soon after it ends', async () => {
    const queued = { ...buildWithJob('pending'), job: { ...buildWithJob('pending').job, queue_position: 1, queue_size: 2 } };
    coder.on('GET', `/workspacebuilds/${buildId}`, ...Array.from({ length: 12 }, () => ({ status: 200, json: queued })), { status: 200, json: buildWithJob('running') }, { status: 200, json: buildWithJob('running') }, { status: 200, json: buildWithJob('succeeded') });
    await client.waitForBuild(buildId);
    const afterQueue = clock.sleeps.slice(12);
    expect(Math.max(...clock.sleeps.slice(0, 12))).toBeGreaterThan(250);
    expect(afterQueue).toEqual([250, 250]);
  });

  it('times out with an error that names the build, the workspace and the last job status', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('running') });
    const wait = client.waitForBuild(buildId, { timeoutMs: 60_000 });
    await expect(wait).rejects.toBeInstanceOf(CoderWaitTimeoutError);
    const error = (await wait.catch((e: unknown) => e)) as CoderWaitTimeoutError;
    expect(error).toMatchObject({ subject: 'workspace build', id: buildId, lastJobStatus: 'running', retryable: true });
    expect(error.message).toContain('Timed out after 1m00s');
    expect(error.message).toContain(`workspace build ${buildId} (alice/dev #8, start)`);
    expect(error.message).toContain('still "running"');
    expect(clock.nowMs - Date.parse('2026-07-08T09:00:00Z')).toBe(60_000);
  });

  it("does not count the time a build waits in the provisioners' queue: queued longer than the timeout, then built in time, it succeeds", async () => {
    const queued = { ...buildWithJob('pending'), job: { ...buildWithJob('pending').job, queue_position: 3, queue_size: 7 } };
    coder.on(
      'GET',
      `/workspacebuilds/${buildId}`,
      ...Array.from({ length: 30 }, () => ({ status: 200, json: queued })),
      ...Array.from({ length: 4 }, () => ({ status: 200, json: buildWithJob('running') })),
      { status: 200, json: buildWithJob('succeeded') },
    );
    const build = await client.waitForBuild(buildId, { timeoutMs: 60_000 });
    expect(build.job.status).toBe('succeeded');
    // Longer than the timeout in all: the queued part was not counted.
    expect(clock.nowMs - Date.parse('2026-07-08T09:00:00Z')).toBeGreaterThan(60_000);
  });

  it('a build stuck in the queue forever still ends the wait, at the timeout plus the queue cap, saying where it waits', async () => {
    const queued = { ...buildWithJob('pending'), job: { ...buildWithJob('pending').job, queue_position: 2, queue_size: 9 } };
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: queued });
    const error = (await client.waitForBuild(buildId, { timeoutMs: 60_000, maxQueuedMs: 120_000 }).catch((e: unknown) => e)) as CoderWaitTimeoutError;
    expect(error).toBeInstanceOf(CoderWaitTimeoutError);
    expect(clock.nowMs - Date.parse('2026-07-08T09:00:00Z')).toBe(180_000);
    expect(error.message).toContain('Timed out after 3m00s');
    expect(error.message).toContain("at place 2 of 9 in the provisioners' queue");
    expect(error.message).toContain('2m00s of the wait queued');
    expect(error.message).toContain('no provisioner daemon with matching tags is online');
  });

  it('a pending job that a daemon already took (queue position 0) counts as running time', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: { ...buildWithJob('pending'), job: { ...buildWithJob('pending').job, queue_position: 0, queue_size: 0 } } });
    await expect(client.waitForBuild(buildId, { timeoutMs: 60_000 })).rejects.toBeInstanceOf(CoderWaitTimeoutError);
    expect(clock.nowMs - Date.parse('2026-07-08T09:00:00Z')).toBe(60_000);
  });

  it('stops waiting when its signal aborts', async () => {
    coder.on('GET', `/workspacebuilds/${buildId}`, { status: 200, json: buildWithJob('running') });
    const controller = new AbortController();
    const wait = client.waitForBuild(buildId, { signal: controller.signal, onPoll: () => controller.abort(new Error('activity cancelled')) });
    await expect(wait).rejects.toThrow('activity cancelled');
    expect(coder.received).toHaveLength(1);
  });

  it('waitForTemplateVersion returns the version once its import finished', async () => {
    const version = fixture('template-version');
    const importing = { ...version, job: { ...version.job, status: 'running' } };
    coder.on('GET', `/templateversions/${version.id}`, { status: 200, json: importing }, { status: 200, json: version });
    expect((await client.waitForTemplateVersion(version.id)).job.status).toBe('succeeded');
  });

  it('waitForTemplateVersion times out naming the version and hinting at provisioners', async () => {
    const version = fixture('template-version');
    coder.on('GET', `/templateversions/${version.id}`, { status: 200, json: { ...version, job: { ...version.job, status: 'pending' } } });
    const error = (await client.waitForTemplateVersion(version.id, { timeoutMs: 10_000 }).catch((e: unknown) => e)) as CoderWaitTimeoutError;
    expect(error).toBeInstanceOf(CoderWaitTimeoutError);
    expect(error.message).toContain(`template version ${version.name} (${version.id})`);
    expect(error.message).toContain('provisioner');
  });
});
