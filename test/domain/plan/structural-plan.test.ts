import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTemplateFiles } from '../../../src/adapters/hcl-parse';
import { classifyChanges } from '../../../src/domain/plan/classify';
import { planGuardVerdict, type Transition } from '../../../src/domain/plan/guard';
import type { PlannedChange } from '../../../src/domain/plan/planned-change';
import { stateResourceViews, StateInputError, type StateResourceView } from '../../../src/domain/plan/state-view';
import { planStructurally } from '../../../src/domain/plan/structural-plan';
import { buildTemplateModel, type TemplateModel } from '../../../src/domain/template-model';
import { fixturePath, readFixture } from './fixtures';

async function template(name: string): Promise<TemplateModel> {
  const dir = fixturePath(join('templates', name));
  const files = readdirSync(dir).filter((f) => f.endsWith('.tf'));
  return buildTemplateModel(await parseTemplateFiles(files.map((f) => ({ path: f, content: readFileSync(join(dir, f), 'utf8') }))));
}

function state(name: string): StateResourceView[] {
  const relative = `states/${name}.tfstate`;
  return stateResourceViews(JSON.parse(readFixture(relative)), relative);
}

const shape = (changes: PlannedChange[]) => changes.map((c) => `${c.actions.join('+')} ${c.address}`);

async function scenario(templateName: string, stateName: string, transition: Transition) {
  const planned = planStructurally(await template(templateName), state(stateName), transition);
  const classified = classifyChanges(planned);
  return { planned, classified, verdict: planGuardVerdict(classified, { transition }) };
}

describe('the migration scenarios on a Coder kubernetes template', () => {
  it('unmigrated state + migrated template without guard, on start: the PVC is type-renamed, denied', async () => {
    const { planned, classified, verdict } = await scenario('k8s-new-unguarded', 'old-stopped', 'start');
    expect(shape(planned)).toEqual([
      'no-op coder_agent.main',
      'read data.coder_workspace.me',
      'read data.coder_workspace_owner.me',
      'create kubernetes_deployment_v1.main[0]',
      'delete kubernetes_persistent_volume_claim.home',
      'create kubernetes_persistent_volume_claim_v1.home',
    ]);
    expect(classified.find((c) => c.kind === 'type-rename')).toMatchObject({
      address: 'kubernetes_persistent_volume_claim.home',
      twinAddress: 'kubernetes_persistent_volume_claim_v1.home',
      reason: 'delete_because_no_resource_config',
    });
    expect(verdict.verdict).toBe('deny');
  });

  it('the same with the removed guard: forget + create, allowed', async () => {
    const { planned, verdict } = await scenario('k8s-new', 'old-stopped', 'start');
    expect(shape(planned)).toContain('forget kubernetes_persistent_volume_claim.home');
    expect(shape(planned)).toContain('create kubernetes_persistent_volume_claim_v1.home');
    expect(planned.some((c) => c.actions.includes('delete'))).toBe(false);
    expect(verdict.verdict).toBe('allow');
  });

  it('a running unmigrated workspace also type-renames its deployment', async () => {
    const { classified, verdict } = await scenario('k8s-new', 'old-running', 'start');
    expect(classified.filter((c) => c.kind === 'type-rename').map((c) => c.address)).toEqual(['kubernetes_deployment.main[0]']);
    expect(verdict.verdict).toBe('needs-approval');
  });

  it('migrated state + migrated template on start: only no-op, read and create', async () => {
    const { planned, verdict } = await scenario('k8s-new', 'migrated-stopped', 'start');
    expect(new Set(planned.flatMap((c) => c.actions))).toEqual(new Set(['no-op', 'read', 'create']));
    expect(shape(planned)).toContain('no-op kubernetes_persistent_volume_claim_v1.home');
    expect(shape(planned)).toContain('create kubernetes_deployment_v1.main[0]');
    expect(verdict.verdict).toBe('allow');
  });

  it('migrated state + old template on stop ("Update and Restart" stops on the previous version): denied', async () => {
    const { planned, classified, verdict } = await scenario('k8s-old', 'migrated-running', 'stop');
    expect(shape(planned)).toEqual([
      'no-op coder_agent.main',
      'read data.coder_workspace.me',
      'read data.coder_workspace_owner.me',
      'delete kubernetes_deployment_v1.main[0]',
      'create kubernetes_persistent_volume_claim.home',
      'delete kubernetes_persistent_volume_claim_v1.home',
    ]);
    expect(classified.find((c) => c.kind === 'type-rename')).toMatchObject({ renameDirection: 'to-deprecated' });
    expect(verdict.verdict).toBe('deny');
  });

  it('unmigrated state + old template: a stop deletes the deployment only, a start re-creates it', async () => {
    const stop = await scenario('k8s-old', 'old-running', 'stop');
    expect(shape(stop.planned).filter((s) => !s.startsWith('no-op') && !s.startsWith('read'))).toEqual(['delete kubernetes_deployment.main[0]']);
    expect(stop.planned.find((c) => c.actions.includes('delete'))?.reason).toBe('delete_because_count_index');
    expect(stop.verdict.verdict).toBe('allow');
    const start = await scenario('k8s-old', 'old-stopped', 'start');
    expect(shape(start.planned).filter((s) => s.startsWith('create'))).toEqual(['create kubernetes_deployment.main[0]']);
  });

  it('a workspace delete destroys every managed object and is allowed', async () => {
    const { planned, verdict } = await scenario('k8s-new', 'migrated-running', 'delete');
    expect(shape(planned)).toEqual([
      'delete coder_agent.main',
      'delete kubernetes_deployment_v1.main[0]',
      'delete kubernetes_persistent_volume_claim_v1.home',
    ]);
    expect(verdict.verdict).toBe('allow');
  });
});

