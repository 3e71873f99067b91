import { nextScheduled, parseWeeklySchedule } from '../../src/sim/cron-schedule';

describe('simulator: autostart schedules (coderd/schedule Weekly)', () => {
  test('CRON_TZ is honoured: 09:30 on weekdays in New York, asked on a Saturday, is Monday 14:30 UTC in December', () => {
    const s = parseWeeklySchedule('CRON_TZ=America/New_York 30 9 * * 1-5');
    expect(nextScheduled(s, new Date('2026-12-05T12:00:00Z'))?.toISOString()).toBe('2026-12-07T14:30:00.000Z');
  });

  test('without CRON_TZ the zone is UTC; the next time is strictly after the given one', () => {
    const s = parseWeeklySchedule('0 9 * * *');
    expect(nextScheduled(s, new Date('2026-12-01T09:00:00Z'))?.toISOString()).toBe('2026-12-02T09:00:00.000Z');
    expect(nextScheduled(s, new Date('2026-12-01T08:59:59Z'))?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
  });

  test('lists, ranges, steps and day names; 7 is Sunday', () => {
    const s = parseWeeklySchedule('0,30 */6 * * sun,7');
    expect([...s.minutes]).toEqual([0, 30]);
    expect([...s.hours]).toEqual([0, 6, 12, 18]);
    expect([...s.days]).toEqual([0]);
  });

  test('refuses what Coder refuses, naming the problem: day-of-month or month set, a bad zone, a bad field count or value', () => {
    expect(() => parseWeeklySchedule('0 9 1 * *')).toThrow('Invalid autostart schedule.');
    const detail = (raw: string): string => {
      try {
        parseWeeklySchedule(raw);
      } catch (err) {
        return ((err as { validations?: { detail: string }[] }).validations ?? [])[0]?.detail ?? '';
      }
      return '';
    };
    expect(detail('0 9 1 * *')).toBe('validate weekly schedule: expected day-of-month and month values to be *');
    expect(detail('CRON_TZ=Nowhere/Land 0 9 * * *')).toMatch(/unknown time zone Nowhere\/Land/);
    expect(detail('0 9 * *')).toMatch(/expected exactly 5 fields, found 4/);
    expect(detail('61 9 * * *')).toMatch(/minute 61 is out of range 0-59/);
  });
});
