import { globToRegExp } from '../../src/domain/glob';

describe('globToRegExp: a workspace-name filter such as dev-*', () => {
  it('only * and ? are special; the whole name must match, in any case', () => {
    expect(globToRegExp('a.b*').test('a.bcd')).toBe(true);
    expect(globToRegExp('a.b*').test('axbcd')).toBe(false);
    expect(globToRegExp('dev-?').test('dev-1')).toBe(true);
    expect(globToRegExp('dev-?').test('dev-12')).toBe(false);
    expect(globToRegExp('x*').test('ax')).toBe(false);
    expect(globToRegExp('DEV-*').test('dev-1')).toBe(true);
    expect(globToRegExp('(a)+').test('(a)+')).toBe(true);
    expect(globToRegExp('(a)+').test('aa')).toBe(false);
  });
});
