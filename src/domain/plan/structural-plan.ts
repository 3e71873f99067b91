import type { TemplateModel, TemplateResource } from '../template-model';
import { formatConfigAddress, formatInstanceAddress, formatKey, parseModulePath, parseResourceAddress, type InstanceKey } from './address';
import type { Transition } from './guard';
import type { PlannedChange } from './planned-change';
import type { StateResourceView } from './state-view';

/**
 * What Terraform would plan for a template and a state, from their structure alone: no provider,
 * no cluster. Attribute drift is invisible here, so an instance present in both is a `no-op`
 * even where a real plan might update or replace it; this answers "which instances are created,
 * deleted or forgotten", the question the guard needs answered before a real plan can run.
 */
export function planStructurally(model: TemplateModel, state: readonly StateResourceView[], transition: Transition): PlannedChange[] {
  const changes = transition === 'delete' ? destroyPlan(state) : applyPlan(model, state, transition === 'start' ? 1 : 0);
  return changes.sort((a, b) => compare(a.address, b.address) || compare(a.deposed ?? '', b.deposed ?? ''));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The instance a planned change is about: a change's own address fields. */
type Target = Pick<PlannedChange, 'module' | 'mode' | 'type' | 'name' | 'index' | 'deposed'>;

function change(target: Target, actions: PlannedChange['actions'], extra: Partial<PlannedChange> = {}): PlannedChange {
  const modules = parseModulePath(target.module);
  return {
    address: formatInstanceAddress({ modules, mode: target.mode, type: target.type, name: target.name, index: target.index }),
    ...(target.module ? { module: target.module } : {}),
    mode: target.mode,
    type: target.type,
    name: target.name,
    ...(target.index === undefined ? {} : { index: target.index }),
    ...(target.deposed ? { deposed: target.deposed } : {}),
    actions,
    ...extra,
  };
}

function configAddressOfState(r: StateResourceView): string {
  return formatConfigAddress({ modules: parseModulePath(r.module), mode: r.mode, type: r.type, name: r.name });
}

/** `terraform plan -destroy`, which a workspace delete runs: every managed object goes. */
function destroyPlan(state: readonly StateResourceView[]): PlannedChange[] {
  // Data sources own nothing, and plan JSON leaves their removal out.
  return state
    .filter((r) => r.mode === 'managed')
    .flatMap((r) => r.instances.map((i) => change({ ...r, index: i.index_key, deposed: i.deposed }, ['delete'])));
}

interface Expansion {
  keys: InstanceKey[];
  assumed?: string;
}

/** The instance keys a block has in this transition; `undefined` in `keys` is the key-less single instance. */
function expand(resource: TemplateResource, startCount: number, stateKeys: readonly (InstanceKey | undefined)[]): Expansion & { single: boolean } {
  const known = stateKeys.filter((k): k is InstanceKey => k !== undefined);
  if (resource.forEach !== undefined) {
    if (resource.forEach === 'unknown') {
      return { keys: known.filter((k) => typeof k === 'string'), assumed: 'for_each keys are not literal; kept the keys found in state', single: false };
    }
    return { keys: resource.forEach.keys, single: false };
  }
  if (resource.count !== undefined) {
    const count = resource.count;
    if (count === 'unknown') {
      return { keys: known.filter((k) => typeof k === 'number'), assumed: 'count is not literal; kept the indexes found in state', single: false };
    }
    const n = typeof count === 'number' ? count : startCount;
    return { keys: Array.from({ length: n }, (_, i) => i), single: false };
  }
  return { keys: [], single: true };
}

function deleteReason(resource: TemplateResource, key: InstanceKey | undefined): string {
  if (resource.count !== undefined && typeof key === 'number') return 'delete_because_count_index';
  if (resource.forEach !== undefined && typeof key === 'string') return 'delete_because_each_key';
  return 'delete_because_wrong_repetition';
}

/**
 * `moved` blocks between two root resources of the same type. Cross-type moves are left out on
 * purpose: the kubernetes provider cannot perform them (Terraform fails the plan), and ignoring
 * the block makes the guard see a delete, which errs on the safe side. Moves of modules or of
 * single instances are not modelled either, for the same reason.
 */
function sameTypeMoves(model: TemplateModel): Map<string, string> {
  const moves = new Map<string, string>();
  for (const m of model.moved) {
    try {
      const from = parseResourceAddress(m.from);
      const to = parseResourceAddress(m.to);
      const plain = (a: typeof from) => a.modules.length === 0 && a.index === undefined;
      if (plain(from) && plain(to) && from.type === to.type && from.mode === to.mode) {
        moves.set(formatConfigAddress(from), formatConfigAddress(to));
      }
    } catch {
      continue; // an address we cannot read is a move we do not model (see above)
    }
  }
  return moves;
}

/** The `removed` block that covers a config address: itself, or a module it lives in. */
function removedBlockFor(model: TemplateModel, configAddress: string) {
  return model.removed.find((r) => r.from === configAddress || configAddress.startsWith(`${r.from}.`));
}

function applyPlan(model: TemplateModel, state: readonly StateResourceView[], startCount: number): PlannedChange[] {
  const out: PlannedChange[] = [];
  const config = new Map(model.resources.map((r) => [formatConfigAddress({ modules: [], ...r }), r]));
  const moves = sameTypeMoves(model);
  const stateByConfig = new Map<string, StateResourceView>();
  for (const r of state) stateByConfig.set(configAddressOfState(r), r);

  // Which state resource each root config block takes its instances from (itself, or a moved-from one).
  const sourceOf = new Map<string, { resource: StateResourceView; previous?: string }>();
  for (const [address] of config) {
    const own = stateByConfig.get(address);
    if (own) sourceOf.set(address, { resource: own });
  }
  for (const [from, to] of moves) {
    const moving = stateByConfig.get(from);
    if (moving && config.has(to) && !config.has(from) && !sourceOf.has(to)) sourceOf.set(to, { resource: moving, previous: from });
  }
  const claimed = new Set([...sourceOf.values()].map((s) => s.resource));

  for (const [address, resource] of config) {
    const source = sourceOf.get(address);
    out.push(...planBlock(resource, source?.resource, source?.previous, startCount));
  }

  for (const r of state) {
    if (claimed.has(r) || r.mode === 'data') continue; // orphaned data sources are dropped silently
    out.push(...planUnconfigured(model, r));
  }
  return out;
}

function planBlock(resource: TemplateResource, stateResource: StateResourceView | undefined, previous: string | undefined, startCount: number): PlannedChange[] {
  const out: PlannedChange[] = [];
  const instances = stateResource?.instances ?? [];
  const current = instances.filter((i) => i.deposed === undefined);
  const expansion = expand(resource, startCount, current.map((i) => i.index_key));
  const wanted: (InstanceKey | undefined)[] = expansion.single ? [undefined] : expansion.keys;
  const target = (index: InstanceKey | undefined, deposed?: string): Target => ({
    mode: resource.mode,
    type: resource.type,
    name: resource.name,
    ...(index === undefined ? {} : { index }),
    ...(deposed ? { deposed } : {}),
  });
  const assumed = expansion.assumed ? { assumed: expansion.assumed } : {};
  const previousAt = (index: InstanceKey | undefined) =>
    previous === undefined ? {} : { previousAddress: `${previous}${formatKeySuffix(index)}` };

  if (resource.mode === 'data') {
    // Data sources are read on every plan and never destroyed.
    return wanted.map((k) => change(target(k), ['read'], assumed));
  }

  const stateKeys = new Set(current.map((i) => keyId(i.index_key)));
  const matched = new Set<string>();
  for (const key of wanted) {
    if (stateKeys.has(keyId(key))) {
      matched.add(keyId(key));
      out.push(change(target(key), ['no-op'], { ...previousAt(key), ...assumed }));
      continue;
    }
    // Terraform moves `T.n` to `T.n[0]` (and back) by itself when count is added or removed. The
    // implied key is never wanted itself: `wanted` is either the key-less instance alone or keys.
    const implied = key === 0 ? undefined : key === undefined ? 0 : null;
    if (implied !== null && stateKeys.has(keyId(implied))) {
      matched.add(keyId(implied));
      const from = `${previous ?? formatConfigAddress({ modules: [], ...resource })}${formatKeySuffix(implied)}`;
      out.push(change(target(key), ['no-op'], { previousAddress: from, ...assumed }));
      continue;
    }
    out.push(change(target(key), ['create'], assumed));
  }
  for (const i of current) {
    if (matched.has(keyId(i.index_key))) continue;
    out.push(change(target(i.index_key), ['delete'], { reason: deleteReason(resource, i.index_key), ...previousAt(i.index_key) }));
  }
  // A deposed object is what a create_before_destroy left behind; the next apply destroys it.
  for (const i of instances) if (i.deposed !== undefined) out.push(change(target(i.index_key, i.deposed), ['delete']));
  return out;
}

/** A state resource with no block in the root module's config. */
function planUnconfigured(model: TemplateModel, r: StateResourceView): PlannedChange[] {
  const address = configAddressOfState(r);
  const removed = removedBlockFor(model, address);
  const moduleName = parseModulePath(r.module)[0]?.name;
  return r.instances.map((i) => {
    const target: Target = { ...r, index: i.index_key, deposed: i.deposed };
    if (removed && !removed.destroy && i.deposed === undefined) {
      return change(target, ['forget'], { reason: 'delete_because_no_resource_config' });
    }
    if (!removed && moduleName !== undefined && model.modules.includes(moduleName)) {
      return change(target, ['no-op'], { assumed: `module.${moduleName} is not modelled; assumed unchanged` });
    }
    const reason = moduleName !== undefined && !model.modules.includes(moduleName) ? 'delete_because_no_module' : 'delete_because_no_resource_config';
    return change(target, ['delete'], i.deposed ? {} : { reason });
  });
}

function keyId(key: InstanceKey | undefined): string {
  return key === undefined ? '-' : JSON.stringify(key);
}

function formatKeySuffix(key: InstanceKey | undefined): string {
  return key === undefined ? '' : formatKey(key);
}
