import { bool, InputError, int, list, num, object, oneOf, text, uuid } from '../../src/domain/input-rules';

const issuesOf = (r: { safeParse(v: unknown): { success: boolean; issues?: { path: (string | number)[]; message: string }[] } }, v: unknown) => {
  const res = r.safeParse(v);
  return res.success ? [] : res.issues!.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`);
};

describe('input rules', () => {
  it('fills defaults for absent fields only', () => {
    const r = object({ mode: oneOf(['a', 'b']).default('a'), n: int().default(3), tags: list(text()).default([]), note: text().optional() });
    expect(r.parse({})).toEqual({ mode: 'a', n: 3, tags: [] });
    expect(r.parse({ mode: 'b', n: 0, tags: ['x'], note: 'hi' })).toEqual({ mode: 'b', n: 0, tags: ['x'], note: 'hi' });
  });

  it('refuses a key no rule names, with the key a typo most likely meant: a mistyped "dryRun" must not become a real run', () => {
    const r = object({ dryRun: bool().default(false), concurrency: int().default(10), approval: object({ approvers: list(text()).default([]) }).prefault({}) });
    expect(issuesOf(r, { dryrun: true })).toEqual(['dryrun: unknown field: did you mean dryRun?']);
    expect(issuesOf(r, { concurency: 50 })).toEqual(['concurency: unknown field: did you mean concurrency?']);
    expect(issuesOf(r, { approval: { approver: ['alice'] } })).toEqual(['approval.approver: unknown field: did you mean approvers?']);
    expect(issuesOf(r, { colour: 'red' })).toEqual(['colour: unknown field (known: dryRun, concurrency, approval)']);
  });

  it("drops unknown keys instead when told to (what runs started before the rule accepted, replayed as they ran)", () => {
    const r = object({ dryRun: bool().default(false) });
    expect(r.parse({ dryrun: true }, { unknownKeys: 'drop' })).toEqual({ dryRun: false });
    expect(r.safeParse({ dryrun: true }, { unknownKeys: 'refuse' }).success).toBe(false);
  });

  it('gives each default as a fresh copy, so one run cannot change another run’s default', () => {
    const r = object({ tags: list(text()).default([]) });
    const first = r.parse({});
    first.tags.push('mutated');
    expect(r.parse({}).tags).toEqual([]);
  });

  it('checks an absent object as its prefault, so its own defaults and rules still apply', () => {
    const inner = object({ who: list(text()).default([]) })
      .refine((v, addIssue) => {
        if (v.who.length === 0) addIssue('who', 'name someone');
      })
      .prefault({});
    const r = object({ approval: inner });
    expect(issuesOf(r, {})).toEqual(['approval.who: name someone']);
    expect(r.parse({ approval: { who: ['alice'] } })).toEqual({ approval: { who: ['alice'] } });
  });

  it('runs a refinement only when every field of its object is valid (one clear issue, not two)', () => {
    const r = object({ n: int() }).refine((_, addIssue) => addIssue('n', 'refined'));
    expect(issuesOf(r, { n: 'x' })).toEqual(['n: Invalid input: expected int, received string']);
  });

  it('names every bad field with its path, list items by index', () => {
    const r = object({ a: text(), b: object({ c: bool() }), d: list(int().min(1)) });
    expect(issuesOf(r, { a: 5, b: { c: 'yes' }, d: [1, 0, 2.5] })).toEqual([
      'a: Invalid input: expected string, received number',
      'b.c: Invalid input: expected boolean, received string',
      'd.1: Too small: expected number to be >=1',
      'd.2: Invalid input: expected int, received number',
    ]);
    expect(issuesOf(r, null)).toEqual(['input: Invalid input: expected object, received null']);
    expect(issuesOf(object({ l: list(text()) }), { l: 'x' })).toEqual(['l: Invalid input: expected array, received string']);
  });

  it('uses a rule’s own error for a wrong type and each check’s own message for its check', () => {
    const r = text({ error: 'name is required' }).trim().min(1, 'name is required').max(3, 'too long').regex(/^[a-z]+$/, 'letters only');
    expect(issuesOf(r, undefined)).toEqual(['input: name is required']);
    expect(issuesOf(r, '   ')).toEqual(['input: name is required']);
    expect(issuesOf(r, 'abcd')).toEqual(['input: too long']);
    expect(issuesOf(r, 'a1')).toEqual(['input: letters only']);
    expect(r.parse('  ab ')).toBe('ab');
    expect(issuesOf(oneOf(['x', 'y']), 'z')).toEqual(['input: Invalid option: expected one of "x"|"y"']);
    expect(issuesOf(oneOf(['x'], { error: 'pick x' }), 'z')).toEqual(['input: pick x']);
    expect(issuesOf(int({ error: 'whole number please' }), 1.5)).toEqual(['input: whole number please']);
  });

  it('refuses numbers that are not finite, and integers beyond the safe range', () => {
    expect(issuesOf(num(), Number.NaN)).toEqual(['input: Invalid input: expected number, received NaN']);
    expect(issuesOf(num(), Number.POSITIVE_INFINITY)).toHaveLength(1);
    expect(issuesOf(int(), 2 ** 60)).toHaveLength(1);
    expect(num().min(0).max(100).parse(12.5)).toBe(12.5);
    expect(issuesOf(num().max(100), 101)).toEqual(['input: Too big: expected number to be <=100']);
  });

  it('accepts the UUIDs Coder issues and refuses anything else', () => {
    const r = uuid({ error: 'not a version id' });
    expect(r.parse('0b3c6f7e-1d2a-4b5c-8d9e-0f1a2b3c4d5e')).toBe('0b3c6f7e-1d2a-4b5c-8d9e-0f1a2b3c4d5e');
    expect(r.parse('00000000-0000-0000-0000-000000000000')).toBe('00000000-0000-0000-0000-000000000000');
    for (const bad of ['v2', '0b3c6f7e-1d2a-0b5c-8d9e-0f1a2b3c4d5e', '0b3c6f7e1d2a4b5c8d9e0f1a2b3c4d5e', 42]) expect(issuesOf(r, bad)).toEqual(['input: not a version id']);
  });

  it('never changes a rule it was built from: adding a check gives a new rule', () => {
    const base = text();
    const strict = base.min(2);
    expect(base.parse('a')).toBe('a');
    expect(issuesOf(strict, 'a')).toHaveLength(1);
    const trimmed = base.trim();
    expect(base.parse(' a ')).toBe(' a ');
    expect(trimmed.parse(' a ')).toBe('a');
  });

  it('throws an InputError listing every issue from parse', () => {
    const r = object({ a: text(), b: bool() });
    expect(() => r.parse({})).toThrow(InputError);
    expect(() => r.parse({})).toThrow('invalid input: a: Invalid input: expected string, received undefined; b: Invalid input: expected boolean, received undefined');
  });
});
