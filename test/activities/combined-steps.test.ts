import { makeCombinedSteps } from '../../src/activities/combined-steps';
import type { TrackedBuild } from '../../src/contracts/migrate-workspace';

/** The parts as the combined steps call them, recording the order. */
function fakeSteps(seen: Partial<TrackedBuild>) {
  const calls: string[] = [];
  const steps = {
    preflightWorkspace: async () => (calls.push('preflight'), { workspaceId: 'w1', subject: 'alice/dev' }),
    assessHealth: async (i: { workspaceId: string }) => (calls.push(`health ${i.workspaceId}`), { health: 'unmigrated' }),
    rewriteState: async () => (calls.push('rewrite'), { migrated: { ref: 'blob:migrated' } }),
    verifyMigration: async (i: { migratedRef: string }) => (calls.push(`verify ${i.migratedRef}`), { verdict: 'allow' }),
    trackBuildChanges: async () => (calls.push('track'), { changeCount: 0, protectedDestroyed: [], ...seen }),
    postBuildCheck: async () => (calls.push('check'), { persistentChecked: 1 }),
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
});
