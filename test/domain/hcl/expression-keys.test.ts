import { plainString, valuesOfKey } from '../../../src/domain/hcl/expression-keys';
import { lexHcl } from '../../../src/domain/hcl/lexer';

const expr = (text: string) => lexHcl(text, 'x.tf', { mode: 'expression' });

describe('plainString', () => {
  test('a quoted string without interpolation, the empty one too; nothing else', () => {
    expect(plainString(expr('"Delete"'))).toBe('Delete');
    expect(plainString(expr('""'))).toBe('');
    expect(plainString(expr('"${var.p}"'))).toBeUndefined();
    expect(plainString(expr('var.p'))).toBeUndefined();
  });
});

describe('valuesOfKey', () => {
  test('bare and quoted keys, `=` and `:`, each value up to its comma, brace or line end', () => {
    const values = valuesOfKey(expr('[{ when_deleted = "Delete", "when_deleted": var.x }, {\n  when_deleted = "Retain"\n  other = 1\n}]'), 'when_deleted');
    expect(values.map((v) => plainString(v) ?? v.map((t) => t.text).join(''))).toEqual(['Delete', 'var.x', 'Retain']);
  });

  test('`depth` keeps the outermost object\'s keys only; an attribute access named like the key is no key', () => {
    const t = expr('merge(local.base, { spec = { kind = "Inner" }, ref = local.kind, kind = "Outer" })');
    expect(valuesOfKey(t, 'kind', { depth: 1 }).map(plainString)).toEqual(['Outer']);
    expect(valuesOfKey(t, 'kind').map(plainString)).toEqual(['Inner', 'Outer']);
  });
});