describe('planStructurally rules', () => {
  const model = (resources: TemplateModel['resources'], more: Partial<TemplateModel> = {}): TemplateModel => ({
    resources,
    removed: [],
    moved: [],
    modules: [],
    protectedAddresses: [],
    ...more,
  });
  const managed = (type: string, name: string, more: object = {}) => ({ mode: 'managed' as const, type, name, file: 'main.tf', ...more });
  const inState = (type: string, name: string, keys: (number | string | undefined)[], more: Partial<StateResourceView> = {}): StateResourceView => ({
    mode: 'managed',
    type,
    name,
    instances: keys.map((k) => (k === undefined ? {} : { index_key: k })),
    ...more,
  });

  it('for_each with literal keys creates, keeps and deletes by key', () => {
    const planned = planStructurally(
      model([managed('kubernetes_secret', 's', { forEach: { keys: ['a', 'c'] } })]),
      [inState('kubernetes_secret', 's', ['a', 'b'])],
      'start',
    );
    expect(planned.map((c) => [c.address, c.actions[0], c.reason])).toEqual([
      ['kubernetes_secret.s["a"]', 'no-op', undefined],
      ['kubernetes_secret.s["b"]', 'delete', 'delete_because_each_key'],
      ['kubernetes_secret.s["c"]', 'create', undefined],
    ]);
  });

  it('unknown for_each or count keeps the keys found in state, flagged as assumed', () => {
    const planned = planStructurally(
      model([managed('kubernetes_secret', 's', { forEach: 'unknown' }), managed('kubernetes_pod', 'p', { count: 'unknown' })]),
      [inState('kubernetes_secret', 's', ['a', 'b']), inState('kubernetes_pod', 'p', [0, 1])],
      'stop',
    );
    expect(planned.map((c) => c.actions[0])).toEqual(['no-op', 'no-op', 'no-op', 'no-op']);
    expect(planned.every((c) => c.assumed !== undefined)).toBe(true);
  });

  it('literal count shrinks with delete_because_count_index; adding count moves T.n to T.n[0]', () => {
    const shrink = planStructurally(model([managed('kubernetes_pod', 'p', { count: 1 })]), [inState('kubernetes_pod', 'p', [0, 1])], 'start');
    expect(shrink.map((c) => [c.address, c.actions[0], c.reason])).toEqual([
      ['kubernetes_pod.p[0]', 'no-op', undefined],
      ['kubernetes_pod.p[1]', 'delete', 'delete_because_count_index'],
    ]);
    const added = planStructurally(model([managed('kubernetes_pod', 'p', { count: 1 })]), [inState('kubernetes_pod', 'p', [undefined])], 'start');
    expect(added).toEqual([expect.objectContaining({ address: 'kubernetes_pod.p[0]', actions: ['no-op'], previousAddress: 'kubernetes_pod.p' })]);
    const removed = planStructurally(model([managed('kubernetes_pod', 'p')]), [inState('kubernetes_pod', 'p', [0])], 'start');
    expect(removed).toEqual([expect.objectContaining({ address: 'kubernetes_pod.p', actions: ['no-op'], previousAddress: 'kubernetes_pod.p[0]' })]);
  });

  it('a removed block with destroy = true deletes; a module removed with destroy = false forgets everything in it', () => {
    const planned = planStructurally(
      model([], {
        removed: [
          { from: 'kubernetes_secret.a', destroy: true, file: 'main.tf' },
          { from: 'module.old', destroy: false, file: 'main.tf' },
        ],
      }),
      [inState('kubernetes_secret', 'a', [undefined]), inState('kubernetes_persistent_volume_claim', 'home', [0], { module: 'module.old[0]' })],
      'start',
    );
    expect(planned.map((c) => [c.address, c.actions[0]])).toEqual([
      ['kubernetes_secret.a', 'delete'],
      ['module.old[0].kubernetes_persistent_volume_claim.home[0]', 'forget'],
    ]);
  });

  it('resources of a declared module are assumed unchanged; of an undeclared one, deleted', () => {
    const planned = planStructurally(
      model([], { modules: ['db'] }),
      [inState('kubernetes_secret', 's', [undefined], { module: 'module.db' }), inState('kubernetes_secret', 's', [undefined], { module: 'module.gone' })],
      'start',
    );
    expect(planned.map((c) => [c.address, c.actions[0], c.reason ?? c.assumed])).toEqual([
      ['module.db.kubernetes_secret.s', 'no-op', 'module.db is not modelled; assumed unchanged'],
      ['module.gone.kubernetes_secret.s', 'delete', 'delete_because_no_module'],
    ]);
  });

  it('a same-type moved block is followed; a cross-type one is not (Terraform would refuse it)', () => {
    const moved = planStructurally(
      model([managed('kubernetes_secret', 'b')], { moved: [{ from: 'kubernetes_secret.a', to: 'kubernetes_secret.b', file: 'main.tf' }] }),
      [inState('kubernetes_secret', 'a', [undefined])],
      'start',
    );
    expect(moved).toEqual([expect.objectContaining({ address: 'kubernetes_secret.b', actions: ['no-op'], previousAddress: 'kubernetes_secret.a' })]);
    const crossType = planStructurally(
      model([managed('kubernetes_secret_v1', 'a')], { moved: [{ from: 'kubernetes_secret.a', to: 'kubernetes_secret_v1.a', file: 'main.tf' }] }),
      [inState('kubernetes_secret', 'a', [undefined])],
      'start',
    );
    expect(classifyChanges(crossType).map((c) => c.kind)).toEqual(['type-rename']);
  });

  it('deposed objects are deleted; orphaned data sources vanish silently', () => {
    const planned = planStructurally(
      model([managed('kubernetes_pod', 'p')]),
      [
        { mode: 'managed', type: 'kubernetes_pod', name: 'p', instances: [{}, { deposed: 'abcd1234' }] },
        { mode: 'data', type: 'kubernetes_secret', name: 'gone', instances: [{}] },
      ],
      'start',
    );
    expect(planned.map((c) => [c.address, c.actions[0], c.deposed])).toEqual([
      ['kubernetes_pod.p', 'no-op', undefined],
      ['kubernetes_pod.p', 'delete', 'abcd1234'],
    ]);
  });

  it('does not change its inputs', () => {
    const m = model([managed('kubernetes_pod', 'p', { count: { startCountOf: 'data.coder_workspace.me' } })]);
    const s = [inState('kubernetes_pod', 'p', [0])];
    const copies = structuredClone([m, s]);
    planStructurally(m, s, 'stop');
    expect([m, s]).toEqual(copies);
  });
});

