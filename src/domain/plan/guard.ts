import { isPersistentType, lookupReplacement, type ResourceMode } from '../type-map';
import { formatModulePath, parseResourceAddress } from './address';
import type { ChangeKind, ClassifiedChange } from './classify';

export type Transition = 'start' | 'stop' | 'delete';

export interface GuardPolicy {
  transition: Transition;
  /** Config addresses `T.name`, `module.m.T.name`; instance keys are ignored, either twin type matches. */
  protectedAddresses?: string[];
  /** Default true: PVCs and PVs (under either name) are protected without being listed. */
  protectPersistentKinds?: boolean;
}

export interface GuardReason {
  address: string;
  kind: ChangeKind;
  severity: 'deny' | 'approval' | 'info';
  message: string;
}

export interface GuardVerdict {
  verdict: 'allow' | 'needs-approval' | 'deny';
  reasons: GuardReason[];
  summary: string;
}

/**
 * One key per protected thing, whatever its type's name: a type rename must not make a protected
 * resource look unprotected, so both twins map to the deprecated name.
 */
function protectionKey(mode: ResourceMode, modulePath: string, type: string, name: string): string {
  const canonical = lookupReplacement(mode, type)?.deprecated ?? type;
  return `${mode}|${modulePath}|${canonical}|${name}`;
}

/** The protection key of an address such as `module.m[0].T.name["k"]`; throws AddressError when it is not one. */
export function protectionKeyOf(address: string): string {
  const a = parseResourceAddress(address);
  return protectionKey(a.mode, formatModulePath(a.modules, false), a.type, a.name);
}

const DESTROYING: ReadonlySet<ChangeKind> = new Set(['delete', 'replace', 'type-rename']);

function describe(change: ClassifiedChange): string {
  return change.twinAddress ? `${change.address} -> ${change.twinAddress}` : change.address;
}

