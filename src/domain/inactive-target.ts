/**
 * A migration onto a version that is not the template's active one leaves the workspace "outdated"
 * (coderd/workspaces.go: `outdated` is the latest build's version differing from the template's active
 * one), and the dashboard offers its owner an Update button. Update builds the *active* version
 * (site/src/api/api.ts `updateWorkspace` posts a start with the template's `active_version_id`), and
 * the build carries the latest build's state (coderd/wsbuilder/wsbuilder.go `getState`): the old
 * version on the `_v1` state, whose plan destroys the home PVC and creates an empty one.
 */
export interface InactiveTargetFacts {
  template_active_version_id: string;
  latest_build: { template_version_id: string };
}

/**
 * Whether migrating onto `targetVersionId` would leave the workspace on a version that is not active.
 * A workspace already on the target whose state holds nothing deprecated is left out: the run moves it
 * onto no version it is not already on.
 */
export function movesOntoInactiveVersion(ws: InactiveTargetFacts, targetVersionId: string, deprecatedInState: number): boolean {
  if (ws.template_active_version_id === targetVersionId) return false;
  return !(ws.latest_build.template_version_id === targetVersionId && deprecatedInState === 0);
}

/**
 * The template's active version, as the outdated workspace's Update would build it: `oldTypes` when it
 * still declares the deprecated type of an entry the migrated state holds as `_v1` (Update then
 * destroys that object and creates it empty), false when it is a migrated version too.
 */
export interface ActiveVersionFacts {
  id: string;
  oldTypes: boolean;
}

/** What the owner's Update does to the migrated workspace, as one clause. */
function whatUpdateDoes(active: ActiveVersionFacts, migratedState: string): string {
  return active.oldTypes
    ? `builds the active, old version on the ${migratedState}: Terraform destroys the home PVC and creates an empty one`
    : `moves it onto the active version, which declares the _v1 types too: no volume is lost, but it is not the version you chose`;
}

/** The preflight's refusal: why (the Update button, and the PVC when the active version is an old one) and what to do. */
export function inactiveTargetRefusal(template: string, target: { id: string; name: string }, active: ActiveVersionFacts): string {
  return (
    `template version ${target.name} (${target.id}) is not the active version of template ${template} (${active.id} is). ` +
    `After the migration Coder shows the workspace as outdated, and one click of its owner on Update ${whatUpdateDoes(active, 'migrated _v1 state')}. Nothing was stopped. ` +
    `Promote it first ('coder templates versions promote --template ${template} --template-version ${target.name}', or Promote on the template's Versions page), ` +
    `or pass the version 'wsmigrate migrate template' promotes (without --no-promote)${active.oldTypes ? '' : ` or the active version ${active.id}`}; ` +
    `or pass --allow-inactive-version if you mean to migrate onto it now and promote it before anyone presses Update`
  );
}

/** What a run given --allow-inactive-version (or a dry run) says in its status and result. */
export function inactiveTargetWarning(subject: string, template: string, target: { id: string; name: string }, active: ActiveVersionFacts): string {
  return (
    `migrating ${subject} onto template version ${target.name} (${target.id}) leaves it outdated: that is not the active version of template ${template} (${active.id} is), ` +
    `and its owner's Update ${active.oldTypes ? 'builds the active, old version on the _v1 state and destroys the home PVC' : 'moves it onto the active version (a migrated one too: no volume is lost)'}. ` +
    `Promote ${target.name} before anyone presses Update ('coder templates versions promote --template ${template} --template-version ${target.name}'); ` +
    `without --allow-inactive-version a migration onto it is refused`
  );
}

/**
 * The build step's refusal when the active version changed after the preflight checked it (a template
 * admin promoted another version, or rolled back, while the run waited at a gate or in Coder's queue):
 * built now, the workspace would be outdated exactly as the preflight refuses. Nothing was built.
 */
export function activeVersionChangedRefusal(subject: string, template: string, target: { id: string; name: string }, active: ActiveVersionFacts): string {
  return (
    `template ${template}'s active version changed since the preflight: ${active.id} is active now, not ${target.name} (${target.id}). ` +
    `Built now, ${subject} would be outdated, and one click of its owner on Update ${whatUpdateDoes(active, 'migrated _v1 state')}; so nothing was built with the migrated state. ` +
    `Once ${target.name} is meant to be the active version again, promote it ('coder templates versions promote --template ${template} --template-version ${target.name}') and run the migration again; ` +
    `to migrate onto it while it is not active, run it again with --allow-inactive-version and promote it before anyone presses Update`
  );
}
