import { activeVersionLockLine, detailsMarkdown, type FleetDetailsView } from '../../src/domain/fleet-details';
import { emptyCounts } from '../../src/domain/fleet-progress';

const base: FleetDetailsView = {
  workflowId: 'wsmigrate-fleet/coder/k8s',
  organization: 'coder',
  template: 'k8s',
  phase: 'running',
  stage: 'workspaces',
  dryRun: false,
  counts: { ...emptyCounts(), migrated: 3, 'already-migrated': 1, restored: 2, 'needs-attention': 4, failed: 5, skipped: 6, pvcUidsKept: 7 },
  remaining: 9,
  running: [{}, {}],
  failures: [],
  childApprovals: [],
  runs: 1,
  concurrency: 2,
  budget: { allowance: 3, failures: 2, accepted: 1 },
  control: [],
};

const TABLE = [
  '| migrated | already | restored | needs attention | failed | skipped | running | to go (with running) | PVC uids kept |',
  '|---|---|---|---|---|---|---|---|---|',
  '| 3 | 1 | 2 | 4 | 5 | 6 | 2 | 9 | 7 |',
];

describe('detailsMarkdown (the fleet as the Web UI shows it)', () => {
  test('a running fleet: heading, counts, target, budget left and run', () => {
    expect(detailsMarkdown(base)).toBe(['### Fleet coder/k8s · running (workspaces)', '', ...TABLE, '', 'target version: `(template first)` · concurrency 2 · budget 1/3 · run 1'].join('\n'));
  });

  test('a fleet at its gate, with children at theirs, failures, pacing and a note', () => {
    const failures = Array.from({ length: 12 }, (_, i) => ({ subject: `u${i}/dev`, workflowId: `wsmigrate/k8s/u${i}/dev`, outcome: 'failed', reason: i === 11 ? `a \`quoted\` ${'x'.repeat(500)} Cause: ImagePullBackOff` : `reason ${i}` }));
    const text = detailsMarkdown({
      ...base,
      dryRun: true,
      targetVersionId: 'v-2',
      etaMs: 90_000,
      runs: 2,
      pendingApproval: { gateId: 'fleet-budget', planHash: 'ab12', summary: '5 failures, over the budget of 3', requestedAt: 'now', escalated: false },
      childApprovals: Array.from({ length: 11 }, (_, i) => ({ workflowId: `wsmigrate/coder/u${i}/dev`, gateId: 'apply' })),
      failures,
      pacing: { mode: 'off', share: 1, width: 2 },
      note: 'paused by alice',
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('### Fleet coder/k8s · running (workspaces) · dry run');
    expect(lines[6]).toBe('target version: `v-2` · concurrency 2 · budget 1/3 · ETA 1m30s · run 2');
    expect(lines.slice(7, 15)).toEqual([
      '',
      '**Waiting for approval: `fleet-budget`** — 5 failures, over the budget of 3',
      '',
      'approvers: no one (the run names no approver and was not started with --any-approver): it can only be rejected',
      '',
      '`wsmigrate approve wsmigrate-fleet/coder/k8s --approver <you> --gate fleet-budget --plan ab12`',
      '',
      'signal `approval`: `{"gateId":"fleet-budget","planHash":"ab12","approver":"<you>","decision":"approve"}`',
    ]);
    expect(lines[16]).toBe(`Migrations waiting for approval: ${Array.from({ length: 10 }, (_, i) => `\`wsmigrate/coder/u${i}/dev\` (apply)`).join(', ')}`);
    expect(lines.slice(17, 20)).toEqual(['', '**Failures**', '']);
    expect(lines.slice(20, 29)).toEqual(Array.from({ length: 9 }, (_, i) => `- \`u${i + 2}/dev\` failed: \`reason ${i + 2}\``));
    // A long reason is cut where it says so, with the command that shows all of it (its cause comes last).
    expect(lines[29]).toBe(`- \`u11/dev\` failed: \`\` ${`a \`quoted\` ${'x'.repeat(500)}`.slice(0, 300)}… \`\` (all of it: \`wsmigrate status wsmigrate/k8s/u11/dev\`)`);
    expect(lines.slice(30)).toEqual(['', 'pacing off: up to the concurrency, whatever Coder can run', '', 'paused by alice']);
  });

  test("a failure's reason is shown whole (as much as the fleet keeps): the cause at its end (Coder's words) is not cut off", () => {
    const reason = `alice/ml-5: migration rolled back, state and transition restored. Cause: migrated-state build #3 of alice/ml-5 (start on version ${'f'.repeat(36)}) ended failed: kubelet: ImagePullBackOff`;
    expect(detailsMarkdown({ ...base, failures: [{ subject: 'alice/ml-5', workflowId: 'wsmigrate/k8s/alice/ml-5', outcome: 'restored', reason }] })).toContain(`- \`alice/ml-5\` restored: \`${reason}\``);
  });

  test('a gate says on whom it waits: the approvers by name, or anyone', () => {
    const gate = { gateId: 'fleet-continue' as const, planHash: 'ab12', summary: 'canary: 3 of 3 migrated', requestedAt: 'now', escalated: false };
    expect(detailsMarkdown({ ...base, phase: 'awaiting-approval', pendingApproval: { ...gate, approvers: ['alice', 'bob'] } })).toContain('\n\napprovers: alice, bob\n\n`wsmigrate approve ');
    expect(detailsMarkdown({ ...base, phase: 'awaiting-approval', pendingApproval: { ...gate, approvers: [], anyApprover: true } })).toContain('approvers: any name (the run was started with --any-approver)');
  });

  test("a migration waiting at its gate says who may approve it, as its own details do", () => {
    const text = detailsMarkdown({ ...base, childApprovals: [{ workflowId: 'wsmigrate/k8s/alice/dev', gateId: 'apply', approvers: 'alice, bob' }, { workflowId: 'wsmigrate/k8s/bob/dev', gateId: 'stop' }] });
    expect(text).toContain('Migrations waiting for approval: `wsmigrate/k8s/alice/dev` (apply; approvers: alice, bob), `wsmigrate/k8s/bob/dev` (stop)');
  });

  test('paused: who paused it, why, since when, and the command that resumes it, as fleet status says it', () => {
    const control = [{ action: 'pause', by: 'alice', reason: 'coffee', at: '2026-12-07T18:00:00.000Z' }];
    const resume = 'paused by alice (coffee) since 2026-12-07T18:00:00.000Z: no new migration starts until it is resumed: wsmigrate fleet resume wsmigrate-fleet/coder/k8s --by <you>';
    expect(detailsMarkdown({ ...base, phase: 'paused', control }).split('\n').slice(7)).toEqual(['', `**${resume}**`]);
    // Paused at its own gate: an approval alone starts nothing, and the details say so beside the gate.
    const gate = { gateId: 'fleet-continue' as const, planHash: 'ab12', summary: 's', requestedAt: 'now', escalated: false, approvers: ['alice'] };
    expect(detailsMarkdown({ ...base, phase: 'awaiting-approval', control, pendingApproval: gate })).toContain(
      "**paused by alice (coffee) since 2026-12-07T18:00:00.000Z: it still waits at 'fleet-continue'; once that is approved, no new migration starts until it is resumed: wsmigrate fleet resume wsmigrate-fleet/coder/k8s --by <you>**",
    );
    // Resumed, or running: no pause line.
    expect(detailsMarkdown({ ...base, control: [...control, { action: 'resume', by: 'bob', at: 'later' }] })).not.toMatch(/paused by/);
    expect(detailsMarkdown({ ...base, control })).not.toMatch(/paused by/);
  });

  test.each<[string, Partial<FleetDetailsView>, string]>([
    ['cancelled, by whom and why', { phase: 'cancelled', control: [{ action: 'pause', by: 'bob' }, { action: 'cancel', by: 'alice', reason: 'wrong template' }] }, '### Fleet coder/k8s · CANCELLED by alice (wrong template)'],
    ['cancelling, without a reason', { phase: 'cancelling', control: [{ action: 'cancel', by: 'alice' }] }, '### Fleet coder/k8s · cancelling (workspaces) by alice'],
    ['a cancel asked of a fleet that then failed is not shown', { phase: 'failed', stage: 'template', control: [{ action: 'cancel', by: 'alice' }] }, '### Fleet coder/k8s · FAILED (during template)'],
  ])('the heading when %s', (_title, view, heading) => {
    expect(detailsMarkdown({ ...base, ...view }).split('\n')[0]).toBe(heading);
  });

  test('a failed fleet names its failure in a code span before the table', () => {
    expect(detailsMarkdown({ ...base, phase: 'failed' }, 'Coder said `403`').split('\n').slice(0, 4)).toEqual([
      '### Fleet coder/k8s · FAILED (during workspaces)',
      '',
      '**Failed:** `` Coder said `403` ``',
      '',
    ]);
  });

  test('running dormant workspaces: the skipped count says how many are dormant, and a Skipped list (the last 10) says who must act', () => {
    const skips = Array.from({ length: 11 }, (_, i) => ({ subject: `u${i}/dev`, reason: i === 10 ? 'skipped: dormant since `then`' : `skipped ${i}` }));
    const lines = detailsMarkdown({ ...base, counts: { ...base.counts, dormant: 2 }, skips }).split('\n');
    expect(lines[4]).toBe('| 3 | 1 | 2 | 4 | 5 | 6 (2 dormant) | 2 | 9 | 7 |');
    expect(lines.slice(7, 10)).toEqual(['', '**Skipped** (a person must act first)', '']);
    expect(lines.slice(10)).toEqual([...Array.from({ length: 9 }, (_, i) => `- \`u${i + 1}/dev\` \`skipped ${i + 1}\``), '- `u10/dev` `` skipped: dormant since `then` ``']);
    // None skipped: no list, and no dormant count.
    expect(detailsMarkdown({ ...base, skips: [] })).toBe(detailsMarkdown(base));
    expect(detailsMarkdown(base)).not.toMatch(/dormant|Skipped/);
  });
});

