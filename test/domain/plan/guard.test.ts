import { classifyChanges, type ClassifiedChange } from '../../../src/domain/plan/classify';
import { planGuardVerdict, type GuardPolicy, type Transition } from '../../../src/domain/plan/guard';
import { plannedChangesFromText } from '../../../src/domain/plan/plan-json';
import type { PlannedChange } from '../../../src/domain/plan/planned-change';
import { readFixture } from './fixtures';

const classified = (relative: string) => classifyChanges(plannedChangesFromText(readFixture(relative), relative));
const severities = (changes: ClassifiedChange[], policy: GuardPolicy) =>
  planGuardVerdict(changes, policy).reasons.map((r) => [r.address, r.severity]);

function planned(address: string, type: string, name: string, actions: PlannedChange['actions'], more: Partial<PlannedChange> = {}): PlannedChange {
  return { address, mode: 'managed', type, name, actions, ...more };
}

describe('protected resources outside a workspace delete', () => {
  it.each<[string, Transition]>([
    ['show/rename-old-to-new.json', 'start'],
    ['show/rename-new-to-old.json', 'stop'],
    ['show/replace-pvc.json', 'start'],
    ['show/replace-pvc.json', 'stop'],
  ])('%s in a %s is denied (PVCs are protected by kind)', (fixture, transition) => {
    const verdict = planGuardVerdict(classified(fixture), { transition });
    expect(verdict.verdict).toBe('deny');
    expect(verdict.summary).toMatch(new RegExp(`^DENY: this ${transition} would destroy 1 protected resource`));
    expect(verdict.summary).toContain('kubernetes_persistent_volume_claim');
  });

  it('names both sides of a type-rename and tells which way to fix it', () => {
    const up = planGuardVerdict(classified('show/rename-old-to-new.json'), { transition: 'start' });
    const denied = up.reasons.find((r) => r.severity === 'deny')!;
    expect(denied).toMatchObject({ address: 'kubernetes_persistent_volume_claim.home', kind: 'type-rename' });
    expect(denied.message).toContain('kubernetes_persistent_volume_claim_v1.home');
    expect(denied.message).toContain('removed { from = kubernetes_persistent_volume_claim.home lifecycle { destroy = false } }');

    const down = planGuardVerdict(classified('show/rename-new-to-old.json'), { transition: 'stop' });
    expect(down.reasons.find((r) => r.severity === 'deny')!.message).toContain('pin template_version_id');
  });

  it('a plain delete of a protected resource in a start or stop is denied', () => {
    const changes = classifyChanges([planned('kubernetes_persistent_volume_claim_v1.home', 'kubernetes_persistent_volume_claim_v1', 'home', ['delete'])]);
    for (const transition of ['start', 'stop'] as const) {
      expect(planGuardVerdict(changes, { transition }).verdict).toBe('deny');
    }
  });

  it('a forget of a protected resource is the guard block working, and is allowed', () => {
    const verdict = planGuardVerdict(classified('show/forget-guard.json'), { transition: 'start' });
    expect(verdict.verdict).toBe('allow');
    expect(verdict.reasons).toEqual([
      expect.objectContaining({ address: 'kubernetes_persistent_volume_claim.home', kind: 'forget', severity: 'info' }),
    ]);
    expect(verdict.summary).toBe('ALLOW: this start destroys no protected resource (1 read, 2 create, 1 forget).');
  });
});

describe('a workspace delete', () => {
  it('may delete protected resources', () => {
    const changes = classifyChanges([
      planned('kubernetes_persistent_volume_claim_v1.home', 'kubernetes_persistent_volume_claim_v1', 'home', ['delete']),
      planned('kubernetes_deployment_v1.main[0]', 'kubernetes_deployment_v1', 'main', ['delete'], { index: 0 }),
    ]);
    const verdict = planGuardVerdict(changes, { transition: 'delete' });
    expect(verdict.verdict).toBe('allow');
    expect(verdict.reasons.map((r) => r.severity)).toEqual(['info', 'info']);
  });

  it('still asks about a replacement or a type-rename, which a destroy plan never contains', () => {
    expect(planGuardVerdict(classified('show/replace-pvc.json'), { transition: 'delete' }).verdict).toBe('needs-approval');
    expect(planGuardVerdict(classified('show/rename-old-to-new.json'), { transition: 'delete' }).verdict).toBe('needs-approval');
  });
});

