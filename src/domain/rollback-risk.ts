import { rootManagedDeclarations } from './downgrade-guard';
import { movedBlocksIn } from './hcl/guard-blocks';
import { dirOf } from './hcl/module-tree';
import { syntaxOf, type TemplateFile } from './hcl/template-file';
import type { StateResourceView } from './state/parse';
import { isPersistentType, lookupDeprecated, lookupReplacement } from './type-map';
import { keptAddresses } from './unguarded-protected';

/**
 * A migrated workspace (its state holds `_v1` protected objects) whose template's ACTIVE version is
 * one without them: an old version promoted again (a rollback), or pushed by hand. Coder calls the
 * workspace outdated, and its owner's Update (the dashboard builds `active_version_id`) or an autostart
 * on the active version (automatic updates `always`, require_active_version) builds that version on
 * the `_v1` state: Terraform destroys each `_v1` object the version does not declare. Root entries
 * only, as the downgrade guard (a version's root declarations say nothing of its modules' resources).
 */

/** What the rule needs of a version's source; read once per version. */
export interface VersionShape {
  /** `type.name` of every managed resource of the root module. */
  declared: ReadonlySet<string>;
  /** The `from` of each root `removed { lifecycle { destroy = false } }`: Terraform forgets it, never destroys it. */
  kept: ReadonlySet<string>;
  /**
   * Root `moved { from, to }` blocks, from → to. A move onto a declared address keeps the object: onto
   * the same type it is renamed; across types (`T_v1.x` → `T.x`) the kubernetes provider implements no
   * MoveResourceState, so the plan fails ("Move Resource State Not Supported", reference/real-kubernetes.md)
   * and nothing is destroyed.
   */
  moved: ReadonlyMap<string, string>;
}

export function versionShape(files: readonly TemplateFile[]): VersionShape {
  const moved = new Map<string, string>();
  for (const f of files) {
    const kind = syntaxOf(f.path);
    if (kind.syntax !== 'native' || kind.dialect !== 'config' || dirOf(f.path) !== '') continue;
    for (const m of movedBlocksIn(f.path, f.content)) moved.set(m.from, m.to);
  }
  return { declared: rootManagedDeclarations(files), kept: keptAddresses(files), moved };
}

/** The version keeps this object: it declares it, forgets it (removed, destroy = false), or moves it onto an address it declares. */
function keeps(shape: VersionShape, address: string): boolean {
  const to = shape.moved.get(address);
  return shape.declared.has(address) || shape.kept.has(address) || (to !== undefined && shape.declared.has(to));
}

/** `T.n` → `T_v1.n`, so annotations on either type name compare. */
function versionedAddress(address: string): string {
  const m = /^(.*?)([\w-]+)\.([\w-]+)$/.exec(address);
  return m ? `${m[1]}${lookupDeprecated('managed', m[2])?.replacement ?? m[2]}.${m[3]}` : address;
}

function isProtected(type: string, name: string, annotated: ReadonlySet<string>): boolean {
  return isPersistentType(type) || annotated.has(`${type}.${name}`);
}

/** The root `_v1` entries of a state that are protected (PVCs, PVs, `# wsmigrate:protect`), as `T_v1.name`. */
export function migratedProtectedInState(resources: readonly Pick<StateResourceView, 'module' | 'mode' | 'type' | 'name' | 'instances'>[], annotatedAddresses: readonly string[] = []): string[] {
  const annotated = new Set(annotatedAddresses.map(versionedAddress));
  const out = resources
    .filter((r) => r.mode === 'managed' && r.module === undefined && lookupReplacement('managed', r.type) && r.instances.some((i) => !i.deposed))
    .filter((r) => isProtected(r.type, r.name, annotated))
    .map((r) => `${r.type}.${r.name}`);
  return [...new Set(out)].sort();
}

