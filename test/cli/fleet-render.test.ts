import { fitToWidth, newGateLines, progressBar, progressLine, statusText, summaryTable } from '../../src/cli/fleet-render';
import { countRunningByPhase } from '../../src/domain/running-phases';
import { windowText } from '../../src/domain/provisioner-pacing';
import { emptyCounts } from '../../src/domain/fleet-progress';
import { detailsMarkdown } from '../../src/domain/fleet-details';
import type { FleetProgress, FleetResult } from '../../src/contracts/migrate-fleet';

const progress = (extra: Partial<FleetProgress> = {}): FleetProgress => ({
  workflowId: 'wsmigrate-fleet/coder/k8s-dev',
  organization: 'coder',
  template: 'k8s-dev',
  phase: 'running',
  stage: 'rolling',
  dryRun: false,
  targetVersionId: '11111111-2222-4333-8444-555555555555',
  counts: { ...emptyCounts(), migrated: 20, failed: 1, pvcUidsKept: 20 },
  finished: 21,
  filteredOut: 0,
  remaining: 29,
  running: Array.from({ length: 10 }, (_, i) => ({ workflowId: `w${i}`, subject: `a/w${i}`, startedAtMs: 0 })),
  failures: [{ workflowId: 'w', subject: 'bob/api-2', outcome: 'failed', reason: 'preflight refused' }],
  childApprovals: [],
  etaMs: 80_000,
  startedAt: '2026-11-30T00:00:00Z',
  runs: 1,
  concurrency: 10,
  budget: { allowance: 2, failures: 1, accepted: 0 },
  control: [],
  approvals: [],
  ...extra,
});

