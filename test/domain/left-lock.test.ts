import { leftLockLine, type LeftLockReading } from '../../src/domain/left-lock';

const r = (over: Partial<LeftLockReading>): LeftLockReading => ({ organization: 'coder', template: 'k8s', how: 'terminated', heldAtEnd: true, setting: { on: true }, marked: true, keeperSeconds: 60, ...over });

describe("fleet status of a run that ran no code at its end: what it left of require_active_version", () => {
  it('still on with the mark: says so plainly, who gives it back and the command to do it now', () => {
    expect(leftLockLine(r({}))).toBe(
      "require active version: still ON, left by this run's termination, and no run watches the active version: do not promote an old version; the worker's lock keeper gives it back within ~60 s (or: coder templates edit k8s --require-active-version=false)",
    );
    expect(leftLockLine(r({ how: 'timed-out' }))).toMatch(/left by this run's timeout/);
    expect(leftLockLine(r({ keeperSeconds: 0 }))).toMatch(/lock keeper is off \(WSMIGRATE_LOCK_KEEPER_INTERVAL=off\): switch it off with `coder templates edit k8s --require-active-version=false`/);
    expect(leftLockLine(r({ heldAtEnd: undefined }))).toMatch(/still ON, wsmigrate's, left by a run that ended without giving it back/);
  });

  it('a later run of the template holds it now: says that run, not the keeper', () => {
    expect(leftLockLine(r({ heldNowBy: 'wsmigrate-fleet/coder/k8s-2026-12-07T05:00:00Z' }))).toBe(
      'require active version: on, held now by wsmigrate-fleet/coder/k8s-2026-12-07T05:00:00Z, which runs, watches the active version and gives it back as it ends',
    );
  });

  it('given back since: says that', () => {
    expect(leftLockLine(r({ setting: { on: false }, marked: false }))).toBe("require active version: given back (off) since this run's termination");
  });

  it("a run that never held it says nothing; the operator's own setting is called that", () => {
    expect(leftLockLine(r({ heldAtEnd: false, setting: { on: false }, marked: false }))).toBeUndefined();
    expect(leftLockLine(r({ heldAtEnd: false, marked: false }))).toBe("require active version: on (the template's own setting)");
  });

  it('held, on, and the mark lost: the keeper will not act, so the person must', () => {
    expect(leftLockLine(r({ marked: false }))).toMatch(/mark is gone .* switch it off with `coder templates edit k8s --require-active-version=false` unless it is yours/);
  });

  it('Coder cannot be read here: says what it knows and who gives it back', () => {
    expect(leftLockLine(r({ setting: { unreadable: 'CODER_URL and CODER_SESSION_TOKEN are not set here' } }))).toMatch(
      /this run held it when it ended \(termination\), and Coder's setting cannot be read here \(CODER_URL and CODER_SESSION_TOKEN are not set here\); the worker's lock keeper gives it back/,
    );
  });
});