/** The same, from a version's declarations: for a workspace whose state was not read (busy, unreadable). */
export function migratedProtectedInVersion(shape: VersionShape, annotatedAddresses: readonly string[] = []): string[] {
  const annotated = new Set(annotatedAddresses.map(versionedAddress));
  return [...shape.declared]
    .filter((a) => {
      const [type, name] = a.split('.');
      return lookupReplacement('managed', type) !== undefined && isProtected(type, name, annotated);
    })
    .sort();
}

export interface RollbackRiskInput {
  /** The version of the workspace's latest build. */
  workspaceVersionId: string;
  activeVersionId: string;
  /** The workspace's `_v1` protected root entries (migratedProtectedInState, or …InVersion when the state was not read). */
  held: readonly string[];
  active: VersionShape;
}

export interface EndangeredObject {
  address: string;
  /** What the active version does to it. */
  why: string;
}

/** The objects a build of the active version on this workspace's state would destroy; empty when it is not at risk. */
export function rollbackHazards(input: RollbackRiskInput): EndangeredObject[] {
  if (input.workspaceVersionId === input.activeVersionId) return [];
  const out: EndangeredObject[] = [];
  for (const address of input.held) {
    const [type, name] = address.split('.');
    const mapping = lookupReplacement('managed', type);
    if (!mapping || keeps(input.active, address)) continue;
    const old = `${mapping.deprecated}.${name}`;
    out.push({
      address,
      why: input.active.declared.has(old)
        ? `the active version declares the old ${old}: its build destroys ${address} and creates it anew, empty`
        : `the active version does not declare ${address} (and has no removed or moved block that keeps it): its build destroys it`,
    });
  }
  return out;
}

export interface AtRiskFacts {
  template: string;
  /** The active version, by name. */
  activeVersion: string;
  /** The workspace's own version when it is a migrated one (to promote again); undefined otherwise. */
  migratedVersion?: string | undefined;
  automaticUpdates?: string | undefined;
  requireActiveVersion?: boolean | undefined;
  autostartSchedule?: string | null | undefined;
  nextStartAt?: string | null | undefined;
}

export interface AtRiskNote {
  activeVersion: string;
  objects: EndangeredObject[];
  /** What builds the active version on it: always the owner's Update; the autostart when Coder uses the active version for it. */
  firedBy: string[];
  action: string;
}

/** Who would fire the build, and what to do: one note for scan's row, its --json and the lines after its table. */
export function atRiskNote(objects: EndangeredObject[], f: AtRiskFacts): AtRiskNote {
  // coderd/autobuild/lifecycle_executor.go useActiveVersion: automatic_updates "always" or the template's require_active_version.
  const why = [
    ...(f.automaticUpdates === 'always' ? ['automatic updates "always"'] : []),
    ...(f.requireActiveVersion === true ? ["the template's require_active_version"] : []),
  ];
  const when = f.nextStartAt ? `next at ${f.nextStartAt}` : f.autostartSchedule ? `schedule ${f.autostartSchedule}` : undefined;
  const firedBy = [
    "its owner's Update (the dashboard builds the active version)",
    ...(f.requireActiveVersion === true ? ["its owner's start (require_active_version starts members on the active version)"] : []),
    ...(why.length > 0 && when ? [`its autostart (${why.join(' and ')}), ${when}`] : []),
  ];
  const promote = f.migratedVersion
    ? `promote the migrated version again: coder templates versions promote --template ${f.template} --template-version ${f.migratedVersion}`
    : `promote the migrated (_v1) version again: coder templates versions promote --template ${f.template} --template-version <the version 'wsmigrate migrate template' pushed>`;
  return {
    activeVersion: f.activeVersion,
    objects,
    firedBy,
    action:
      `${promote}, then run 'wsmigrate scan' again. If the rollback to ${f.activeVersion} is wanted, do not Update this workspace: ` +
      `wsmigrate has no command that migrates a _v1 state back; putting its pre-migration backup back ('wsmigrate backups list', then ` +
      `'wsmigrate state restore … --backup <ref> --version <id of ${f.activeVersion}>') loses what changed since, so ask before updating it`,
  };
}
