import type { ActiveVersionRelease } from '../../src/contracts/migrate-fleet';
import type { MarkHolder } from '../../src/domain/lock-keeper';
import { createLockKeeper, type LockKeeperDeps } from '../../src/worker/lock-keeper';
import type { LockMark } from '../../src/worker/lock-marks';

/** The keeper's decisions against fakes: the marks found, Temporal's answers, Coder's give-back (lock-marks.test.ts: how marks are found). */

const mark = (template: string, ...workflowIds: string[]): LockMark => ({ template, workflowIds });

function keeperWith(opts: {
  marks: LockMark[] | (() => Promise<LockMark[]>);
  holders: Record<string, MarkHolder['state'] | 'not-found' | 'unreachable'>;
  claimants?: string[] | 'unreachable';
  giveBack?: (t: string) => Promise<ActiveVersionRelease>;
}) {
  const given: string[] = [];
  const lines: { line: string; level: string }[] = [];
  const counted: string[] = [];
  const deps: LockKeeperDeps = {
    findMarks: typeof opts.marks === 'function' ? opts.marks : async () => opts.marks as LockMark[],
    holders: {
      async holder(workflowId) {
        const s = opts.holders[workflowId] ?? 'not-found';
        if (s === 'running') return { workflowId, state: 'running' };
        if (s === 'closed') return { workflowId, state: 'closed', how: 'terminated' };
        if (s === 'not-found') return { workflowId, state: 'closed', how: 'no longer known to Temporal (its retention expired)' };
        return { workflowId, state: 'unknown', error: 'connect ECONNREFUSED 127.0.0.1:7233' };
      },
      async claimants() {
        if (opts.claimants === 'unreachable') throw new Error('visibility: deadline exceeded');
        return opts.claimants ?? [];
      },
    },
    async giveBack({ organization, template }) {
      given.push(`${organization}/${template}`);
      return opts.giveBack ? opts.giveBack(`${organization}/${template}`) : 'switched-off';
    },
    log: (line, level) => lines.push({ line, level }),
    gaveBack: (t) => counted.push(t),
    intervalMs: 60_000,
  };
  return { keeper: createLockKeeper(deps), given, lines, counted };
}

