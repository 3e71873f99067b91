import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { makeCombinedSteps } from '../../src/activities/combined-steps';
import type { TrackedBuild } from '../../src/contracts/migrate-workspace';

/** The parts as the combined steps call them, recording the order. */
function fakeSteps(seen: Partial<TrackedBuild>, check?: () => Promise<unknown>, backup?: () => Promise<unknown>) {
  const calls: string[] = [];
  const steps = {
    stopWorkspace: async (i: { workspaceId: string; subject: string; afterBuildNumber: number; timeoutMs: number }) => (
      calls.push(`stop ${i.workspaceId} ${i.subject} after #${i.afterBuildNumber} within ${i.timeoutMs}`), { buildId: 'b5', buildNumber: 5 }
    ),
    backupState: async (i: { workspaceId: string; subject: string }) => (calls.push(`backup ${i.workspaceId} ${i.subject}`), backup ? backup() : { buildId: 'b5', buildNumber: 5, blob: { ref: 'blob:b5' } }),
    buildWithState: async () => (calls.push('build'), { buildId: 'b3', buildNumber: 3 }),
    preflightWorkspace: async () => (calls.push('preflight'), { workspaceId: 'w1', subject: 'alice/dev' }),
    assessHealth: async (i: { workspaceId: string; subject: string; targetVersionId: string }) => (calls.push(`health ${i.workspaceId} ${i.subject} ${i.targetVersionId}`), { health: 'unmigrated' }),
    rewriteState: async () => (calls.push('rewrite'), { migrated: { ref: 'blob:migrated' } }),
    verifyMigration: async (i: { subject: string; migratedRef: string; targetVersionId: string }) => (calls.push(`verify ${i.subject} ${i.migratedRef} ${i.targetVersionId}`), { verdict: 'allow' }),
    trackBuildChanges: async (i: { workflowId: string; subject: string; template: string; buildId: string }) => (
      calls.push(`track ${i.workflowId} ${i.subject} ${i.template} ${i.buildId}`), { changeCount: 0, protectedDestroyed: [], ...seen }
    ),
    postBuildCheck: async (i: { subject: string; buildId: string; backupRef: string }) => (
      calls.push(`check ${i.subject} ${i.buildId} ${i.backupRef}`), check ? check() : { persistentChecked: 1 }
    ),
  };
  return { calls, combined: makeCombinedSteps(steps as unknown as Parameters<typeof makeCombinedSteps>[0]) };
}

