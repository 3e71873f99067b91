import { migrateFleetInputSchema } from '../../src/domain/fleet-input';
import { budgetAllowance, budgetBase, emptyCounts, etaMs, finishedCount, nextCanaryIndex, outcomeOfFailure, overBudget, selectForFleet, type FleetWorkspaceFacts } from '../../src/domain/fleet-progress';
import { InputError, parseInput } from '../../src/domain/migration-input';

const TARGET = '11111111-2222-4333-8444-555555555555';
const OLD = '99999999-2222-4333-8444-555555555555';
const filters = (extra = {}) => migrateFleetInputSchema.parse({ organization: 'coder', template: 'k8s', filters: extra, approval: { approvers: ['sre'] } }).filters;
const ws = (extra: Partial<FleetWorkspaceFacts> = {}): FleetWorkspaceFacts => ({
  id: 'w1',
  owner: 'alice',
  name: 'dev-1',
  status: 'running',
  latestVersionId: OLD,
  latestTransition: 'start',
  latestJobStatus: 'succeeded',
  ...extra,
});

describe('fleet input', () => {
  it('fills the documented defaults from plain JSON', () => {
    // A fleet asks for approvals (canary, budget, archive), so it must name who answers them.
    expect(() => migrateFleetInputSchema.parse({ organization: 'coder', template: 'k8s-dev' })).toThrow(/names no approver.*--approver/);
    const p = migrateFleetInputSchema.parse({ organization: 'coder', template: 'k8s-dev', approval: { approvers: ['sre'] } });
    expect(p).toMatchObject({ concurrency: 10, canary: 3, failureBudget: { percent: 10, min: 2 }, option: 'A', strategy: 'rename', dryRun: false, archiveOldVersions: true });
    expect(p.filters).toEqual({ owners: [], status: 'any', exclude: [] });
  });

  it('names every bad field', () => {
    let err: InputError | undefined;
    try {
      parseInput(migrateFleetInputSchema, { organization: '', template: 'k', concurrency: 201, filters: { limit: 0, status: 'paused' }, option: 'C' });
    } catch (e) {
      err = e as InputError;
    }
    expect(err?.issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^organization: organization is required/),
        'concurrency: concurrency must be 1..200',
        'filters.limit: limit must be at least 1',
        "filters.status: status must be 'any', 'running' or 'stopped'",
        "option: option must be 'A' (stop first) or 'B' (stay running)",
      ]),
    );
  });
});

