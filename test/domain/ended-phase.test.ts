import { endedPhaseText } from '../../src/domain/phase-note';

describe('the phase line of a run that ended without a result', () => {
  it('a cancel says the step it was in', () => {
    expect(endedPhaseText({ cancelled: true }, 'awaiting-approval')).toBe('cancelled (during awaiting-approval)');
  });
  it('a decline says the decision as the failure put it', () => {
    expect(endedPhaseText({ declined: true, failure: 'rejected by alice at the promote gate' }, 'awaiting-approval')).toBe('declined: rejected by alice at the promote gate');
  });
  it('a failure says where it was, or where it got to when that is an ending phase', () => {
    expect(endedPhaseText({ failure: 'boom' }, 'pushing')).toBe('failed (during pushing)');
    expect(endedPhaseText({ failure: 'boom' }, 'restored')).toBe('failed, restored');
  });
});
