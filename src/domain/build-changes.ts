import { AddressError, formatConfigAddress, parseResourceAddress, type ResourceAddress } from './plan/address';
import { protectionKeyOf } from './plan/guard';
import { areTwins, isPersistentType } from './type-map';

/**
 * What a build did to existing resources, read from its log (seed 003: Coder tracks resource
 * replacements in prebuilds the same way, because only the plan knows). A replacement is a delete
 * and a create of one address; a type-rename delete is a delete of one type paired with a create of
 * its deprecated/_v1 twin under the same name, which is how the migration hazard looks in a plan.
 */
export type BuildChangeKind = 'replace' | 'destroy' | 'type-rename-delete';

export interface BuildChange {
  kind: BuildChangeKind;
  /** Instance address as Terraform printed it, e.g. `kubernetes_persistent_volume_claim.home[0]`. */
  address: string;
  resourceType: string;
  /** On a type-rename delete: the twin created in its place. */
  twinAddress?: string;
  /** A volume, or a resource the template marks `# wsmigrate:protect`. */
  protected: boolean;
}

export interface BuildChangeReport {
  changes: BuildChange[];
  /** Addresses of protected resources this build destroyed or replaced: data is gone. */
  protectedDestroyed: string[];
}

const PLAN_LINE = /#\s+(\S+)\s+(must be replaced|will be destroyed|will be created|will be replaced)/;
const APPLY_LINE = /^\s*(\S+):\s+(Destroying|Creating)\.\.\./;

type Seen = { address: ResourceAddress; text: string; destroy: boolean; create: boolean; replace: boolean };

function managedAddress(text: string): ResourceAddress | undefined {
  try {
    const a = parseResourceAddress(text);
    return a.mode === 'managed' ? a : undefined;
  } catch (err) {
    if (err instanceof AddressError) return undefined;
    throw err;
  }
}

/** Reads the build's log lines (plan and apply output) into the changes it made to managed resources. */
export function detectBuildChanges(lines: readonly string[], protectedAddresses: readonly string[] = []): BuildChangeReport {
  const seen = new Map<string, Seen>();
  const note = (text: string, what: 'destroy' | 'create' | 'replace') => {
    const address = managedAddress(text);
    if (!address) return;
    const entry = seen.get(text) ?? { address, text, destroy: false, create: false, replace: false };
    entry[what] = true;
    seen.set(text, entry);
  };
  for (const line of lines) {
    const plan = PLAN_LINE.exec(line);
    if (plan) {
      note(plan[1], plan[2] === 'will be created' ? 'create' : plan[2] === 'will be destroyed' ? 'destroy' : 'replace');
      continue;
    }
    const apply = APPLY_LINE.exec(line);
    if (apply) note(apply[1], apply[2] === 'Creating' ? 'create' : 'destroy');
  }

  const protectedKeys = new Set(protectedAddresses.flatMap((a) => (managedAddress(a) ? [protectionKeyOf(a)] : [])));
  const isProtected = (a: ResourceAddress, text: string) => isPersistentType(a.type) || protectedKeys.has(protectionKeyOf(text));
  const entries = [...seen.values()];
  const createdTwin = (e: Seen) =>
    entries.find(
      (o) => o !== e && o.create && !o.destroy && o.address.name === e.address.name && formatConfigAddress({ ...o.address, type: e.address.type }) === formatConfigAddress(e.address) && areTwins('managed', e.address.type, o.address.type),
    );

  const changes: BuildChange[] = [];
  for (const e of entries) {
    if (!e.destroy && !e.replace) continue;
    const base = { address: e.text, resourceType: e.address.type, protected: isProtected(e.address, e.text) };
    const twin = e.replace ? undefined : createdTwin(e);
    if (twin) changes.push({ ...base, kind: 'type-rename-delete', twinAddress: twin.text });
    else if (e.replace || (e.destroy && e.create)) changes.push({ ...base, kind: 'replace' });
    else changes.push({ ...base, kind: 'destroy' });
  }
  changes.sort((a, b) => a.address.localeCompare(b.address));
  return { changes, protectedDestroyed: changes.filter((c) => c.protected).map((c) => c.address) };
}

/** True when a build's changes deserve a human's eyes: anything but the plain destroys a stop makes of unprotected resources. */
export function worthReporting(report: BuildChangeReport): boolean {
  return report.changes.some((c) => c.kind !== 'destroy' || c.protected);
}