describe('require_active_version in the details: held only while a run runs', () => {
  const GIVEN_BACK_AT_END = 'require active version: given back (off) as this run ended (the next run, if any, switches it on again)';
  const HELD = 'require active version: on while this run runs (it watches the active version every minute; given back when the run ends)';
  const STILL_ON = 'require active version: still on after this run ended, and no run watches the active version';
  const OPERATORS = "require active version: on (the template's own setting)";

  test.each<[string, FleetDetailsView['activeVersionLock'], boolean, string | undefined]>([
    ['given back as the run ended', { state: 'given-back', atRunEnd: true }, true, GIVEN_BACK_AT_END],
    ['given back earlier (the archive)', { state: 'given-back' }, false, 'require active version: given back (off)'],
    [
      'given back by the watch at a rollback, running',
      { state: 'given-back', rolledBack: true },
      false,
      "require active version: given back (off) while another version is active; the fleet's resume switches it on again once the migrated version is active",
    ],
    ['given back by the watch at a rollback, ended', { state: 'given-back', rolledBack: true }, true, 'require active version: given back (off)'],
    ['switched on by this run, running', { state: 'switched-on' }, false, HELD],
    ['on by an earlier run of wsmigrate, running', { state: 'already-on', byWsmigrate: true }, false, HELD],
    // The give-back failed: the operator must learn nothing watches the active version any more.
    ['switched on, the run ended without giving it back', { state: 'switched-on' }, true, STILL_ON],
    ["wsmigrate's, the run ended without giving it back", { state: 'already-on', byWsmigrate: true }, true, STILL_ON],
    ["the operator's own setting, running", { state: 'already-on', byWsmigrate: false }, false, OPERATORS],
    ["the operator's own setting, ended", { state: 'already-on', byWsmigrate: false }, true, OPERATORS],
    ['refused (the note says why)', { state: 'refused' }, false, undefined],
    ['not held (the note says why)', { state: 'not-held' }, true, undefined],
    ['never asked', undefined, false, undefined],
  ])('%s', (_title, lock, ended, line) => {
    expect(activeVersionLockLine(lock, ended)).toBe(line);
  });

  test.each<[string, boolean]>([
    ['running', false],
    ['awaiting-approval', false],
    ['paused', false],
    ['cancelling', false],
    ['done', true],
    ['cancelled', true],
    ['failed', true],
  ])('a fleet %s: the line says whether a run still watches (ended: %s), after the pacing and before the note', (phase, ended) => {
    const lines = detailsMarkdown({ ...base, phase, activeVersionLock: { state: 'switched-on' }, pacing: { mode: 'off', share: 1, width: 2 }, note: 'a note' }).split('\n');
    expect(lines.slice(-6)).toEqual(['', 'pacing off: up to the concurrency, whatever Coder can run', '', ended ? STILL_ON : HELD, '', 'a note']);
  });
});
