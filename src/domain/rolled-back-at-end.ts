/**
 * A template's active version read once more as a fleet run ends (or before an organization's canary
 * gate), when it is not the version the run migrated to: someone promoted another (a rollback) after
 * the run's last build, too late for the minute's watch (src/workflows/fleet-lock-watch.ts). Every
 * workspace on the migrated version is then outdated, and its owner's Update (the dashboard builds the
 * template's `active_version_id`) or an autostart under automatic updates builds the old version on its
 * `_v1` state and destroys its PVC. Pure: the fleet's note and the organization's row say it the same way.
 */
export interface ActiveAtEnd {
  template: string;
  targetVersionId: string;
  activeVersionId: string;
  activeVersionName?: string;
  /** Workspaces this run (or this canary) migrated, already migrated ones included. */
  migrated: number;
}

export function rolledBackAtEndText(a: ActiveAtEnd, when: 'ended' | 'gate'): string {
  const active = `${a.activeVersionName ? `${a.activeVersionName} ` : ''}(${a.activeVersionId})`;
  const onIt = a.migrated > 0 ? `${a.migrated} workspace(s) this run migrated or found migrated, and any other on it, are AT RISK` : 'every workspace on it is AT RISK';
  return (
    `${when === 'ended' ? 'As the run ended' : 'Before this gate'}, the active version of template ${a.template} is no longer the migrated version ${a.targetVersionId}: it is ${active}, promoted since. ` +
    `${onIt}: their owners' "Update" (and the autostart of one with automatic updates) builds that version on the _v1 state and destroys the home PVC. ` +
    `Promote ${a.targetVersionId} again now (coder templates versions promote --template ${a.template} --template-version <its name>), then 'wsmigrate scan --template ${a.template}' (it lists each workspace AT RISK).`
  );
}
