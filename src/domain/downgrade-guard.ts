import { dirOf } from './hcl/module-tree';
import { readTemplateConfig } from './hcl/template-config';
import type { TemplateFile } from './hcl/template-file';
import type { StateResourceView } from './state/parse';
import { lookupDeprecated, lookupReplacement } from './type-map';

type StateEntry = Pick<StateResourceView, 'module' | 'mode' | 'type' | 'name'>;

/**
 * The downgrade: a workspace whose state holds `T_v1.x` built with a version that declares the
 * deprecated `T.x` (and no `T_v1.x`). Terraform destroys the `_v1` object (no config for it) and
 * creates the old-type twin, which fails AlreadyExists or wins after the delete: either way the
 * volume is gone (measured on the real stack, reference/real-kubernetes.md "Zero-touch").
 * Returns one line per endangered state entry; empty when the version is safe for this state.
 */
export function downgradeHazards(state: readonly StateEntry[], versionFiles: readonly TemplateFile[]): string[] {
  return downgradeHazardsAgainst(state, rootManagedDeclarations(versionFiles));
}

/** `type.name` of every managed resource the version declares in its root module. */
export function rootManagedDeclarations(versionFiles: readonly TemplateFile[]): ReadonlySet<string> {
  return new Set(
    readTemplateConfig(versionFiles)
      .configFiles.filter((f) => dirOf(f.path) === '')
      .flatMap((f) => f.outline.resources)
      .filter((r) => r.mode === 'managed')
      .map((r) => `${r.type}.${r.name}`),
  );
}

/** The migrated type of a root managed entry (the only entries a version's root declarations can endanger). */
function migratedTypeOf(r: StateEntry) {
  return r.mode === 'managed' && r.module === undefined ? lookupReplacement('managed', r.type) : undefined;
}

/** False when no version can be a downgrade for this state (downgradeHazardsAgainst finds nothing whatever it is given): no need to read one. */
export function holdsMigratedEntries(state: readonly StateEntry[]): boolean {
  return state.some((r) => migratedTypeOf(r) !== undefined);
}

/** downgradeHazards, given the version's root declarations (read once per version by a caller that builds many workspaces). */
export function downgradeHazardsAgainst(state: readonly StateEntry[], declared: ReadonlySet<string>): string[] {
  const hazards: string[] = [];
  for (const r of state) {
    const mapping = migratedTypeOf(r);
    if (!mapping) continue;
    const old = `${mapping.deprecated}.${r.name}`;
    if (declared.has(old) && !declared.has(`${r.type}.${r.name}`)) {
      hazards.push(`${r.type}.${r.name} is migrated, but this version declares the old ${old}: the build would destroy it and re-create it empty`);
    }
  }
  return hazards;
}

/**
 * The other direction, for a by-hand restore of an old-type state: a root entry `T.x` built with a
 * version that declares only its `_v1` twin. Without the migration's rename the build drops it from
 * the state and creates the twin anew, empty. One line per entry; empty when the version fits.
 */
export function oldTypeHazardsAgainst(state: readonly StateEntry[], declared: ReadonlySet<string>): string[] {
  const hazards: string[] = [];
  for (const r of state) {
    if (r.mode !== 'managed' || r.module !== undefined) continue;
    const mapping = lookupDeprecated('managed', r.type);
    if (!mapping) continue;
    const twin = `${mapping.replacement}.${r.name}`;
    if (!declared.has(`${r.type}.${r.name}`) && declared.has(twin)) {
      hazards.push(`${r.type}.${r.name} has the old type, but this version declares only ${twin}: the build would drop it from the state and create ${twin} anew`);
    }
  }
  return hazards;
}