function reasonSuffix(change: ClassifiedChange): string {
  const parts = [change.reason, change.assumed ? `assumed: ${change.assumed}` : undefined].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

function denyMessage(change: ClassifiedChange, transition: Transition): string {
  const where = `in a ${transition}, outside a workspace delete`;
  switch (change.kind) {
    case 'type-rename':
      return change.renameDirection === 'to-versioned'
        ? `protected ${change.address} would be destroyed and re-created empty as ${change.twinAddress} ${where}: ` +
            'the template uses the versioned type but this state still holds the deprecated one. Migrate the state first, ' +
            `or add removed { from = ${change.configAddress} lifecycle { destroy = false } } to the template.`
        : `protected ${change.address} would be destroyed and re-created empty as ${change.twinAddress} ${where}: ` +
            'the state is migrated but the build uses a template version with the deprecated type. ' +
            'Build with the migrated template version (pin template_version_id).';
    case 'replace':
      return `protected ${change.address} would be replaced (destroyed, then created empty) ${where}${reasonSuffix(change)}. ` +
        'Find the attribute forcing it (replace_paths) and fix the drift or add it to lifecycle.ignore_changes.';
    default:
      return `protected ${change.address} would be deleted ${where}${reasonSuffix(change)}. ` +
        `Keep it in the template, or add removed { from = ${change.configAddress} lifecycle { destroy = false } }.`;
  }
}

function whyDeleted(change: ClassifiedChange, transition: Transition): string {
  if (transition === 'delete') return 'destroyed by the workspace delete';
  if (change.deposed) return 'an object left over from an earlier replacement';
  switch (change.reason) {
    case 'delete_because_count_index':
    case 'delete_because_each_key':
      return transition === 'stop' ? 'normal in a stop, where counts follow start_count' : 'its count or for_each no longer includes this instance';
    case 'delete_because_no_resource_config':
      return 'the template has no block for it';
    case 'delete_because_no_module':
      return 'the template no longer calls its module';
    default:
      return 'not protected';
  }
}

function reasonFor(change: ClassifiedChange, isProtected: boolean, transition: Transition): GuardReason | undefined {
  const at = (severity: GuardReason['severity'], message: string): GuardReason => ({
    address: change.address,
    kind: change.kind,
    severity,
    message,
  });
  // Plan JSON hides data-source deletes, and a data source owns no object: nothing here can lose data.
  if (change.mode === 'data') return undefined;
  if (change.kind === 'forget') {
    return at(
      'info',
      isProtected
        ? `protected ${change.address} is dropped from state and left in the cluster: a removed { lifecycle { destroy = false } } guard at work`
        : `${change.address} is dropped from state and left in the cluster`,
    );
  }
  if (!DESTROYING.has(change.kind)) return undefined;
  // Only a workspace delete may destroy protected resources: that is the point of deleting it (seed 002).
  if (isProtected && transition !== 'delete') return at('deny', denyMessage(change, transition));
  if (change.kind === 'type-rename') {
    // An unprotected object is lost and re-created: harmless for a pod, but it is the signature of a
    // state and template version that disagree about types, so a human should look once.
    const why =
      change.renameDirection === 'to-versioned'
        ? 'an unmigrated state built with a migrated template'
        : 'a migrated state built with a template version that still has the deprecated type';
    return at('approval', `${describe(change)}: the object is destroyed and re-created under the twin type, the sign of ${why}`);
  }
  if (change.kind === 'replace') {
    return at('approval', `${change.address} would be replaced (destroyed, then created)${reasonSuffix(change)}`);
  }
  return at('info', `${change.address} is deleted${reasonSuffix(change)}: ${whyDeleted(change, transition)}`);
}

function listAddresses(reasons: readonly GuardReason[]): string {
  const shown = reasons.slice(0, 3).map((r) => r.address);
  return reasons.length > 3 ? `${shown.join(', ')} and ${reasons.length - 3} more` : shown.join(', ');
}

function countKinds(changes: readonly ClassifiedChange[]): string {
  const counts = new Map<ChangeKind, number>();
  for (const c of changes) if (c.kind !== 'no-op') counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const text = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  return text === '' ? 'no changes' : text;
}

function summarize(
  verdict: GuardVerdict['verdict'],
  reasons: readonly GuardReason[],
  changes: readonly ClassifiedChange[],
  transition: Transition,
): string {
  if (verdict === 'deny') {
    const denied = reasons.filter((r) => r.severity === 'deny');
    return `DENY: this ${transition} would destroy ${denied.length} protected resource(s): ${listAddresses(denied)}. ` +
      'Do not apply it; see each reason for the fix.';
  }
  if (verdict === 'needs-approval') {
    const pending = reasons.filter((r) => r.severity === 'approval');
    return `NEEDS APPROVAL: this ${transition} destroys and re-creates ${pending.length} unprotected resource(s): ` +
      `${listAddresses(pending)}. Approve if expected, else fix the state or the template version.`;
  }
  return `ALLOW: this ${transition} destroys no protected resource (${countKinds(changes)}).`;
}

/**
 * The plan guard: deny a plan that destroys a protected resource outside a workspace delete, ask a
 * human about replacements and type renames of anything else, and let the rest through.
 */
export function planGuardVerdict(changes: readonly ClassifiedChange[], policy: GuardPolicy): GuardVerdict {
  const listed = new Set((policy.protectedAddresses ?? []).map(protectionKeyOf));
  const byKinds = policy.protectPersistentKinds ?? true;
  const isProtected = (c: ClassifiedChange): boolean => {
    if (c.mode !== 'managed') return false;
    if (byKinds && isPersistentType(c.type)) return true;
    try {
      return listed.has(protectionKeyOf(c.configAddress));
    } catch {
      // An address we cannot read is treated as protected: the guard fails closed.
      return true;
    }
  };
  const reasons = changes
    .map((c) => reasonFor(c, isProtected(c), policy.transition))
    .filter((r): r is GuardReason => r !== undefined);
  const verdict = reasons.some((r) => r.severity === 'deny')
    ? 'deny'
    : reasons.some((r) => r.severity === 'approval')
      ? 'needs-approval'
      : 'allow';
  return { verdict, reasons, summary: summarize(verdict, reasons, changes, policy.transition) };
}
