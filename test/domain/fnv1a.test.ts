import { fnv1a } from '../../src/domain/fnv1a';

describe('fnv1a: the id of what a gate approves', () => {
  it('is FNV-1a of the text, always 8 hex digits, and order matters', () => {
    expect(fnv1a('')).toBe('811c9dc5');
    expect(fnv1a('a')).toBe('e40c292c');
    expect(fnv1a('v100')).toBe('04ad15a8');
    expect(fnv1a('v1,v2')).not.toBe(fnv1a('v2,v1'));
  });
});
