import { formatInstanceAddress, parseStateV4, type StateResourceView } from './state';
import { describeLoss, type LossKind, type ProtectedLoss } from './protected-loss';
import { summarizeStateMigration } from './migration-check';
import { isPersistentType, lookupDeprecated } from './type-map';
import { migratedProtectedInState } from './rollback-risk';

/**
 * The health of one workspace, read from its recent builds and their states. A fleet migration
 * takes days and users keep pressing Update meanwhile, so "no deprecated type left" is not enough:
 * a failed build can leave a state that simply forgot the home volume.
 */
export type HealthClass = 'unmigrated' | 'migrated' | 'damaged' | 'busy' | 'unreadable';

export const HEALTH_CLASSES: readonly HealthClass[] = ['unmigrated', 'migrated', 'damaged', 'busy', 'unreadable'];

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed' | 'unknown';

/** One build as the health check sees it. `state` is absent when it was not read. */
export interface BuildSnapshot {
  id: string;
  number: number;
  transition: 'start' | 'stop' | 'delete';
  jobStatus: JobStatus;
  templateVersionId: string;
  /** When the build finished (or was created, while it runs); shown as the time of a loss. */
  at: string;
  state?: { text: string } | { error: string };
}

/** A protected object as a state knows it. `key` writes the type as its versioned name, so old and migrated states compare. */
export interface ProtectedIdentity {
  key: string;
  address: string;
  id?: string;
  uid?: string;
}

export interface WorkspaceHealth {
  health: HealthClass;
  /** One line for humans: why this class. */
  reason: string;
  latest?: { id: string; number: number; transition: BuildSnapshot['transition']; jobStatus: JobStatus; templateVersionId: string };
  losses: ProtectedLoss[];
  /** For `damaged` with nothing destroyed: the newest build whose state holds every protected object as it was. */
  recoverFrom?: { id: string; number: number };
  /** Instances of deprecated types in the latest state. */
  deprecatedLeft: number;
  /** Root `_v1` protected entries of the latest state (`T_v1.name`); absent when that state was not read. */
  migratedProtected?: string[];
  /** Set (by the health step, from the workspace) when it is dormant: Coder lets nobody start it until it is made active. */
  dormantSince?: string;
}

export interface HealthInput {
  /** Newest first; states of as many as were read. */
  builds: readonly BuildSnapshot[];
  /** Config addresses marked `# wsmigrate:protect` (either type name). PVCs and PVs are always protected. */
  annotatedAddresses?: readonly string[];
  /** Versions whose source uses the `_v1` types; when absent, the latest state alone decides. */
  v1VersionIds?: readonly string[];
  /** Per build number: the addresses its log says it destroyed (tells a delete from a forget). */
  destroyedByBuild?: ReadonlyMap<number, readonly string[]>;
}

const ACTIVE: ReadonlySet<JobStatus> = new Set(['pending', 'running', 'canceling']);
const FAILED: ReadonlySet<JobStatus> = new Set(['failed', 'canceled']);

function versionedType(type: string): string {
  return lookupDeprecated('managed', type)?.replacement ?? type;
}

/** `module.a[0].T.n` → `module.a.T_v1.n`: the config address a protect annotation names, with the versioned type. */
function configKey(module: string | undefined, type: string, name: string): string {
  const mod = module ? `${module.replace(/\[[^\]]*\]/g, '')}.` : '';
  return `${mod}${versionedType(type)}.${name}`;
}

function annotatedKeys(addresses: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const a of addresses) {
    const m = /^(.*?)([\w-]+)\.([\w-]+)$/.exec(a);
    if (m) out.add(`${m[1]}${versionedType(m[2])}.${m[3]}`);
  }
  return out;
}

function uidOf(attributes: Record<string, unknown> | undefined): string | undefined {
  const metadata = attributes?.metadata;
  const first = Array.isArray(metadata) ? metadata[0] : metadata;
  const uid = first && typeof first === 'object' ? (first as Record<string, unknown>).uid : undefined;
  return typeof uid === 'string' ? uid : undefined;
}

/** Every protected object in a state: PVCs, PVs and annotated resources (deposed instances are not objects the config owns). */
export function protectedIdentities(resources: readonly StateResourceView[], annotatedAddresses: readonly string[] = []): ProtectedIdentity[] {
  const annotated = annotatedKeys(annotatedAddresses);
  const out: ProtectedIdentity[] = [];
  for (const r of resources) {
    if (r.mode !== 'managed') continue;
    if (!isPersistentType(r.type) && !annotated.has(configKey(r.module, r.type, r.name))) continue;
    for (const inst of r.instances) {
      if (inst.deposed) continue;
      const id = typeof inst.attributes?.id === 'string' ? inst.attributes.id : undefined;
      out.push({
        key: formatInstanceAddress({ ...r, type: versionedType(r.type) }, inst.index_key),
        address: formatInstanceAddress(r, inst.index_key),
        id,
        uid: uidOf(inst.attributes),
      });
    }
  }
  return out;
}