describe('fleet bookkeeping', () => {
  it('budget: 10% of finished, at least 2; exceeded only past the allowance, counted from the last resume', () => {
    const budget = { percent: 10, min: 2 };
    expect(budgetAllowance(0, budget)).toBe(2);
    expect(budgetAllowance(50, budget)).toBe(5);
    const c = { ...emptyCounts(), migrated: 7, failed: 2, 'needs-attention': 0, restored: 5 };
    expect(overBudget(c, budget, 0)).toBe(false); // restored is safe: not a budget failure
    c.failed = 3;
    expect(overBudget(c, budget, 0)).toBe(true);
    expect(overBudget(c, budget, 3)).toBe(false);
  });

  it('budget: needs-attention counts as a failure; the allowance grows with every finished outcome', () => {
    const budget = { percent: 10, min: 2 };
    expect(overBudget({ ...emptyCounts(), migrated: 5, 'needs-attention': 3 }, budget, 0)).toBe(true);
    expect(overBudget({ ...emptyCounts(), migrated: 5, 'needs-attention': 2 }, budget, 0)).toBe(false);
    // 50 finished (a skipped workspace never ran: not one of them): 5 allowed.
    const fifty = { ...emptyCounts(), migrated: 30, 'already-migrated': 6, 'dry-run': 1, restored: 5, failed: 4, 'needs-attention': 1, 'waiting-for-build': 3, skipped: 7 };
    expect(finishedCount(fifty)).toBe(50);
    expect(overBudget(fifty, budget, 0)).toBe(false);
    expect(overBudget({ ...fifty, failed: 5 }, budget, 0)).toBe(true);
  });

  it('budget: workspaces discovery found already migrated never ran, so a re-run over a migrated fleet keeps the budget of what it migrates', () => {
    const budget = { percent: 10, min: 2 };
    // A re-run: 1,000 found already migrated, 20 migrated now, 3 failed. Counted in, they would allow 102 failures.
    const rerun = { ...emptyCounts(), 'already-migrated': 1000, migrated: 20, failed: 3 };
    expect(overBudget(rerun, budget, 0, 1000)).toBe(true);
    expect(budgetBase(rerun, 1000)).toBe(23);
    expect(overBudget(rerun, budget, 0)).toBe(false);
  });

  it('failure types map to outcomes', () => {
    expect(outcomeOfFailure('WsmigrateRolledBack')).toBe('restored');
    expect(outcomeOfFailure('WsmigrateNeedsAttention')).toBe('needs-attention');
    expect(outcomeOfFailure('WsmigrateRefused')).toBe('failed');
    // Its preflight found it running and dormant: nothing was stopped, nobody's failure; skipped with who must act.
    expect(outcomeOfFailure('WsmigrateDormant')).toBe('skipped');
    expect(outcomeOfFailure(undefined)).toBe('failed');
    // A gate's no (rejected, or not answered in time) is a decision; fleets recorded before counted it failed.
    expect(outcomeOfFailure('WsmigrateRejected')).toBe('declined');
    expect(outcomeOfFailure('WsmigrateRejected', false)).toBe('failed');
  });

  it('budget: a declined migration (a gate said no) neither spends the budget nor widens it', () => {
    const budget = { percent: 10, min: 0 };
    const declined = { ...emptyCounts(), migrated: 10, declined: 40, failed: 2 };
    expect(finishedCount(declined)).toBe(52);
    expect(budgetBase(declined)).toBe(12);
    expect(overBudget(declined, budget, 0)).toBe(true); // 2 failures > 10% of 12; counted in, 40 declined would allow 5
    expect(overBudget({ ...emptyCounts(), declined: 8 }, budget, 0)).toBe(false);
    // Older runs' state has no such count.
    expect(finishedCount({ ...emptyCounts(), migrated: 2 })).toBe(2);
  });

  it('ETA from observed durations, C at a time', () => {
    expect(etaMs(10, { totalMs: 0, n: 0 }, 5)).toBeUndefined();
    expect(etaMs(10, { totalMs: 20_000, n: 2 }, 5)).toBe(20_000);
    expect(etaMs(0, { totalMs: 20_000, n: 2 }, 5)).toBeUndefined();
  });

  it('selection: done when on the target version, filters by owner, glob, exclude and status', () => {
    expect(selectForFleet(ws(), filters(), TARGET)).toBe('migrate');
    expect(selectForFleet(ws({ latestVersionId: TARGET }), filters(), TARGET)).toBe('done');
    expect(selectForFleet(ws({ latestVersionId: TARGET, latestJobStatus: 'failed' }), filters(), TARGET)).toBe('migrate');
    expect(selectForFleet(ws(), filters({ owners: ['bob'] }), TARGET)).toBe('filtered');
    expect(selectForFleet(ws(), filters({ name: 'dev-*' }), TARGET)).toBe('migrate');
    expect(selectForFleet(ws(), filters({ name: 'api-?' }), TARGET)).toBe('filtered');
    expect(selectForFleet(ws(), filters({ exclude: ['Alice/dev-1'] }), TARGET)).toBe('filtered');
    expect(selectForFleet(ws({ status: 'stopped' }), filters({ status: 'running' }), TARGET)).toBe('filtered');
    expect(selectForFleet(ws({ latestTransition: 'delete' }), filters(), TARGET)).toBe('filtered');
    // Owners match whatever their case, any of them; an exclude of another workspace, or the status asked, leaves it in.
    expect(selectForFleet(ws(), filters({ owners: ['bob', 'ALICE'] }), TARGET)).toBe('migrate');
    expect(selectForFleet(ws(), filters({ exclude: ['alice/dev-2'] }), TARGET)).toBe('migrate');
    expect(selectForFleet(ws(), filters({ status: 'running' }), TARGET)).toBe('migrate');
  });

  it('selection: a running dormant workspace is skipped (its migration could not start it again); a stopped or failed one is migrated stopped; filters come first', () => {
    const since = '2026-01-01T00:00:00Z';
    expect(selectForFleet(ws({ dormantSince: since }), filters(), TARGET)).toBe('dormant');
    expect(selectForFleet(ws({ dormantSince: since, latestTransition: 'stop', status: 'stopped' }), filters(), TARGET)).toBe('migrate');
    expect(selectForFleet(ws({ dormantSince: since, latestJobStatus: 'failed', status: 'failed' }), filters(), TARGET)).toBe('migrate');
    expect(selectForFleet(ws({ dormantSince: since }), filters({ owners: ['bob'] }), TARGET)).toBe('filtered');
    expect(selectForFleet(ws({ dormantSince: since, latestVersionId: TARGET }), filters(), TARGET)).toBe('done');
  });

  it("selection: a prebuilt workspace is left to Coder's reconciler, whatever its version or the filters; one being deleted is filtered", () => {
    expect(selectForFleet(ws({ prebuilt: true }), filters(), TARGET)).toBe('prebuilt');
    expect(selectForFleet(ws({ prebuilt: true, latestVersionId: TARGET }), filters(), TARGET)).toBe('prebuilt');
    expect(selectForFleet(ws({ prebuilt: true }), filters({ owners: ['bob'] }), TARGET)).toBe('prebuilt');
    expect(selectForFleet(ws({ prebuilt: true, latestTransition: 'delete' }), filters(), TARGET)).toBe('filtered');
    expect(selectForFleet(ws({ prebuilt: false }), filters(), TARGET)).toBe('migrate');
  });
});

describe('the canary spans owners', () => {
  it('takes the first workspace of an owner the canary does not hold yet, else the head', () => {
    const queue = [{ owner: 'alice' }, { owner: 'alice' }, { owner: 'bob' }, { owner: 'carol' }];
    expect(nextCanaryIndex(queue, [])).toBe(0);
    expect(nextCanaryIndex(queue, ['alice/dev'])).toBe(2);
    expect(nextCanaryIndex(queue, ['alice/dev', 'bob/api', 'carol/web'])).toBe(0);
    expect(nextCanaryIndex([], ['alice/dev'])).toBe(0);
  });
});
