import { classifyChanges, type ClassifiedChange } from '../../../src/domain/plan/classify';
import { plannedChangesFromText } from '../../../src/domain/plan/plan-json';
import type { PlannedChange } from '../../../src/domain/plan/planned-change';
import { readFixture } from './fixtures';

const classified = (relative: string) => classifyChanges(plannedChangesFromText(readFixture(relative), relative));
const kinds = (changes: ClassifiedChange[]) => changes.map((c) => [c.address, c.kind, c.twinAddress]);

describe('classifyChanges on the observed plan shapes', () => {
  it('a move is a no-op that remembers where it came from', () => {
    expect(classified('show/moved-noop.json')).toEqual([
      expect.objectContaining({ kind: 'no-op', address: 'kubernetes_secret_v1.b', previousAddress: 'kubernetes_secret_v1.a' }),
    ]);
  });

  it('a removed resource block is a plain delete', () => {
    expect(classified('show/removed-delete.json')[0]).toMatchObject({
      kind: 'delete',
      configAddress: 'kubernetes_config_map.gone',
      reason: 'delete_because_no_resource_config',
    });
  });

  it('both replace orders are replaces, with the paths that forced them', () => {
    expect(classified('show/replace-pvc.json')[0]).toMatchObject({ kind: 'replace', replacePaths: [['spec', 0, 'storage_class_name']] });
    expect(classified('show/replace-deployment-cbd.json')[0]).toMatchObject({ kind: 'replace', configAddress: 'kubernetes_deployment_v1.main' });
  });

  it('a removed{destroy=false} guard shows as a forget beside a create of the twin, not a rename', () => {
    expect(kinds(classified('show/forget-guard.json'))).toEqual([
      ['coder_agent.main', 'no-op', undefined],
      ['data.coder_workspace.me', 'read', undefined],
      ['kubernetes_deployment_v1.main[0]', 'create', undefined],
      ['kubernetes_persistent_volume_claim.home', 'forget', undefined],
      ['kubernetes_persistent_volume_claim_v1.home', 'create', undefined],
    ]);
  });

  it('pairs delete T.name with create twin(T).name into a type-rename (unmigrated state, migrated template)', () => {
    const changes = classified('show/rename-old-to-new.json');
    expect(kinds(changes)).toEqual([
      ['coder_agent.main', 'update', undefined],
      ['kubernetes_deployment.main[0]', 'type-rename', 'kubernetes_deployment_v1.main[0]'],
      ['kubernetes_persistent_volume_claim.home', 'type-rename', 'kubernetes_persistent_volume_claim_v1.home'],
    ]);
    expect(changes.filter((c) => c.kind === 'type-rename').map((c) => c.renameDirection)).toEqual(['to-versioned', 'to-versioned']);
  });

  it('pairs the other direction too (migrated state, old template): a stray downgrade', () => {
    const changes = classified('show/rename-new-to-old.json');
    expect(kinds(changes)).toEqual([
      ['coder_agent.main', 'no-op', undefined],
      ['kubernetes_deployment_v1.main[0]', 'delete', undefined],
      ['kubernetes_persistent_volume_claim_v1.home', 'type-rename', 'kubernetes_persistent_volume_claim.home'],
    ]);
    expect(changes[2]).toMatchObject({ renameDirection: 'to-deprecated', configAddress: 'kubernetes_persistent_volume_claim_v1.home' });
  });

  it('pairs only within the same module instance, and gives config addresses without keys', () => {
    const changes = classified('show/module-prefixed.json');
    expect(kinds(changes)).toEqual([
      ['module.ws[0].kubernetes_persistent_volume_claim.home', 'type-rename', 'module.ws[0].kubernetes_persistent_volume_claim_v1.home'],
      ['module.ws["b"].kubernetes_secret.env', 'delete', undefined],
      ['module.other.kubernetes_secret_v1.env', 'create', undefined],
    ]);
    expect(changes[0].configAddress).toBe('module.ws.kubernetes_persistent_volume_claim.home');
  });

  it('pairs only the same instance key, telling 1 from "1"', () => {
    expect(kinds(classified('show/count-foreach-indexes.json'))).toEqual([
      ['kubernetes_secret.s["a"]', 'type-rename', 'kubernetes_secret_v1.s["a"]'],
      ['kubernetes_secret.s["b"]', 'delete', undefined],
      ['kubernetes_secret_v1.s["c"]', 'create', undefined],
      ['kubernetes_pod.p[0]', 'type-rename', 'kubernetes_pod_v1.p[0]'],
      ['kubernetes_pod.p[1]', 'delete', undefined],
      ['kubernetes_pod_v1.p["1"]', 'create', undefined],
    ]);
  });

  it('data sources are reads', () => {
    expect(classified('show/data-read.json').map((c) => [c.configAddress, c.kind, c.mode])).toEqual([
      ['data.coder_workspace.me', 'read', 'data'],
      ['data.kubernetes_secret_v1.creds', 'read', 'data'],
      ['coder_agent.main', 'no-op', 'managed'],
    ]);
  });

  it('a deposed object is deleted on its own and never paired', () => {
    expect(classified('show/deposed-delete.json')).toEqual([
      expect.objectContaining({ kind: 'delete', deposed: '00a1b2c3' }),
      expect.objectContaining({ kind: 'no-op' }),
    ]);
  });

  it('reads the streamed format the same way', () => {
    expect(kinds(classified('stream/rename-mixed.plan.jsonl'))).toEqual([
      ['kubernetes_persistent_volume_claim.home', 'type-rename', 'kubernetes_persistent_volume_claim_v1.home'],
      ['module.ws[0].kubernetes_deployment.main[0]', 'type-rename', 'module.ws[0].kubernetes_deployment_v1.main[0]'],
      ['kubernetes_secret_v1.b', 'no-op', undefined],
      ['kubernetes_config_map_v1.keep', 'forget', undefined],
      ['data.kubernetes_secret_v1.creds', 'read', undefined],
      ['kubernetes_service_v1.svc', 'replace', undefined],
    ]);
  });
});