describe('stateResourceViews', () => {
  it('refuses what is not a v4 state, naming the file and field but no value', () => {
    expect(() => stateResourceViews({ version: 3, resources: [] }, 'ws.tfstate')).toThrow(StateInputError);
    expect(() => stateResourceViews({ version: 3, resources: [] }, 'ws.tfstate')).toThrow(/^ws\.tfstate: not a Terraform v4 state: version/);
    expect(() =>
      stateResourceViews({ version: 4, resources: [{ mode: 'managed', type: 'x', name: 'y', instances: [{ index_key: { secret: 'hunter2' } }] }] }, 'ws.tfstate'),
    ).toThrow(/^(?!.*hunter2).*resources\[0\]\.instances\[0\]\.index_key/);
  });
});

describe('stateResourceViews, exact results', () => {
  it('names the whole document when it is no object, word for word', () => {
    let error: unknown;
    try {
      stateResourceViews(5, 'ws');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StateInputError);
    expect((error as Error).name).toBe('StateInputError');
    expect((error as Error).message).toBe("ws: not a Terraform v4 state: Invalid input: expected object, received number. Pass the file from 'coder state pull' or 'terraform state pull'.");
  });

  it('keeps a module, an instance key and a deposed key only where the state has them', () => {
    const views = stateResourceViews(
      { version: 4, resources: [{ module: 'module.m', mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 0, deposed: 'd' }, {}] }, { module: '', mode: 'data', type: 'd', name: 'n', instances: [] }] },
      'ws',
    );
    expect(views).toEqual([
      { module: 'module.m', mode: 'managed', type: 't', name: 'n', instances: [{ index_key: 0, deposed: 'd' }, {}] },
      { mode: 'data', type: 'd', name: 'n', instances: [] },
    ]);
    expect(views.map((v) => Object.keys(v))).toEqual([['module', 'mode', 'type', 'name', 'instances'], ['mode', 'type', 'name', 'instances']]);
    expect(Object.keys(views[0].instances[1])).toEqual([]);
  });
});
