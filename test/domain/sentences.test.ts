import { joinSentences, withAside } from '../../src/domain/sentences';

describe('joinSentences / withAside: one full stop between sentences, whatever each part ends with', () => {
  it('adds a full stop only where a part has none, leaves the last part and drops empty ones', () => {
    expect(joinSentences('…so any of them can read every backup.', 'Nothing was written')).toBe('…so any of them can read every backup. Nothing was written');
    expect(joinSentences('the store did not answer', 'Nothing was written')).toBe('the store did not answer. Nothing was written');
    expect(joinSentences('is it there?', '', undefined, 'Retry')).toBe('is it there? Retry');
    expect(joinSentences('only one part')).toBe('only one part');
  });

  it('puts an aside inside the last sentence, before its full stop', () => {
    expect(withAside('…read every backup.', 'gave up after 3 attempts')).toBe('…read every backup (gave up after 3 attempts).');
    expect(withAside('did not answer (ECONNREFUSED)', 'gave up after 3 attempts')).toBe('did not answer (ECONNREFUSED) (gave up after 3 attempts)');
  });
});