describe('unprotected resources', () => {
  it('a type-rename needs approval (signature of a state and template version that disagree)', () => {
    const changes = classifyChanges([
      planned('kubernetes_deployment.main[0]', 'kubernetes_deployment', 'main', ['delete'], { index: 0 }),
      planned('kubernetes_deployment_v1.main[0]', 'kubernetes_deployment_v1', 'main', ['create'], { index: 0 }),
    ]);
    const verdict = planGuardVerdict(changes, { transition: 'start' });
    expect(verdict.verdict).toBe('needs-approval');
    expect(verdict.reasons[0].message).toContain('kubernetes_deployment.main[0] -> kubernetes_deployment_v1.main[0]');
    expect(verdict.summary).toMatch(/^NEEDS APPROVAL: this start destroys and re-creates 1 unprotected resource\(s\): kubernetes_deployment\.main\[0\]\./);
  });

  it('a replace needs approval, in either order', () => {
    expect(severities(classified('show/replace-deployment-cbd.json'), { transition: 'start' })).toEqual([
      ['kubernetes_deployment_v1.main[0]', 'approval'],
    ]);
  });

  it('a plain delete of an unprotected resource is information', () => {
    const verdict = planGuardVerdict(classified('show/rename-new-to-old.json'), { transition: 'stop', protectPersistentKinds: false });
    // With kind protection off, the PVC rename only needs approval and the deployment delete is info.
    expect(verdict.reasons.map((r) => [r.address, r.severity])).toEqual([
      ['kubernetes_deployment_v1.main[0]', 'info'],
      ['kubernetes_persistent_volume_claim_v1.home', 'approval'],
    ]);
    expect(verdict.reasons[0].message).toContain('the template has no block for it');
    expect(planGuardVerdict(classified('show/removed-delete.json'), { transition: 'start' }).verdict).toBe('allow');
  });

  it('says why an unprotected instance goes, by Terraform reason and transition', () => {
    const gated = classifyChanges([
      planned('kubernetes_deployment.main[0]', 'kubernetes_deployment', 'main', ['delete'], { index: 0, reason: 'delete_because_count_index' }),
    ]);
    const stop = planGuardVerdict(gated, { transition: 'stop' });
    expect(stop.verdict).toBe('allow');
    expect(stop.reasons[0]).toMatchObject({ severity: 'info', message: expect.stringContaining('normal in a stop, where counts follow start_count') });
    expect(planGuardVerdict(gated, { transition: 'start' }).reasons[0].message).toContain('no longer includes this instance');
    expect(planGuardVerdict(gated, { transition: 'delete' }).reasons[0].message).toContain('destroyed by the workspace delete');
  });

  it('creates, updates, reads and no-ops say nothing', () => {
    expect(planGuardVerdict(classified('show/data-read.json'), { transition: 'start' })).toEqual({
      verdict: 'allow',
      reasons: [],
      summary: 'ALLOW: this start destroys no protected resource (2 read).',
    });
    expect(planGuardVerdict([], { transition: 'stop' }).summary).toBe('ALLOW: this stop destroys no protected resource (no changes).');
  });
});

describe('protected addresses', () => {
  const deleteSecret = classifyChanges([
    planned('module.ws[1].kubernetes_secret_v1.creds["a"]', 'kubernetes_secret_v1', 'creds', ['delete'], { module: 'module.ws[1]', index: 'a' }),
  ]);

  it.each([
    'module.ws.kubernetes_secret_v1.creds',
    'module.ws.kubernetes_secret.creds',
    'module.ws[0].kubernetes_secret.creds["other"]',
  ])('%s protects module.ws[1].kubernetes_secret_v1.creds["a"] (keys ignored, either twin)', (protectedAddress) => {
    expect(planGuardVerdict(deleteSecret, { transition: 'start', protectedAddresses: [protectedAddress] }).verdict).toBe('deny');
  });

  it.each(['kubernetes_secret_v1.creds', 'module.other.kubernetes_secret_v1.creds', 'module.ws.kubernetes_secret_v1.other', 'module.ws.data.kubernetes_secret_v1.creds'])(
    '%s does not protect it',
    (protectedAddress) => {
      expect(planGuardVerdict(deleteSecret, { transition: 'start', protectedAddresses: [protectedAddress] }).verdict).toBe('allow');
    },
  );

  it('protectPersistentKinds: false leaves PVCs to the explicit list', () => {
    const changes = classified('show/replace-pvc.json');
    expect(planGuardVerdict(changes, { transition: 'start', protectPersistentKinds: false }).verdict).toBe('needs-approval');
    expect(
      planGuardVerdict(changes, {
        transition: 'start',
        protectPersistentKinds: false,
        protectedAddresses: ['kubernetes_persistent_volume_claim.home'],
      }).verdict,
    ).toBe('deny');
  });

  it('never treats a data source as protected, even by kind', () => {
    const changes = classifyChanges([
      { ...planned('data.kubernetes_persistent_volume_claim.home', 'kubernetes_persistent_volume_claim', 'home', ['delete']), mode: 'data' },
    ]);
    expect(planGuardVerdict(changes, { transition: 'start' }).verdict).toBe('allow');
  });

  it('refuses a protected address it cannot read, naming it', () => {
    expect(() => planGuardVerdict([], { transition: 'start', protectedAddresses: ['home'] })).toThrow('"home"');
  });

  it('lists at most three addresses in the summary', () => {
    const many = classifyChanges(
      [0, 1, 2, 3, 4].map((i) => planned(`kubernetes_persistent_volume_v1.pv${i}`, 'kubernetes_persistent_volume_v1', `pv${i}`, ['delete'])),
    );
    expect(planGuardVerdict(many, { transition: 'stop' }).summary).toContain(
      'kubernetes_persistent_volume_v1.pv0, kubernetes_persistent_volume_v1.pv1, kubernetes_persistent_volume_v1.pv2 and 2 more',
    );
  });
});
