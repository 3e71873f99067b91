import { lookupDeprecated, lookupReplacement, type ResourceMode } from '../type-map';
import { AddressError, formatConfigAddress, parseModulePath } from './address';
import type { PlannedChange } from './planned-change';

export type ChangeKind = 'create' | 'update' | 'delete' | 'replace' | 'forget' | 'no-op' | 'read' | 'type-rename';

export interface ClassifiedChange {
  kind: ChangeKind;
  /** The instance address; for a type-rename, the side that is destroyed. */
  address: string;
  type: string;
  mode: ResourceMode;
  /** `module.m.T.name` without instance keys: what protection lists and `removed.from` name. */
  configAddress: string;
  /** For a type-rename: the instance created under the twin type. */
  twinAddress?: string;
  /**
   * For a type-rename: `to-versioned` (deprecated destroyed, `_v1` created: an unmigrated state under
   * a migrated template) or `to-deprecated` (a migrated state under an old template version).
   */
  renameDirection?: 'to-versioned' | 'to-deprecated';
  reason?: string;
  previousAddress?: string;
  replacePaths?: unknown[];
  deposed?: string;
  assumed?: string;
}

function baseKind(actions: readonly PlannedChange['actions'][number][]): Exclude<ChangeKind, 'type-rename'> {
  const has = (a: PlannedChange['actions'][number]) => actions.includes(a);
  if (has('delete') && has('create')) return 'replace';
  if (has('delete')) return 'delete';
  // `["create","forget"]`: the old object is only forgotten, never destroyed, so it counts as a forget.
  if (has('forget')) return 'forget';
  if (has('create')) return 'create';
  if (has('update')) return 'update';
  if (has('read')) return 'read';
  return 'no-op';
}

function configAddressOf(change: PlannedChange): string {
  let modules;
  try {
    modules = parseModulePath(change.module);
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    // A module path we cannot parse still gets a best-effort key-free form rather than failing the guard.
    return `${(change.module ?? '').replace(/\[[^\]]*\]/g, '')}.${change.mode === 'data' ? 'data.' : ''}${change.type}.${change.name}`;
  }
  return formatConfigAddress({ modules, mode: change.mode, type: change.type, name: change.name });
}

function twinType(mode: ResourceMode, type: string): string | undefined {
  return lookupDeprecated(mode, type)?.replacement ?? lookupReplacement(mode, type)?.deprecated;
}

function instanceKey(module: string | undefined, mode: ResourceMode, type: string, name: string, index: unknown): string {
  return JSON.stringify([module ?? '', mode, type, name, index ?? null]);
}

const isPlainDelete = (c: PlannedChange) => baseKind(c.actions) === 'delete' && c.deposed === undefined;
const isPlainCreate = (c: PlannedChange) => baseKind(c.actions) === 'create' && c.deposed === undefined;

function classifyOne(change: PlannedChange): ClassifiedChange {
  return {
    kind: baseKind(change.actions),
    address: change.address,
    type: change.type,
    mode: change.mode,
    configAddress: configAddressOf(change),
    ...(change.reason ? { reason: change.reason } : {}),
    ...(change.previousAddress ? { previousAddress: change.previousAddress } : {}),
    ...(change.replacePaths ? { replacePaths: change.replacePaths } : {}),
    ...(change.deposed ? { deposed: change.deposed } : {}),
    ...(change.assumed ? { assumed: change.assumed } : {}),
  };
}

/**
 * Names what each planned change does. A changed resource type never shows up in a plan as a
 * replacement: Terraform plans a delete of `T.name` and an unrelated create of `T_v1.name`, so a
 * replace detector misses it. Pairing a delete with a create of the twin type (same module, name
 * and instance key) recovers it as one `type-rename`, listed where the delete was.
 */
export function classifyChanges(changes: readonly PlannedChange[]): ClassifiedChange[] {
  const creates = new Map<string, number[]>();
  changes.forEach((c, i) => {
    if (!isPlainCreate(c)) return;
    const key = instanceKey(c.module, c.mode, c.type, c.name, c.index);
    creates.set(key, [...(creates.get(key) ?? []), i]);
  });

  const pairedCreate = new Map<number, number>();
  const used = new Set<number>();
  changes.forEach((c, i) => {
    if (!isPlainDelete(c)) return;
    // twinType answers only from the type map, so a twin it names is always one (areTwins).
    const twin = twinType(c.mode, c.type);
    if (twin === undefined) return;
    const candidates = creates.get(instanceKey(c.module, c.mode, twin, c.name, c.index)) ?? [];
    const match = candidates.find((j) => !used.has(j));
    if (match === undefined) return;
    used.add(match);
    pairedCreate.set(i, match);
  });

  const out: ClassifiedChange[] = [];
  changes.forEach((c, i) => {
    if (used.has(i)) return;
    const match = pairedCreate.get(i);
    if (match === undefined) {
      out.push(classifyOne(c));
      return;
    }
    out.push({
      ...classifyOne(c),
      kind: 'type-rename',
      twinAddress: changes[match].address,
      renameDirection: lookupDeprecated(c.mode, c.type) ? 'to-versioned' : 'to-deprecated',
    });
  });
  return out;
}