const sameObject = (a: ProtectedIdentity, b: ProtectedIdentity): boolean =>
  (a.uid === undefined || a.uid === b.uid) && (a.id === undefined || a.id === b.id);

interface ReadState {
  build: BuildSnapshot;
  byKey: Map<string, ProtectedIdentity>;
  resources: readonly StateResourceView[];
}

function readStates(builds: readonly BuildSnapshot[], annotated: readonly string[]): { read: ReadState[]; errors: Map<string, string> } {
  const read: ReadState[] = [];
  const errors = new Map<string, string>();
  for (const build of builds) {
    if (!build.state) continue;
    if ('error' in build.state) {
      errors.set(build.id, build.state.error);
      continue;
    }
    try {
      const resources = parseStateV4(build.state.text).resources;
      read.push({ build, resources, byKey: new Map(protectedIdentities(resources, annotated).map((p) => [p.key, p])) });
    } catch (err) {
      errors.set(build.id, `the state of build #${build.number} is not a Terraform state: ${(err as Error).message}`);
    }
  }
  return { read, errors };
}

interface Tracked {
  ref: ProtectedIdentity;
  heldIn: BuildSnapshot;
  /** The build where it first went missing, while it stays missing. */
  missingSince?: BuildSnapshot;
  /** What took its address in that build, when the log showed no delete (the old object is unmanaged). */
  replacedBy?: ProtectedIdentity;
}

/**
 * What each build lost, oldest to newest. The reference for an object is the newest successful
 * build's state that held it; a later state without the entry lost it (until one holds it again
 * with the same uid), and a later state with another uid means the object was destroyed.
 */
export function findProtectedLosses(
  builds: readonly BuildSnapshot[],
  opts: { annotatedAddresses?: readonly string[]; destroyedByBuild?: ReadonlyMap<number, readonly string[]> } = {},
): { losses: ProtectedLoss[]; reference: Map<string, ProtectedIdentity> } {
  const { read } = readStates(builds, opts.annotatedAddresses ?? []);
  const oldestFirst = [...read].sort((a, b) => a.build.number - b.build.number);
  const tracked = new Map<string, Tracked>();
  const losses: ProtectedLoss[] = [];
  for (const { build, byKey } of oldestFirst) {
    for (const [key, t] of tracked) {
      const now = byKey.get(key);
      if (!now) {
        t.missingSince ??= build;
      } else if (sameObject(t.ref, now)) {
        t.missingSince = undefined;
        t.replacedBy = undefined;
      } else if (t.replacedBy && sameObject(t.replacedBy, now)) {
        // still the object that took its address: the loss stays the one already noted
      } else if (loggedNoDelete(opts.destroyedByBuild, build, t.ref)) {
        t.missingSince ??= build;
        t.replacedBy = now;
      } else {
        const lostIn = t.missingSince ?? build;
        losses.push(loss(t, lostIn, 'destroyed', now));
        tracked.set(key, { ref: now, heldIn: build });
      }
    }
    if (build.jobStatus === 'succeeded') {
      for (const [key, p] of byKey) {
        const t = tracked.get(key);
        if (!t || (!t.missingSince && sameObject(t.ref, p))) tracked.set(key, { ref: p, heldIn: build });
      }
    }
  }
  for (const t of tracked.values()) {
    if (!t.missingSince) continue;
    if (t.replacedBy) {
      losses.push(loss(t, t.missingSince, 'orphaned', t.replacedBy));
      continue;
    }
    const destroyed = opts.destroyedByBuild?.get(t.missingSince.number)?.some((a) => sameAddress(a, t.ref)) ?? false;
    losses.push(loss(t, t.missingSince, destroyed ? 'destroyed' : 'forgotten'));
  }
  const reference = new Map([...tracked].map(([k, t]) => [k, t.ref]));
  return { losses: losses.sort((a, b) => a.build.number - b.build.number || a.key.localeCompare(b.key)), reference };
}

/** The build's log was read and deletes nothing at the object's address: a new uid there is a new object beside it. */
function loggedNoDelete(destroyedByBuild: HealthInput['destroyedByBuild'], build: BuildSnapshot, ref: ProtectedIdentity): boolean {
  const deleted = destroyedByBuild?.get(build.number);
  return deleted !== undefined && !deleted.some((a) => sameAddress(a, ref));
}

function sameAddress(logAddress: string, ref: ProtectedIdentity): boolean {
  return logAddress === ref.address || logAddress === ref.key;
}

function loss(t: Tracked, lostIn: BuildSnapshot, kind: LossKind, now?: ProtectedIdentity): ProtectedLoss {
  return {
    address: t.ref.address,
    key: t.ref.key,
    kind,
    build: { id: lostIn.id, number: lostIn.number, at: lostIn.at },
    heldIn: { id: t.heldIn.id, number: t.heldIn.number },
    before: { id: t.ref.id, uid: t.ref.uid },
    ...(now ? { after: { id: now.id, uid: now.uid } } : {}),
  };
}