describe('classifyChanges edge cases', () => {
  const c = (address: string, type: string, name: string, actions: PlannedChange['actions'], more: Partial<PlannedChange> = {}): PlannedChange => ({
    address,
    mode: 'managed',
    type,
    name,
    actions,
    ...more,
  });

  it('does not pair types that are not twins, nor NEVER_TOUCH look-alikes', () => {
    const changes = classifyChanges([
      c('kubernetes_config_map.x', 'kubernetes_config_map', 'x', ['delete']),
      c('kubernetes_config_map_v1_data.x', 'kubernetes_config_map_v1_data', 'x', ['create']),
      c('kubernetes_service.y', 'kubernetes_service', 'y', ['delete']),
      c('kubernetes_service_account_v1.y', 'kubernetes_service_account_v1', 'y', ['create']),
    ]);
    expect(changes.map((x) => x.kind)).toEqual(['delete', 'create', 'delete', 'create']);
  });

  it('pairs the irregular daemonset twin', () => {
    const changes = classifyChanges([
      c('kubernetes_daemon_set_v1.d', 'kubernetes_daemon_set_v1', 'd', ['create']),
      c('kubernetes_daemonset.d', 'kubernetes_daemonset', 'd', ['delete']),
    ]);
    expect(changes).toEqual([expect.objectContaining({ kind: 'type-rename', address: 'kubernetes_daemonset.d', twinAddress: 'kubernetes_daemon_set_v1.d' })]);
  });

  it('pairs data-source twins as well, and uses each create once', () => {
    const changes = classifyChanges([
      { ...c('data.kubernetes_secret.s', 'kubernetes_secret', 's', ['delete']), mode: 'data' },
      { ...c('data.kubernetes_secret_v1.s', 'kubernetes_secret_v1', 's', ['create']), mode: 'data' },
      c('kubernetes_secret.s', 'kubernetes_secret', 's', ['delete']),
    ]);
    expect(changes.map((x) => [x.kind, x.configAddress])).toEqual([
      ['type-rename', 'data.kubernetes_secret.s'],
      ['delete', 'kubernetes_secret.s'],
    ]);
  });

  it('a replace never pairs, and create-then-forget counts as a forget', () => {
    const changes = classifyChanges([
      c('kubernetes_pod.p', 'kubernetes_pod', 'p', ['delete', 'create']),
      c('kubernetes_pod_v1.p', 'kubernetes_pod_v1', 'p', ['create']),
      c('kubernetes_pod_v1.q', 'kubernetes_pod_v1', 'q', ['create', 'forget']),
    ]);
    expect(changes.map((x) => x.kind)).toEqual(['replace', 'create', 'forget']);
  });

  it('never pairs a deposed object with a twin create', () => {
    const changes = classifyChanges([
      c('kubernetes_pod.p', 'kubernetes_pod', 'p', ['delete'], { deposed: '0badcafe' }),
      c('kubernetes_pod_v1.p', 'kubernetes_pod_v1', 'p', ['create']),
    ]);
    expect(changes.map((x) => x.kind)).toEqual(['delete', 'create']);
  });

  it('does not change its input', () => {
    const input = [c('kubernetes_pod.p', 'kubernetes_pod', 'p', ['delete']), c('kubernetes_pod_v1.p', 'kubernetes_pod_v1', 'p', ['create'])];
    const copy = structuredClone(input);
    classifyChanges(input);
    expect(input).toEqual(copy);
  });
});

describe('classifyChanges, exact results', () => {
  it('gives a key-free config address even for a module path it cannot read, and keeps what was assumed', () => {
    expect(
      classifyChanges([
        { address: 'x', module: 'module.a["k"].module.b[0', mode: 'data', type: 't', name: 'n', actions: ['read'], assumed: 'guess' },
        { address: 'y', module: 'module.a[1].module.b[', mode: 'managed', type: 't', name: 'n', actions: ['delete'] },
      ]),
    ).toEqual([
      { kind: 'read', address: 'x', type: 't', mode: 'data', configAddress: 'module.a.module.b[0.data.t.n', assumed: 'guess' },
      { kind: 'delete', address: 'y', type: 't', mode: 'managed', configAddress: 'module.a.module.b[.t.n' },
    ]);
  });

  it('pairs a delete only with a create of the twin: a delete beside a kept twin stays a delete', () => {
    expect(
      classifyChanges([
        { address: 'kubernetes_secret.s', mode: 'managed', type: 'kubernetes_secret', name: 's', actions: ['delete'] },
        { address: 'kubernetes_secret_v1.s', mode: 'managed', type: 'kubernetes_secret_v1', name: 's', actions: ['no-op'] },
      ]).map((c) => [c.address, c.kind]),
    ).toEqual([
      ['kubernetes_secret.s', 'delete'],
      ['kubernetes_secret_v1.s', 'no-op'],
    ]);
  });
});
