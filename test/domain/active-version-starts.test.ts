import { startsOnAnotherActiveVersion } from '../../src/domain/active-version-starts';

describe('startsOnAnotherActiveVersion (lifecycle_executor.go useActiveVersion)', () => {
  const ws = { id: 'w1', template_active_version_id: 'old' };
  it('is silent when the target is the active version, whatever the settings', () => {
    expect(startsOnAnotherActiveVersion({ ...ws, template_active_version_id: 'new', automatic_updates: 'always', template_require_active_version: true }, 'new')).toBeUndefined();
  });
  it('is silent when Coder starts the workspace on its previous build\'s version', () => {
    expect(startsOnAnotherActiveVersion({ ...ws, automatic_updates: 'never', template_require_active_version: false }, 'new')).toBeUndefined();
    expect(startsOnAnotherActiveVersion(ws, 'new')).toBeUndefined();
  });
  it('names automatic updates, the template setting, or both, and what to do', () => {
    expect(startsOnAnotherActiveVersion({ ...ws, automatic_updates: 'always' }, 'new')).toMatch(/^the workspace has automatic updates "always", so Coder starts it .* active version old, not on the target version new: .*destroy the PVC\. Nothing was stopped\. Promote/);
    expect(startsOnAnotherActiveVersion({ ...ws, automatic_updates: 'always' }, 'new')).toMatch(/or turn automatic updates off for this workspace \(PUT \/api\/v2\/workspaces\/w1\/autoupdates/);
    // Turning automatic updates off would not help: the template holds every start to the active version.
    expect(startsOnAnotherActiveVersion({ ...ws, template_require_active_version: true }, 'new')).toMatch(/^the template requires its active version, so.*'coder templates versions promote'\)$/);
    expect(startsOnAnotherActiveVersion({ ...ws, automatic_updates: 'always', template_require_active_version: true }, 'new')).toMatch(/^the workspace has automatic updates "always" and the template requires its active version, so/);
  });
});
