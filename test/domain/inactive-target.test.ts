import { movesOntoInactiveVersion } from '../../src/domain/inactive-target';

describe('movesOntoInactiveVersion (an outdated workspace, whose owner\'s Update builds the active version)', () => {
  const on = (latest: string, active = 'active') => ({ template_active_version_id: active, latest_build: { template_version_id: latest } });
  it('is false for the active version, whatever the workspace runs and holds', () => {
    expect(movesOntoInactiveVersion(on('old', 'new'), 'new', 2)).toBe(false);
    expect(movesOntoInactiveVersion(on('new', 'new'), 'new', 0)).toBe(false);
  });
  it('is true for another version the run would build the workspace onto', () => {
    expect(movesOntoInactiveVersion(on('old'), 'pushed', 2)).toBe(true);
    // A _v1 state built on another version (an unmigrated workspace) is moved onto the target too.
    expect(movesOntoInactiveVersion(on('old'), 'pushed', 0)).toBe(true);
    // Already on the target, but its state still holds deprecated types: the run builds the _v1 state onto it.
    expect(movesOntoInactiveVersion(on('pushed'), 'pushed', 1)).toBe(true);
  });
  it('is false for a workspace already on the target with nothing deprecated: the run moves it nowhere', () => {
    expect(movesOntoInactiveVersion(on('pushed'), 'pushed', 0)).toBe(false);
  });
});
