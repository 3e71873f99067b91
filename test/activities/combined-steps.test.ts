import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { makeCombinedSteps } from '../../src/activities/combined-steps';
import type { TrackedBuild } from '../../src/contracts/migrate-workspace';

/** The parts as the combined steps call them, recording the order. */
function fakeSteps(seen: Partial<TrackedBuild>, check?: () => Promise<unknown>) {
  const calls: string[] = [];
  const steps = {
    buildWithState: async () => (calls.push('build'), { buildId: 'b3', buildNumber: 3 }),
    preflightWorkspace: async () => (calls.push('preflight'), { workspaceId: 'w1', subject: 'alice/dev' }),
    assessHealth: async (i: { workspaceId: string }) => (calls.push(`health ${i.workspaceId}`), { health: 'unmigrated' }),
    rewriteState: async () => (calls.push('rewrite'), { migrated: { ref: 'blob:migrated' } }),
    verifyMigration: async (i: { migratedRef: string }) => (calls.push(`verify ${i.migratedRef}`), { verdict: 'allow' }),
    trackBuildChanges: async () => (calls.push('track'), { changeCount: 0, protectedDestroyed: [], ...seen }),
    postBuildCheck: async () => (calls.push('check'), check ? check() : { persistentChecked: 1 }),
  };
  return { calls, combined: makeCombinedSteps(steps as unknown as Parameters<typeof makeCombinedSteps>[0]) };
}

describe('combined workspace steps', () => {
  it('runs each pair in order, feeding the first result to the second', async () => {
    const { calls, combined } = fakeSteps({});
    await combined.preflightAndAssess({ owner: 'alice', workspace: 'dev', template: 't', targetVersionId: 'v', strategy: 'rename' });
    await combined.rewriteAndVerify({ subject: 'alice/dev', backupRef: 'blob:backup', strategy: 'rename', targetVersionId: 'v' });
    const read = await combined.trackAndCheckStart({ workflowId: 'wf', subject: 'alice/dev', template: 't', buildId: 'b2', backupRef: 'blob:backup' });
    expect(calls).toEqual(['preflight', 'health w1', 'rewrite', 'verify blob:migrated', 'track', 'check']);
    expect(read.check).toEqual({ persistentChecked: 1 });
  });

  it('does not run the post-build check after a build that destroyed a protected resource: the workflow judges that alone', async () => {
    const { calls, combined } = fakeSteps({ changeCount: 1, protectedDestroyed: ['kubernetes_persistent_volume_claim_v1.home[0]'] });
    const read = await combined.trackAndCheckStart({ workflowId: 'wf', subject: 'alice/dev', template: 't', buildId: 'b2', backupRef: 'blob:backup' });
    expect(calls).toEqual(['track']);
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
      expect(calls).toEqual(['build', 'track', 'check']);
      expect(r).toMatchObject({ built: { buildId: 'b3', buildNumber: 3 }, check: { persistentChecked: 1 } });
    });

    it('a retry after its build ended well only checks that build again: it never builds twice', async () => {
      const { calls, combined } = fakeSteps({});
      const env = new MockActivityEnvironment({ heartbeatDetails: { buildId: 'b3', buildNumber: 3, succeeded: true } });
      const r = (await env.run(combined.buildWithStateAndCheck, input)) as Awaited<ReturnType<typeof combined.buildWithStateAndCheck>>;
      expect(calls).toEqual(['track', 'check']);
      expect(r.built).toEqual({ buildId: 'b3', buildNumber: 3 });
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
  });
});
