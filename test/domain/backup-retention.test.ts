import { parseAge, planPrune, workspaceOfWorkflowId, type RetentionBlob } from '../../src/domain/backup-retention';

const NOW = new Date('2026-11-30T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();
const hex = (c: string) => c.repeat(64);
function blob(c: string, records: RetentionBlob['records'], lastModified = daysAgo(100)): RetentionBlob {
  return { ref: `s3://b/p/sha256/${hex(c)}`, sha256: hex(c), lastModified, records };
}
const backup = (workspace: string, age: number, workflowId = `wsmigrate/k8s/${workspace}`) => ({ kind: 'state-backup', workspace, workflowId, storedAt: daysAgo(age) });

describe('backup retention', () => {
  it('deletes old backups, keeping the newest of each workspace', () => {
    const decisions = planPrune([blob('a', [backup('alice/dev', 90)]), blob('b', [backup('alice/dev', 60)]), blob('c', [backup('bob/x', 70)])], [], NOW, 30 * 86_400_000);
    expect(decisions.map((d) => [d.sha256[0], d.action, d.action === 'keep' ? d.reason : ''])).toEqual([
      ['a', 'delete', ''],
      ['b', 'keep', 'the newest backup of alice/dev'],
      ['c', 'keep', 'the newest backup of bob/x'],
    ]);
  });

  it('never deletes the backup of a migration that has not ended, nor any blob of a workspace being migrated', () => {
    const blobs = [
      blob('a', [backup('alice/dev', 90, 'wsmigrate/k8s/alice/dev')]),
      blob('b', [backup('alice/dev', 80, 'old-run')]),
      blob('c', [{ kind: 'state-migrated', workspace: 'carol/ws', workflowId: 'fleet-1', storedAt: daysAgo(90) }]),
      blob('d', [backup('alice/dev', 10)]),
    ];
    const running = [{ workflowId: 'wsmigrate/k8s/alice/dev', workspace: 'alice/dev' }, { workflowId: 'fleet-1' }];
    const decisions = planPrune(blobs, running, NOW, 30 * 86_400_000);
    expect(decisions.map((d) => (d.action === 'keep' ? d.reason : 'delete'))).toEqual([
      'its migration wsmigrate/k8s/alice/dev has not ended',
      'a migration of alice/dev is running (wsmigrate/k8s/alice/dev)',
      'its migration fleet-1 has not ended',
      'its migration wsmigrate/k8s/alice/dev has not ended',
    ]);
  });

  it('keeps young blobs and blobs nobody recorded', () => {
    const decisions = planPrune(
      [blob('a', [{ kind: 'template-source', storedAt: daysAgo(5) }]), blob('b', []), blob('c', [{ kind: 'template-source', storedAt: daysAgo(40) }])],
      [],
      NOW,
      30 * 86_400_000,
    );
    expect(decisions.map((d) => (d.action === 'keep' ? d.reason.split(' (')[0] : 'delete'))).toEqual(['younger than the cut-off', 'no record of who wrote it', 'delete']);
  });

  it("never deletes wsmigrate's mark that it switched on a template's require_active_version, however old", () => {
    const decisions = planPrune([blob('a', [{ kind: 'template-lock', workflowId: 'wsmigrate-fleet/coder/k8s', storedAt: daysAgo(400) }])], [], NOW, 30 * 86_400_000);
    expect(decisions[0]).toMatchObject({ action: 'keep', reason: expect.stringMatching(/require_active_version/) });
  });

  it('reads ages and workflow ids', () => {
    expect(parseAge('30d')).toBe(30 * 86_400_000);
    expect(parseAge('12h')).toBe(12 * 3_600_000);
    expect(parseAge(' 90m\n')).toBe(90 * 60_000);
    for (const bad of ['30', '0d', '-1d', '1w', 'soon']) expect(() => parseAge(bad)).toThrow(/--older-than must be a positive whole number of days, hours or minutes/);
    expect(workspaceOfWorkflowId('wsmigrate/k8s-dev/alice/dev')).toBe('alice/dev');
    expect(workspaceOfWorkflowId('wsmigrate-template/coder/k8s')).toBeUndefined();
    // Another application's workflow in the same namespace, and a wsmigrate id of another shape, name no workspace.
    expect(workspaceOfWorkflowId('billing/k8s-dev/alice/dev')).toBeUndefined();
    expect(workspaceOfWorkflowId('wsmigrate/k8s-dev/alice')).toBeUndefined();
  });
  it('the newest backup of a workspace is the newest by time, in whatever order the store lists them', () => {
    const decisions = planPrune([blob('b', [backup('alice/dev', 60)]), blob('a', [backup('alice/dev', 90)])], [], NOW, 30 * 86_400_000);
    expect(decisions.map((d) => [d.sha256[0], d.action])).toEqual([
      ['b', 'keep'],
      ['a', 'delete'],
    ]);
  });

  it("only state backups count as a workspace's newest backup: a newer migrated state of it does not let its last backup go", () => {
    const decisions = planPrune(
      [
        blob('a', [backup('alice/dev', 90)]),
        blob('m', [{ kind: 'state-migrated', workspace: 'alice/dev', workflowId: 'wsmigrate/k8s/alice/dev', storedAt: daysAgo(60) }]),
        // A migrated state of a workspace that has no backup in the store at all.
        blob('n', [{ kind: 'state-migrated', workspace: 'nobody/else', storedAt: daysAgo(60) }]),
      ],
      [],
      NOW,
      30 * 86_400_000,
    );
    expect(decisions.map((d) => [d.sha256[0], d.action === 'keep' ? d.reason : 'delete'])).toEqual([
      ['a', 'the newest backup of alice/dev'],
      ['m', 'delete'],
      ['n', 'delete'],
    ]);
  });

  it('a blob backed up again (the same bytes, a second record) is as old as its newest record, whichever is listed first', () => {
    const twice = (first: number, second: number) => blob('t', [{ kind: 'template-source', storedAt: daysAgo(first) }, { kind: 'template-source', storedAt: daysAgo(second) }]);
    for (const b of [twice(90, 5), twice(5, 90)]) {
      expect(planPrune([b], [], NOW, 30 * 86_400_000)[0]).toMatchObject({ action: 'keep', storedAt: daysAgo(5), reason: `younger than the cut-off (stored ${daysAgo(5)})` });
    }
    expect(planPrune([twice(90, 60)], [], NOW, 30 * 86_400_000)[0]).toMatchObject({ action: 'delete', storedAt: daysAgo(60) });
  });
});