describe('the lock keeper gives require_active_version back only when no wsmigrate run holds it', () => {
  it("gives back a terminated run's setting, says so in one line and counts it", async () => {
    const k = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: { 'wsmigrate-fleet/coder/k8s': 'closed' } });
    expect(await k.keeper.sweep()).toEqual([expect.objectContaining({ template: 'coder/k8s', outcome: 'given-back' })]);
    expect(k.given).toEqual(['coder/k8s']);
    expect(k.counted).toEqual(['coder/k8s']);
    expect(k.lines).toEqual([
      {
        level: 'info',
        line: 'lock keeper: require_active_version given back (off) on template coder/k8s: no wsmigrate run holds it (wsmigrate-fleet/coder/k8s terminated, and no run on the template runs)',
      },
    ]);
  });

  it('gives back a mark whose run Temporal no longer knows (retention expired)', async () => {
    const k = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: {} });
    await k.keeper.sweep();
    expect(k.given).toEqual(['coder/k8s']);
    expect(k.lines[0].line).toMatch(/no longer known to Temporal/);
  });

  it('no mark (the operator\'s own setting): nothing is given back, nothing said', async () => {
    const k = keeperWith({ marks: [], holders: {} });
    expect(await k.keeper.sweep()).toEqual([]);
    expect(k.given).toEqual([]);
    expect(k.lines).toEqual([]);
  });

  it("leaves a running run's mark alone, and says so once however many sweeps", async () => {
    const k = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: { 'wsmigrate-fleet/coder/k8s': 'running' } });
    await k.keeper.sweep();
    await k.keeper.sweep();
    expect(k.given).toEqual([]);
    expect(k.lines).toEqual([{ level: 'info', line: 'lock keeper: require_active_version on template coder/k8s is held by wsmigrate-fleet/coder/k8s, which runs; left on' }]);
  });

  it('leaves it while a later run on the template runs, though the run the mark names is closed', async () => {
    const k = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: { 'wsmigrate-fleet/coder/k8s': 'closed' }, claimants: ['wsmigrate-org/coder'] });
    expect(await k.keeper.sweep()).toEqual([{ template: 'coder/k8s', outcome: 'held', by: 'wsmigrate-org/coder' }]);
    expect(k.given).toEqual([]);
  });

  it('leaves it while any run the mark names runs (a later run added its own record)', async () => {
    const k = keeperWith({
      marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s', 'wsmigrate-fleet/coder/k8s-2026-12-07T05:00:00Z')],
      holders: { 'wsmigrate-fleet/coder/k8s': 'closed', 'wsmigrate-fleet/coder/k8s-2026-12-07T05:00:00Z': 'running' },
    });
    await k.keeper.sweep();
    expect(k.given).toEqual([]);
  });

  it('Temporal cannot be asked (describe fails, or the list of running runs): left on, a warning, tried again next sweep', async () => {
    const unreachable = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: { 'wsmigrate-fleet/coder/k8s': 'unreachable' } });
    await unreachable.keeper.sweep();
    expect(unreachable.given).toEqual([]);
    expect(unreachable.lines).toEqual([
      {
        level: 'warn',
        line: 'lock keeper: could not ask Temporal whether a run holds require_active_version on template coder/k8s (wsmigrate-fleet/coder/k8s: connect ECONNREFUSED 127.0.0.1:7233); left on; the lock keeper tries again in 60 s',
      },
    ]);
    const noList = keeperWith({ marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')], holders: { 'wsmigrate-fleet/coder/k8s': 'closed' }, claimants: 'unreachable' });
    await noList.keeper.sweep();
    expect(noList.given).toEqual([]);
    expect(noList.lines[0].line).toMatch(/could not ask Temporal .*the running runs: visibility: deadline exceeded/);
  });

  it('Coder refuses the give-back (down as the run ended, or now): left on, said with what to do; the next sweep gives it back', async () => {
    let coderUp = false;
    const k = keeperWith({
      marks: [mark('coder/k8s', 'wsmigrate-fleet/coder/k8s')],
      holders: { 'wsmigrate-fleet/coder/k8s': 'closed' },
      giveBack: async () => {
        if (!coderUp) throw new Error('active-version release failed for template coder/k8s: Coder answered 503');
        return 'switched-off';
      },
    });
    expect((await k.keeper.sweep())[0].outcome).toBe('coder-refused');
    expect(k.lines[0]).toEqual({
      level: 'warn',
      line: 'lock keeper: Coder did not give back require_active_version on template coder/k8s (active-version release failed for template coder/k8s: Coder answered 503); left on; the lock keeper tries again in 60 s, or switch it off with `coder templates edit k8s --require-active-version=false`',
    });
    coderUp = true;
    expect((await k.keeper.sweep())[0].outcome).toBe('given-back');
    expect(k.counted).toEqual(['coder/k8s']);
  });

  it('the marks cannot be looked for (Coder or the blob store refuses): one warning, nothing given back', async () => {
    const k = keeperWith({ marks: async () => Promise.reject(new Error('S3: AccessDenied')), holders: {} });
    expect(await k.keeper.sweep()).toEqual([expect.objectContaining({ outcome: 'unknown' })]);
    expect(k.given).toEqual([]);
    expect(k.lines[0]).toMatchObject({ level: 'warn', line: expect.stringMatching(/marks could not be looked for: S3: AccessDenied/) });
  });

  it('sweeps at start and then every interval until stopped; an interval of 0 never sweeps', async () => {
    let lists = 0;
    const deps = (intervalMs: number): LockKeeperDeps => ({
      findMarks: async () => ((lists += 1), []),
      holders: { holder: async (workflowId) => ({ workflowId, state: 'running' }), claimants: async () => [] },
      giveBack: async () => 'switched-off',
      log: () => undefined,
      intervalMs,
    });
    const off = createLockKeeper(deps(0));
    off.start();
    await off.stop();
    expect(lists).toBe(0);
    const on = createLockKeeper(deps(20));
    on.start();
    await new Promise((r) => setTimeout(r, 150));
    await on.stop();
    const after = lists;
    expect(after).toBeGreaterThan(2);
    await new Promise((r) => setTimeout(r, 60));
    expect(lists).toBe(after);
  });
});