/**
 * Builds whose log must be read to tell a delete from a forget: those where a protected entry went
 * missing, or where another object (new uid) took its address (deleted and made again, or made
 * beside it).
 */
export function buildsToCheckForDeletes(builds: readonly BuildSnapshot[], annotatedAddresses: readonly string[] = []): number[] {
  const { losses } = findProtectedLosses(builds, { annotatedAddresses });
  return [...new Set(losses.filter((l) => l.kind === 'forgotten' || l.after !== undefined).map((l) => l.build.number))];
}

const DESTROY_LINE = /^\s*((?:module\.[\w-]+(?:\[[^\]]*\])?\.)*[\w-]+\.[\w-]+(?:\[[^\]]*\])?): (?:Destroying\.\.\.|Destruction complete)/;

/** The addresses a build log says were destroyed (Terraform's "X: Destroying..." / "X: Destruction complete" lines). */
export function destroyedAddressesInLog(lines: readonly string[]): string[] {
  const out = new Set<string>();
  for (const line of lines) {
    const m = DESTROY_LINE.exec(line);
    if (m) out.add(m[1]);
  }
  return [...out];
}

/** The class of a workspace, with the evidence. Pure: the caller reads builds, states and logs. */
export function assessWorkspaceHealth(input: HealthInput): WorkspaceHealth {
  const latestBuild = input.builds[0];
  if (!latestBuild) return { health: 'unreadable', reason: 'the workspace has no builds', losses: [], deprecatedLeft: 0 };
  const latest = {
    id: latestBuild.id,
    number: latestBuild.number,
    transition: latestBuild.transition,
    jobStatus: latestBuild.jobStatus,
    templateVersionId: latestBuild.templateVersionId,
  };
  const base = { latest, losses: [] as ProtectedLoss[], deprecatedLeft: 0 };
  if (ACTIVE.has(latestBuild.jobStatus)) {
    return { ...base, health: 'busy', reason: `build #${latestBuild.number} (${latestBuild.transition}) is ${latestBuild.jobStatus}` };
  }
  const annotated = input.annotatedAddresses ?? [];
  const { read, errors } = readStates([latestBuild], annotated);
  const latestError = errors.get(latestBuild.id);
  if (latestError !== undefined || !latestBuild.state) {
    return { ...base, health: 'unreadable', reason: latestError ?? `the state of build #${latestBuild.number} was not read` };
  }
  const deprecatedLeft = (() => {
    const s = summarizeStateMigration(read[0].resources);
    return s.renameable.length + s.needsImport.length;
  })();
  const migratedProtected = migratedProtectedInState(read[0].resources, annotated);
  const { losses, reference } = findProtectedLosses(input.builds, { annotatedAddresses: annotated, destroyedByBuild: input.destroyedByBuild });
  if (losses.length > 0 || FAILED.has(latestBuild.jobStatus)) {
    const destroyed = losses.filter((l) => l.kind === 'destroyed');
    const reason = losses.length > 0
      ? losses.map(describeLoss).join('; ')
      : `the latest build #${latestBuild.number} (${latestBuild.transition}) ${latestBuild.jobStatus}; every protected object is still in its state`;
    const recoverFrom = destroyed.length === 0 ? newestHoldingAll(input.builds, reference, annotated) : undefined;
    return { latest, health: 'damaged', reason, losses, deprecatedLeft, migratedProtected, ...(recoverFrom ? { recoverFrom } : {}) };
  }
  if (deprecatedLeft > 0) {
    return { latest, health: 'unmigrated', reason: `${deprecatedLeft} instance(s) of deprecated types in the state`, losses, deprecatedLeft, migratedProtected };
  }
  if (input.v1VersionIds && !input.v1VersionIds.includes(latestBuild.templateVersionId)) {
    return {
      latest,
      health: 'unmigrated',
      reason: `the state has only _v1 types but build #${latestBuild.number} ran a version without them: start it pinned to the _v1 version (a plain start would destroy the volumes)`,
      losses,
      deprecatedLeft,
      migratedProtected,
    };
  }
  return { latest, health: 'migrated', reason: `build #${latestBuild.number} succeeded on a _v1 version; ${reference.size} protected object(s) present`, losses, deprecatedLeft, migratedProtected };
}

/** The newest build whose state holds every protected object with the identity the reference has. */
function newestHoldingAll(
  builds: readonly BuildSnapshot[],
  reference: ReadonlyMap<string, ProtectedIdentity>,
  annotated: readonly string[],
): { id: string; number: number } | undefined {
  const { read } = readStates(builds, annotated);
  const newestFirst = [...read].sort((a, b) => b.build.number - a.build.number);
  for (const r of newestFirst) {
    const holdsAll = [...reference].every(([key, ref]) => {
      const p = r.byKey.get(key);
      return p !== undefined && sameObject(ref, p);
    });
    if (holdsAll) return { id: r.build.id, number: r.build.number };
  }
  return undefined;
}
