import type { StateResourceView } from './state';
import { formatInstanceAddress } from './state/address';
import { isPersistentType, lookupDeprecated, lookupReplacement } from './type-map';

export interface StateMigrationSummary {
  /** Instances of deprecated types a rename can carry. */
  renameable: string[];
  /** Instances of deprecated types that need `terraform import` (DIFFERENT pairs). */
  needsImport: string[];
  /** True when nothing deprecated is left (only managed resources count; data sources are re-read on every plan). */
  migrated: boolean;
}

export function summarizeStateMigration(resources: readonly StateResourceView[]): StateMigrationSummary {
  const renameable: string[] = [];
  const needsImport: string[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed') continue;
    const mapping = lookupDeprecated('managed', r.type);
    if (!mapping) continue;
    for (const inst of r.instances) {
      const address = formatInstanceAddress(r, inst.index_key);
      (mapping.compat === 'SAME' ? renameable : needsImport).push(address);
    }
  }
  return { renameable, needsImport, migrated: renameable.length === 0 && needsImport.length === 0 };
}

/** A persistent object as the state knows it: its Kubernetes id and uid. A changed uid is a lost volume. */
export interface PersistentIdentity {
  /** Address with the type written as its versioned name, so old and migrated states compare. */
  key: string;
  address: string;
  id?: string;
  uid?: string;
}

function versionedType(type: string): string {
  return lookupDeprecated('managed', type)?.replacement ?? type;
}

function uidOf(attributes: Record<string, unknown> | undefined): string | undefined {
  const metadata = attributes?.metadata;
  const first = Array.isArray(metadata) ? metadata[0] : metadata;
  const uid = first && typeof first === 'object' ? (first as Record<string, unknown>).uid : undefined;
  return typeof uid === 'string' ? uid : undefined;
}

export function persistentIdentities(resources: readonly StateResourceView[]): PersistentIdentity[] {
  const out: PersistentIdentity[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed' || !isPersistentType(r.type)) continue;
    for (const inst of r.instances) {
      if (inst.deposed) continue;
      const key = formatInstanceAddress({ ...r, type: versionedType(r.type) }, inst.index_key);
      const id = typeof inst.attributes?.id === 'string' ? inst.attributes.id : undefined;
      out.push({ key, address: formatInstanceAddress(r, inst.index_key), id, uid: uidOf(inst.attributes) });
    }
  }
  return out;
}

export interface PersistentLoss {
  address: string;
  problem: 'missing' | 'replaced';
  before: { id?: string; uid?: string };
  after?: { id?: string; uid?: string };
}

/**
 * Compares the persistent objects of the backed-up state with those after the build. Anything
 * missing or with another uid means the build destroyed a volume: the one failure users never forgive.
 */
export function findPersistentLosses(before: readonly StateResourceView[], after: readonly StateResourceView[]): PersistentLoss[] {
  const afterByKey = new Map(persistentIdentities(after).map((p) => [p.key, p]));
  const losses: PersistentLoss[] = [];
  for (const b of persistentIdentities(before)) {
    const a = afterByKey.get(b.key);
    if (!a) losses.push({ address: b.address, problem: 'missing', before: { id: b.id, uid: b.uid } });
    else if ((b.uid && a.uid !== b.uid) || (b.id && a.id !== b.id)) {
      losses.push({ address: b.address, problem: 'replaced', before: { id: b.id, uid: b.uid }, after: { id: a.id, uid: a.uid } });
    }
  }
  return losses;
}

/** Deprecated types still present after a migration, by address (the verification must find none). */
export function leftoverDeprecated(resources: readonly StateResourceView[]): string[] {
  const left: string[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed') continue;
    if (lookupDeprecated('managed', r.type) && !lookupReplacement('managed', r.type)) {
      for (const inst of r.instances) left.push(formatInstanceAddress(r, inst.index_key));
    }
  }
  return left;
}

/**
 * What a restore build's state lacks of the backup it carried: every persistent object of the
 * backup at the same address, its deprecated type included (a `_v1` entry under the prior version
 * is the runbook's hazard: that version's next build destroys it), with the same id and uid.
 */
export function restoreDifferences(backup: readonly StateResourceView[], restored: readonly StateResourceView[]): string[] {
  const after = new Map(persistentIdentities(restored).map((p) => [p.address, p]));
  const problems: string[] = [];
  for (const b of persistentIdentities(backup)) {
    const a = after.get(b.address);
    if (!a) problems.push(`${b.address} is missing`);
    else if (b.uid && a.uid !== b.uid) problems.push(`${b.address} has uid ${a.uid ?? '(none)'}, not ${b.uid}`);
    else if (b.id && a.id !== b.id) problems.push(`${b.address} has id ${a.id ?? '(none)'}, not ${b.id}`);
  }
  return problems;
}