describe('combined workspace steps', () => {
  it('runs each pair in order, feeding the first result to the second', async () => {
    const { calls, combined } = fakeSteps({});
    const assessed = await combined.preflightAndAssess({ owner: 'alice', workspace: 'dev', template: 't', targetVersionId: 'v', strategy: 'rename' });
    const verified = await combined.rewriteAndVerify({ subject: 'alice/dev', backupRef: 'blob:backup', strategy: 'rename', targetVersionId: 'v' });
    expect(assessed).toEqual({ preflight: { workspaceId: 'w1', subject: 'alice/dev' }, health: { health: 'unmigrated' } });
    expect(verified).toEqual({ rewrite: { migrated: { ref: 'blob:migrated' } }, verdict: { verdict: 'allow' } });
    const read = await combined.trackAndCheckStart({ workflowId: 'wf', subject: 'alice/dev', template: 't', buildId: 'b2', backupRef: 'blob:backup' });
    expect(calls).toEqual(['preflight', 'health w1 alice/dev v', 'rewrite', 'verify alice/dev blob:migrated v', 'track wf alice/dev t b2', 'check alice/dev b2 blob:backup']);
    expect(read.check).toEqual({ persistentChecked: 1 });
  });

  it('does not run the post-build check after a build that destroyed a protected resource: the workflow judges that alone', async () => {
    const { calls, combined } = fakeSteps({ changeCount: 1, protectedDestroyed: ['kubernetes_persistent_volume_claim_v1.home[0]'] });
    const read = await combined.trackAndCheckStart({ workflowId: 'wf', subject: 'alice/dev', template: 't', buildId: 'b2', backupRef: 'blob:backup' });
    expect(calls).toEqual(['track wf alice/dev t b2']);
    expect(read.check).toBeUndefined();
    expect(read.seen.protectedDestroyed).toEqual(['kubernetes_persistent_volume_claim_v1.home[0]']);
  });

  describe('buildWithStateAndCheck', () => {
    const input = {
      purpose: 'migrate' as const,
      workspaceId: 'w1',
      subject: 'alice/dev',
      transition: 'start' as const,
      templateVersionId: 'v2',
      read: { id: 'b2', buildNumber: 2 },
      backupRef: 'blob:backup',
      timeoutMs: 1000,
      workflowId: 'wf',
      template: 't',
    };

    it('builds, reads what the build changed, then checks it', async () => {
      const { calls, combined } = fakeSteps({});
      const r = await combined.buildWithStateAndCheck(input);
      expect(calls).toEqual(['build', 'track wf alice/dev t b3', 'check alice/dev b3 blob:backup']);
      expect(r).toMatchObject({ built: { buildId: 'b3', buildNumber: 3 }, check: { persistentChecked: 1 } });
    });

    it('a retry after its build ended well only checks that build again: it never builds twice', async () => {
      const { calls, combined } = fakeSteps({});
      const env = new MockActivityEnvironment({ heartbeatDetails: { buildId: 'b3', buildNumber: 3, succeeded: true } });
      const r = (await env.run(combined.buildWithStateAndCheck, input)) as Awaited<ReturnType<typeof combined.buildWithStateAndCheck>>;
      expect(calls).toEqual(['track wf alice/dev t b3', 'check alice/dev b3 blob:backup']);
      expect(r.built).toEqual({ buildId: 'b3', buildNumber: 3 });
    });

    it('heartbeats the build as ended well before it checks it, and a retry fed that heartbeat does not build again', async () => {
      const { calls, combined } = fakeSteps({});
      const beats: unknown[] = [];
      const env = new MockActivityEnvironment();
      env.on('heartbeat', (d: unknown) => beats.push(d));
      await env.run(combined.buildWithStateAndCheck, input);
      expect(beats).toEqual([{ buildId: 'b3', buildNumber: 3, succeeded: true }]);
      calls.length = 0;
      await new MockActivityEnvironment({ heartbeatDetails: beats[0] }).run(combined.buildWithStateAndCheck, input);
      expect(calls).toEqual(['track wf alice/dev t b3', 'check alice/dev b3 blob:backup']);
      // A heartbeat from the build's own wait (no `succeeded`) is not an ended build: the build step runs (and finds its build).
      calls.length = 0;
      await new MockActivityEnvironment({ heartbeatDetails: { buildId: 'b3', status: 'running' } }).run(combined.buildWithStateAndCheck, input);
      expect(calls[0]).toBe('build');
    });

    it('after a build that destroyed a protected resource, returns what it saw without the post-build check', async () => {
      const { calls, combined } = fakeSteps({ changeCount: 1, protectedDestroyed: ['kubernetes_persistent_volume_claim_v1.home[0]'] });
      const r = await combined.buildWithStateAndCheck(input);
      expect(calls).toEqual(['build', 'track wf alice/dev t b3']);
      expect(r.check).toBeUndefined();
      expect(r.seen.protectedDestroyed).toEqual(['kubernetes_persistent_volume_claim_v1.home[0]']);
    });

    it('a plain error after the build (not an ApplicationFailure) stays retryable, keeps its name as type, and names the build', async () => {
      const { combined } = fakeSteps({}, async () => {
        throw new TypeError('socket hang up');
      });
      await expect(combined.buildWithStateAndCheck(input)).rejects.toMatchObject({ message: 'socket hang up', type: 'TypeError', nonRetryable: false, details: [{ buildId: 'b3', buildNumber: 3 }] });
    });

    it('a check that fails after the build names that build, with its own type and retryability', async () => {
      const { combined } = fakeSteps({}, async () => {
        throw ApplicationFailure.create({ message: 'post-build check: persistent data lost', type: 'WsmigrateDataLoss', nonRetryable: true });
      });
      await expect(combined.buildWithStateAndCheck(input)).rejects.toMatchObject({
        message: 'post-build check: persistent data lost',
        type: 'WsmigrateDataLoss',
        nonRetryable: true,
        details: [{ buildId: 'b3', buildNumber: 3 }],
      });
    });
    it('a post-build check that found the home volume replaced (its failure names it) is judged as destroyed: returned with what the build changed, never thrown for a restore', async () => {
      const pvc = 'kubernetes_persistent_volume_claim_v1.home[0] (replaced: uid 1a2b -> 3c4d)'; // as post-build-check.ts names it
      // The track saw nothing destroyed (else no check runs); the check found the volume replaced, and names it with two entries that are not names.
      const { calls, combined } = fakeSteps({ changeCount: 2 }, async () => {
        throw ApplicationFailure.create({ message: 'post-build check: the home volume was replaced', type: 'WsmigrateDataLoss', nonRetryable: true, details: [{ replaced: [pvc, 42, null] }] });
      });
      const r = await combined.buildWithStateAndCheck(input);
      expect(r).toEqual({ built: { buildId: 'b3', buildNumber: 3 }, seen: { changeCount: 2, protectedDestroyed: [pvc] } });
      expect(calls).toEqual(['build', 'track wf alice/dev t b3', 'check alice/dev b3 blob:backup']);
    });

    it('a failure that only looks like one (not an ApplicationFailure, or no names in its details) is thrown naming the build, never taken for a replacement', async () => {
      const lookalike = Object.assign(new Error('post-build check: socket hang up'), { details: [{ replaced: ['kubernetes_persistent_volume_claim_v1.home[0]'] }] });
      for (const thrown of [
        lookalike,
        ApplicationFailure.create({ message: 'post-build check: no names', type: 'WsmigrateDataLoss', nonRetryable: true, details: [{ replaced: 'kubernetes_persistent_volume_claim_v1.home[0]' }] }),
        ApplicationFailure.create({ message: 'post-build check: none replaced', type: 'WsmigrateDataLoss', nonRetryable: true, details: [{ replaced: [] }] }),
      ]) {
        const { combined } = fakeSteps({}, async () => {
          throw thrown;
        });
        await expect(combined.buildWithStateAndCheck(input)).rejects.toMatchObject({ message: thrown.message, details: [{ buildId: 'b3', buildNumber: 3 }] });
      }
    });

    it('whatever the check rejects with (even nothing), the failure names the build so the compensation counts it as ours', async () => {
      for (const thrown of [undefined, null, 'a string']) {
        const { combined } = fakeSteps({}, () => Promise.reject(thrown));
        await expect(combined.buildWithStateAndCheck(input)).rejects.toMatchObject({ message: String(thrown), nonRetryable: false, details: [{ buildId: 'b3', buildNumber: 3 }] });
      }
    });
  });

  describe('stopAndBackUp', () => {
    const input = { workspaceId: 'w1', subject: 'alice/dev', afterBuildNumber: 4, timeoutMs: 1000, workflowId: 'wf', template: 't' };

    it('stops, reads what the stop changed, then backs up the stopped state; the stop is heartbeated before the backup so a retry finds it', async () => {
      const { calls, combined } = fakeSteps({});
      const beats: unknown[] = [];
      const env = new MockActivityEnvironment();
      env.on('heartbeat', (d: unknown) => {
        beats.push(d);
        calls.push('heartbeat');
      });
      const r = (await env.run(combined.stopAndBackUp, input)) as Awaited<ReturnType<typeof combined.stopAndBackUp>>;
      expect(calls).toEqual(['stop w1 alice/dev after #4 within 1000', 'track wf alice/dev t b5', 'heartbeat', 'backup w1 alice/dev']);
      expect(beats).toEqual([{ buildId: 'b5' }]);
      expect(r).toMatchObject({ stop: { buildId: 'b5', buildNumber: 5 }, seen: { changeCount: 0 }, backup: { blob: { ref: 'blob:b5' } } });
    });

    it('a backup that fails after the stop names the stop build, so the compensation knows it for ours', async () => {
      const { combined } = fakeSteps({}, undefined, async () => {
        throw ApplicationFailure.create({ message: 'back up state failed for alice/dev: the blob store is down', type: 'WsmigrateBlobUnavailable', nonRetryable: false });
      });
      await expect(combined.stopAndBackUp(input)).rejects.toMatchObject({
        message: 'back up state failed for alice/dev: the blob store is down',
        type: 'WsmigrateBlobUnavailable',
        nonRetryable: false,
        details: [{ buildId: 'b5', buildNumber: 5 }],
      });
    });
  });
});
