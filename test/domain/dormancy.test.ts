import { dormantNote, dormantSkipReason, dormantWhoMustAct } from '../../src/domain/dormancy';

const WHO_MUST_ACT = 'its owner or an admin makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/ws-1/dormant {"dormant": false})';

describe('a dormant workspace: who must act, in the words scan, the preflight and the fleet use', () => {
  test('a workspace Coder has not made dormant has no note', () => {
    expect(dormantNote({ id: 'ws-1' })).toBeUndefined();
    expect(dormantNote({ id: 'ws-1', dormant_at: null })).toBeUndefined();
    expect(dormantNote({ id: 'ws-1', dormant_at: '' })).toBeUndefined();
  });

  test("a dormant one's note: since when, why a migration refuses it, and the call that makes it active, with its id", () => {
    expect(dormantNote({ id: 'ws-1', dormant_at: '2026-12-01T00:00:00Z' })).toEqual({
      since: '2026-12-01T00:00:00Z',
      action: `Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; ${WHO_MUST_ACT}`,
    });
  });

  test("a fleet's skip of a running dormant workspace: since when, that nothing was touched, who must act, and what to run after", () => {
    expect(dormantSkipReason('ws-1', '2026-12-01T00:00:00Z')).toBe(
      'skipped: dormant since 2026-12-01T00:00:00Z (Coder starts it for nobody, so the migration could not start it again after its stop); ' +
        `nothing was stopped or built: ${WHO_MUST_ACT}, then run the fleet (or 'wsmigrate migrate workspace') again`,
    );
  });
});

describe('a dormant workspace Coder will delete, or whose owner is suspended', () => {
  test('deleting_at is carried and said: Coder deletes it, home PVC included, unless made active before', () => {
    const note = dormantNote({ id: 'ws-1', dormant_at: '2026-12-01T00:00:00Z', deleting_at: '2026-12-08T00:00:00Z' });
    expect(note).toMatchObject({ since: '2026-12-01T00:00:00Z', deletingAt: '2026-12-08T00:00:00Z' });
    expect(note?.action).toBe(
      `Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; ${WHO_MUST_ACT}. ` +
        "Coder deletes it, home PVC included, at 2026-12-08T00:00:00Z (the template's time_til_dormant_autodelete) unless it is made active before",
    );
  });

  test('a suspended owner is not asked to act: an admin is, and the owner is named as why', () => {
    expect(dormantWhoMustAct('ws-1', { name: 'dave', suspended: true })).toBe(
      'a Coder admin makes it active first, not its owner: dave is suspended and cannot sign in (its page in the dashboard, or PUT /api/v2/workspaces/ws-1/dormant {"dormant": false})',
    );
    expect(dormantWhoMustAct('ws-1', { name: 'dave', suspended: false })).toBe(WHO_MUST_ACT);
    expect(dormantNote({ id: 'ws-1', dormant_at: '2026-12-01T00:00:00Z' }, { name: 'dave', suspended: true })).toMatchObject({ ownerSuspended: true });
  });
});
