import { formatDuration } from '../../src/domain/duration-text';

describe('formatDuration: one wording for ETAs and timeouts', () => {
  it('seconds, minutes and seconds, hours and minutes', () => {
    expect(formatDuration(44_600)).toBe('45s');
    expect(formatDuration(180_000)).toBe('3m00s');
    expect(formatDuration(185_000)).toBe('3m05s');
    expect(formatDuration(2 * 3_600_000 + 7 * 60_000 + 30_000)).toBe('2h07m');
  });

  it('at each unit boundary', () => {
    expect(formatDuration(59_400)).toBe('59s');
    expect(formatDuration(60_000)).toBe('1m00s');
    expect(formatDuration(61_000)).toBe('1m01s');
    expect(formatDuration(3_599_000)).toBe('59m59s');
    expect(formatDuration(3_600_000)).toBe('1h00m');
    expect(formatDuration(3_661_000)).toBe('1h01m');
  });
});