describe('fleet rendering', () => {
  it("a running fleet's status says what its Web UI details say of require_active_version and its note (not held on AGPL, a rollback)", () => {
    const NOT_HELD = 'require active version does not hold on template coder/k8s-dev (Coder accepted require_active_version but reads it back as false …)';
    const text = statusText({ workflowId: 'wsmigrate-fleet/coder/k8s-dev', phase: 'running', progress: progress({ activeVersionLock: { state: 'not-held', reason: 'read back false' }, note: NOT_HELD }) });
    expect(text.split('\n').slice(-1)).toEqual([`  note: ${NOT_HELD}`]);
    const held = statusText({ workflowId: 'w', phase: 'paused', progress: progress({ phase: 'paused', activeVersionLock: { state: 'given-back', rolledBack: true }, note: 'the active version is no longer the target: promote it again' }) });
    expect(held).toContain("\n  require active version: given back (off) while another version is active; the fleet's resume switches it on again once the migrated version is active\n  note: the active version is no longer the target: promote it again");
    expect(statusText({ workflowId: 'w', phase: 'running', progress: progress({ activeVersionLock: { state: 'switched-on' } }) })).toMatch(/\n {2}require active version: on while this run runs/);
    expect(statusText({ workflowId: 'w', phase: 'running', progress: progress() })).not.toMatch(/require active version|note:/);
  });

  it('no ETA while no provisioner daemon is online (nothing builds): the pacing line says the fleet waits for one (hazard drive round 2)', () => {
    const offline = progress({ pacing: { mode: 'paced', share: 0.5, width: 0, capacity: { daemons: 0, busy: 0, offline: 1, usersQueued: 0, usersRunning: 0, oursActive: 1 }, checkedAt: '2026-12-08T10:04:00Z' } });
    expect(progressBar(offline, 10)).not.toMatch(/ETA \d/);
    expect(progressLine(offline)).not.toMatch(/ETA \d/);
    expect(detailsMarkdown(offline)).not.toMatch(/ETA \d/);
    const text = statusText({ workflowId: 'w', phase: 'running', progress: offline }, Date.parse('2026-12-08T10:05:01Z'));
    expect(text).not.toMatch(/ETA \d|daemon\(s\) busy/);
    expect(text).toContain('  paced: no provisioner daemon online (0 of 1) (read 1m01s ago) · the fleet waits for one to come back');
    // Daemons online: the ETA stays.
    expect(progressLine(progress({ pacing: { mode: 'paced', share: 0.5, width: 2, capacity: { daemons: 1, busy: 0, offline: 0, usersQueued: 0, usersRunning: 0, oursActive: 0 } } }))).toMatch(/ETA 1m20s/);
  });

  it('a progress bar with counts and ETA for a terminal, a plain line otherwise', () => {
    expect(progressBar(progress(), 10)).toBe('[####······] 21/50  ok 20 · not ok 1 · running 10 · ETA 1m20s');
    expect(progressLine(progress())).toBe('running (rolling): 20 migrated, 0 already, 0 dry-run, 0 restored, 0 need attention, 1 failed, 0 skipped · 29 to go (10 running) · ETA 1m20s');
  });

  it('what it waits on, in the bar and the line: a gate or a child at one drops the ETA; a retrying activity shows its attempt and error', () => {
    const atGate = progress({ phase: 'awaiting-approval', pendingApproval: { gateId: 'fleet-continue', planHash: 'h', summary: 's', requestedAt: 'x', escalated: false } });
    expect(progressBar(atGate, 10)).toBe("[####······] 21/50  ok 20 · not ok 1 · running 10 · awaiting 'fleet-continue'");
    const child = progress({ phase: 'awaiting-approval', running: [{ workflowId: 'wsmigrate/k8s-dev/alice/dev', subject: 'alice/dev', startedAtMs: 0 }], childApprovals: [{ workflowId: 'wsmigrate/k8s-dev/alice/dev', gateId: 'recover' }] });
    const waits = [{ kind: 'child-gate' as const, workflowId: 'wsmigrate/k8s-dev/alice/dev', gateId: 'recover' }];
    expect(progressLine(child, waits)).toMatch(/· 29 to go \(1 running\) · awaiting alice\/dev at 'recover'$/);
    expect(progressLine(child, waits)).not.toMatch(/ETA/);
    const retrying = [{ kind: 'retrying' as const, workflowId: 'wsmigrate-template/coder/k8s-dev', activity: 'preflightTemplate', attempt: 9, maximumAttempts: 10, lastError: 'connect ECONNREFUSED 10.0.0.1:443' }];
    expect(progressBar(progress({ stage: 'template' }), 10, retrying)).toBe('[####······] 21/50  ok 20 · not ok 1 · running 10 · ETA 1m20s · preflightTemplate retrying (attempt 9/10: connect ECONNREFUSED 10.0.0.1:443)');
    // Restored workspaces are counted apart from failures: their state is back, nothing is lost.
    expect(progressBar(progress({ counts: { ...emptyCounts(), migrated: 20, restored: 2, pvcUidsKept: 20 } }), 10)).toMatch(/ok 20 · restored 2 · not ok 0/);
  });

  it('the summary table has a row per outcome, the PVC uids kept, and each failure with its reason', () => {
    const result: FleetResult = {
      phase: 'done',
      summary: { migrated: 48, alreadyMigrated: 1, restored: 0, needsAttention: 0, failed: 1, skipped: 2, dryRun: 0, pvcUidsKept: 48, recovered: 0 },
      failures: [{ workflowId: 'w', subject: 'bob/api-2', outcome: 'failed', reason: 'preflight refused for bob/api-2: DIFFERENT type' }],
      archive: { archived: [], keptInUse: [{ id: 'v', name: 'old', workspaces: 1 }], skipped: 'not every workspace is migrated yet' },
      moreRemaining: false,
    };
    const table = summaryTable(result);
    expect(table).toMatch(/^migrated\s+48$/m);
    expect(table).toMatch(/^PVC uids kept\s+48$/m);
    expect(table).toMatch(/bob\/api-2\s+failed\s+preflight refused/);
    expect(table).toMatch(/old versions not archived: not every workspace is migrated yet/);
  });

  it("a long failure reason is cut on its row, saying where all of it is (the next step often comes last)", () => {
    const reason = `carol/dev: migration failed (build #3 ended failed: pod quota exceeded) and the restore did not finish: ${'x'.repeat(150)}. Next: wsmigrate state restore carol/dev --backup file:///b --yes`;
    const result: FleetResult = {
      phase: 'done',
      summary: { migrated: 1, alreadyMigrated: 0, restored: 0, needsAttention: 1, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 1, recovered: 0 },
      failures: [{ workflowId: 'wsmigrate/k8s-dev/carol/dev', subject: 'carol/dev', outcome: 'needs-attention', reason }],
      moreRemaining: false,
    };
    // Both ends: what happened first, and the cause and next step that come last; the row already names the workspace.
    expect(summaryTable(result)).toMatch(/^ {2}carol\/dev\s+needs-attention\s+migration failed \(build #3 ended failed: pod quota exceeded\).* … x+\. Next: wsmigrate state restore carol\/dev --backup file:\/\/\/b --yes \(all of it: wsmigrate status wsmigrate\/k8s-dev\/carol\/dev\)$/m);
    expect(statusText({ workflowId: 'f', phase: 'running', progress: progress({ failures: result.failures }) })).toMatch(/^ {2}carol\/dev: needs-attention: migration failed .* … .*--yes \(all of it: wsmigrate status wsmigrate\/k8s-dev\/carol\/dev\)$/m);
    // A rolled-back row keeps Coder's words at its end, so rows whose causes agree show it.
    const rolledBack = `alice/dev-1: migration rolled back, state and transition restored. Cause: migrated-state build #3 of alice/dev-1 (start on version 1013072e-67a2-4b5d-9002-47caf6cc7650) ended failed: Error: container home: image registry.example.com/dev:v1 not found`;
    expect(summaryTable({ ...result, failures: [{ workflowId: 'w1', subject: 'alice/dev-1', outcome: 'restored', reason: rolledBack }] })).toMatch(/restored\s+migration rolled back, .* … .*ended failed: Error: container home: image registry\.example\.com\/dev:v1 not found \(all of it: wsmigrate status w1\)$/m);
    // A short one is whole, with no pointer.
    expect(summaryTable({ ...result, failures: [{ ...result.failures[0], reason: 'preflight refused' }] })).toMatch(/needs-attention\s+preflight refused$/m);
  });

  it('a zero-touch fleet says who migrated itself, who was migrated by the runbook, and who still waits for a build', () => {
    const table = summaryTable({
      phase: 'done',
      summary: { migrated: 2, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 1, dryRun: 0, pvcUidsKept: 2, recovered: 0 },
      failures: [],
      zeroTouch: { migratedThemselves: 1, migratedByRunbook: ['alice/dev', 'bob/api'], waitingForBuild: ['carol/old'] },
      moreRemaining: false,
    });
    expect(table).toMatch(/migrated themselves \(built on the zero-touch version\): 1$/m);
    expect(table).toMatch(/migrated by the runbook \(pinned start, then checked\): 2 {2}alice\/dev, bob\/api$/m);
    expect(table).toMatch(/still waiting for a build .*: 1 {2}carol\/old$/m);
  });

  it('says whether members can still start a migrated workspace on an old version, and how to give the setting back', () => {
    const base: FleetResult = { phase: 'done', summary: { migrated: 2, alreadyMigrated: 0, restored: 0, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: 2, recovered: 0 }, failures: [], moreRemaining: true };
    // Held only while a run runs: a batch's run gives it back as it ends, and says the next one switches it on again.
    expect(summaryTable({ ...base, activeVersionLock: { state: 'given-back', atRunEnd: true } })).toMatch(/require active version: given back \(off\) as this run ended; the next run \(window\) switches it on again/);
    expect(summaryTable({ ...base, moreRemaining: false, activeVersionLock: { state: 'given-back', atRunEnd: true } })).toMatch(/require active version: given back \(off\) as this run ended$/m);
    // Still on after the run (its give-back failed): nothing watches, so say what to do.
    expect(summaryTable({ ...base, activeVersionLock: { state: 'switched-on' } })).toMatch(/require active version: still on after this run ended, and no run watches the active version: do not promote an old version .*--require-active-version=false/);
    expect(summaryTable({ ...base, activeVersionLock: { state: 'already-on', byWsmigrate: false } })).toMatch(/require active version: on \(the template's own setting\)/);
    expect(
      summaryTable({ ...base, moreRemaining: false, activeVersionLock: { state: 'already-on', byWsmigrate: true }, archive: { archived: [{ id: 'v1', name: 'old' }], keptInUse: [], activeVersion: 'switched-off' } }),
    ).toMatch(/require active version: given back \(off\) now that the old versions are archived/);
    // A window that archived nothing does not claim an archive.
    const noop = summaryTable({ ...base, moreRemaining: false, activeVersionLock: { state: 'already-on', byWsmigrate: true }, archive: { archived: [], keptInUse: [], skipped: 'nothing to archive', activeVersion: 'switched-off' } });
    expect(noop).toMatch(/old versions not archived: nothing to archive/);
    expect(noop).toMatch(/require active version: given back \(off\): no workspace is on an old version any more/);
    expect(noop).not.toMatch(/now that the old versions are archived/);
    // A refusal is told by the note, not by this line.
    expect(summaryTable({ ...base, activeVersionLock: { state: 'refused', reason: 'license' } })).not.toMatch(/require active version/);
    // The lock as the run ended: given back, never "on" beside an archive that switched it off.
    const given = summaryTable({ ...base, moreRemaining: false, activeVersionLock: { state: 'given-back' }, archive: { archived: [{ id: 'v1', name: 'old' }], keptInUse: [], activeVersion: 'switched-off' } });
    expect(given).toMatch(/require active version: given back \(off\)/);
    expect(given).not.toMatch(/on until/);
  });

  it("the Web UI's current details: progress table, the pending gate with the approve command and the signal JSON", () => {
    const md = detailsMarkdown(progress({ phase: 'awaiting-approval', pendingApproval: { gateId: 'fleet-continue', planHash: 'canary:abc', summary: 'Canary: 3 of 3 ok', requestedAt: 'x', escalated: false } }));
    expect(md).toMatch(/\| 20 \| 0 \| 0 \| 0 \| 1 \| 0 \| 10 \| 29 \| 20 \|/);
    expect(md).toContain('`wsmigrate approve wsmigrate-fleet/coder/k8s-dev --approver <you> --gate fleet-continue --plan canary:abc`');
    expect(md).toContain('"gateId":"fleet-continue","planHash":"canary:abc"');
    expect(md).toMatch(/- `bob\/api-2` failed: `preflight refused/);
  });

  it("the Web UI's details say the lock is held while the run runs and given back as it ended", () => {
    expect(detailsMarkdown(progress({ phase: 'running', activeVersionLock: { state: 'switched-on' } }))).toMatch(/require active version: on while this run runs .*given back when the run ends/);
    expect(detailsMarkdown(progress({ phase: 'done', activeVersionLock: { state: 'given-back', atRunEnd: true } }))).toMatch(/require active version: given back \(off\) as this run ended/);
    expect(detailsMarkdown(progress({ phase: 'cancelled', activeVersionLock: { state: 'switched-on' } }))).toMatch(/still on after this run ended/);
    expect(detailsMarkdown(progress({ phase: 'running', activeVersionLock: { state: 'not-held', reason: 'agpl' } }))).not.toMatch(/require active version/);
  });

  it('the bar fits the terminal: a longer line would wrap, and each redraw would leave the last one behind', () => {
    const long = `[${'#'.repeat(28)}] 6/6  ok 6 · not ok 0 · running 0 · awaiting template coder/k8s-gpu at 'template-promote'`;
    expect(fitToWidth(long, 80)).toHaveLength(79);
    expect(fitToWidth(long, 80).endsWith('…')).toBe(true);
    expect(fitToWidth('short', 80)).toBe('short');
    expect(fitToWidth(long, undefined)).toBe(long);
  });

  it("a child's gate (the template's, a workspace's) is announced once, with its approve command", () => {
    const announced = new Set<string>();
    const waits = [
      { kind: 'child-gate' as const, workflowId: 'wsmigrate-template/coder/k8s-gpu', gateId: 'template-promote' },
      { kind: 'retrying' as const, workflowId: 'wsmigrate-fleet/coder/k8s-gpu', activity: 'discoverFleetPage', attempt: 2 },
    ];
    expect(newGateLines(waits, announced)).toEqual(["waits for wsmigrate-template/coder/k8s-gpu at 'template-promote': wsmigrate approve wsmigrate-template/coder/k8s-gpu --approver <you>"]);
    expect(newGateLines(waits, announced)).toEqual([]);
    expect(newGateLines([{ kind: 'child-gate', workflowId: 'wsmigrate/k8s-gpu/alice/a', gateId: 'recover' }], announced)).toHaveLength(1);
  });

  it("`fleet status` counts a running migration between milestones as 'in progress' (never 'starting'), and a compensating one as compensating", () => {
    const runningByPhase = countRunningByPhase([{}, { phase: 'compensating', pendingGate: 'none' }, { pendingGate: 'apply' }, {}]);
    const text = statusText({ workflowId: 'wsmigrate-fleet/coder/k8s-dev', phase: 'running', progress: progress(), runningByPhase });
    expect(text).toContain('  running by phase: in progress 2, compensating 1, awaiting-approval 1');
    expect(text).not.toMatch(/starting/);
  });

  it("`fleet status` says how old the daemons' reading is", () => {
    const capacity = { daemons: 4, busy: 2, offline: 0, usersQueued: 0, usersRunning: 1, oursActive: 1 };
    const readAt = Date.parse('2026-12-06T19:00:00Z');
    const pacing = { mode: 'paced' as const, share: 0.5, width: 4, capacity, checkedAt: new Date(readAt).toISOString() };
    const text = statusText({ workflowId: 'wsmigrate-fleet/coder/k8s-dev', phase: 'running', progress: progress({ pacing }) }, readAt + 12_000);
    expect(text).toContain("  paced: window 4 (share 0.5 of the online daemons) · 2/4 daemon(s) busy, 0 users' job(s) queued (read 12s ago)");
    expect(statusText({ workflowId: 'w', phase: 'running', progress: progress({ pacing }) }, readAt + 185_000)).toContain('(read 3m05s ago)');
  });

  it('the canary gate asks for the window pacing allows, not the concurrency alone', () => {
    const capacity = { daemons: 2, busy: 1, offline: 0, usersQueued: 0, usersRunning: 0, oursActive: 1 };
    expect(windowText(10, { mode: 'paced', share: 0.5, width: 2, capacity })).toBe("up to 10 at a time, paced by Coder's provisioners: 2 now");
    expect(windowText(10, { mode: 'paced', share: 0.5, width: 10 })).toBe("up to 10 at a time, paced by Coder's provisioners");
    expect(windowText(10, { mode: 'fallback', share: 0.5, width: 10 })).toBe('10 at a time');
    expect(windowText(10, { mode: 'off', share: 0.5, width: 10 })).toBe('10 at a time');
  });
});

describe('a fleet whose migrations keep rolling back', () => {
  const rolling = progress({ counts: { ...emptyCounts(), migrated: 1, restored: 4 }, failures: [] });
  it('fleet status names it under the counts, with the pause command', () => {
    const text = statusText({ workflowId: rolling.workflowId, phase: 'running', progress: rolling } as Parameters<typeof statusText>[0]);
    expect(text.split('\n')[2]).toBe(
      '  4 of the 5 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was). Rollbacks do not spend the failure budget, so the fleet goes on: when their reasons agree, the target version is likely at fault. Pause it (wsmigrate fleet pause wsmigrate-fleet/coder/k8s-dev) and read them.',
    );
  });
  it('the end table says to fix the target version first; a fleet with a few rollbacks says nothing', () => {
    const result = (restored: number, migrated: number): FleetResult => ({
      phase: 'done',
      summary: { migrated, alreadyMigrated: 0, restored, needsAttention: 0, failed: 0, skipped: 0, dryRun: 0, pvcUidsKept: migrated, recovered: 0 },
      failures: [],
      moreRemaining: false,
    });
    expect(summaryTable(result(6, 0))).toContain('6 of the 6 migrations that ran were rolled back (each workspace stopped, then rebuilt as it was): when their reasons agree, the target version is likely at fault; fix it before running the fleet again.');
    expect(summaryTable(result(2, 40))).not.toMatch(/rolled back/);
  });
});
