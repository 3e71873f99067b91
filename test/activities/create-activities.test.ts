import { createActivities, type MigrationMetrics } from '../../src/activities';
import type { CoderApi } from '../../src/activities/ports';
import type { BlobStore } from '../../src/adapters/blob-store';

/**
 * The worker's wiring (src/activities/index.ts): every step the workflows call is registered, and
 * with metrics given the steps are metered. Each step's behaviour is its own test file's, on the
 * simulator; none is called here, so no Coder and no blob store is needed.
 */
describe('createActivities: what the worker registers', () => {
  const unused = new Proxy({}, { get: (_t, name) => () => Promise.reject(new Error(`not called in this test: ${String(name)}`)) });
  const deps = (metrics?: MigrationMetrics) => ({
    coder: unused as CoderApi,
    blobs: unused as BlobStore,
    notifier: { notify: async () => undefined },
    ...(metrics ? { metrics } : {}),
  });

  it('registers every runbook step and the combined steps, each as a function', () => {
    const acts = createActivities(deps());
    expect(Object.keys(acts).sort()).toEqual(
      [
        'archiveTemplateVersions',
        'assessHealth',
        'backupForRecovery',
        'backupState',
        'buildWithState',
        'buildWithStateAndCheck',
        'checkActiveVersion',
        'checkFleetNames',
        'checkGivenVersion',
        'checkProtectedKept',
        'discoverFleetPage',
        'listOrganizationTemplates',
        'notify',
        'planVersionArchive',
        'postBuildCheck',
        'preflightAndAssess',
        'preflightTemplate',
        'preflightWorkspace',
        'promoteTemplateVersion',
        'pushTemplateVersion',
        'readLatestBuild',
        'readProvisionerCapacity',
        'releaseActiveVersion',
        'requestCancellation',
        'requireActiveVersion',
        'restoreByBuild',
        'rewriteAndVerify',
        'rewriteState',
        'rewriteTemplateSource',
        'runsBesideWindow',
        'startPinned',
        'stopAndBackUp',
        'stopWorkspace',
        'trackAndCheckStart',
        'trackBuildChanges',
        'verifyMigration',
      ].sort(),
    );
    for (const step of Object.values(acts)) expect(typeof step).toBe('function');
  });

  it('with metrics, a migration told done is counted as migrated; without them, the same step only notifies', async () => {
    const finished: string[] = [];
    const metrics: MigrationMetrics = {
      workspaceFinished: (outcome) => finished.push(outcome),
      approvalDecided: () => undefined,
      resourceChangeSeen: () => undefined,
      deleteBlocked: () => undefined,
      damagedWorkspaceFound: () => undefined,
      activeVersionLockRead: () => undefined,
    };
    const done = { kind: 'migration-done' as const, workflowId: 'wf', subject: 'alice/dev', text: 'migrated' };
    await expect(createActivities(deps(metrics)).notify(done)).resolves.toEqual({ delivered: true });
    expect(finished).toEqual(['migrated']);
    await expect(createActivities(deps()).notify(done)).resolves.toEqual({ delivered: true });
    expect(finished).toEqual(['migrated']);
  });
});
