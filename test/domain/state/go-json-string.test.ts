import { goJsonString } from '../../../src/domain/state/go-json-string';

describe('goJsonString', () => {
  it.each([
    ['kubernetes_secret_v1', '"kubernetes_secret_v1"'],
    ['', '""'],
    ['a<b>c&d', '"a\\u003cb\\u003ec\\u0026d"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['<<&&>>', '"\\u003c\\u003c\\u0026\\u0026\\u003e\\u003e"'],
    ['"\\\n\u0001é', '"\\"\\\\\\n\\u0001é"'],
  ])('writes %j as Go encoding/json does: %s', (value, expected) => {
    expect(goJsonString(value)).toBe(expected);
    expect(JSON.parse(goJsonString(value))).toBe(value);
  });
});
