import { ApiError } from './api-error';

/**
 * A workspace's autostart schedule as coderd/schedule/cron.go (Weekly) reads it:
 * `CRON_TZ=<IANA zone> <minute> <hour> * * <day-of-week>`, day-of-month and month always `*`, and
 * UTC when no CRON_TZ is given.
 */
export interface WeeklySchedule {
  zone: string;
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  source: string;
}

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function invalid(detail: string): ApiError {
  return new ApiError(400, 'Invalid autostart schedule.', undefined, [{ field: 'schedule', detail }]);
}

function field(raw: string, min: number, max: number, what: string, names: string[] = []): Set<number> {
  const out = new Set<number>();
  const value = (s: string): number => {
    const named = names.indexOf(s.toLowerCase());
    if (named >= 0) return named;
    if (!/^\d+$/.test(s)) throw invalid(`parse schedule: ${what} "${s}" is not a number`);
    const n = Number(s);
    // Cron allows 7 for Sunday.
    if (what === 'day-of-week' && n === 7) return 0;
    if (n < min || n > max) throw invalid(`parse schedule: ${what} ${n} is out of range ${min}-${max}`);
    return n;
  };
  for (const part of raw.split(',')) {
    const [range, stepRaw] = part.split('/');
    const step = stepRaw === undefined ? 1 : Number(stepRaw);
    if (!Number.isInteger(step) || step < 1) throw invalid(`parse schedule: bad step in ${what} "${part}"`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [min, max];
    else if (range?.includes('-')) {
      const [a, b] = range.split('-');
      [from, to] = [value(a ?? ''), value(b ?? '')];
    } else {
      from = value(range ?? '');
      to = stepRaw === undefined ? from : max;
    }
    for (let n = from; n <= to; n += step) out.add(n);
  }
  return out;
}

export function parseWeeklySchedule(raw: string): WeeklySchedule {
  let text = raw.trim();
  let zone = 'UTC';
  const tz = /^CRON_TZ=(\S+)\s+(.*)$/.exec(text);
  if (tz) {
    zone = tz[1] as string;
    text = tz[2] as string;
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw invalid(`parse schedule: provided bad location ${zone}: unknown time zone ${zone}`);
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw invalid('parse schedule: expected exactly 5 fields, found ' + String(parts.length));
  const [m, h, dom, mon, dow] = parts as [string, string, string, string, string];
  if (dom !== '*' || mon !== '*') throw invalid('validate weekly schedule: expected day-of-month and month values to be *');
  return { zone, minutes: field(m, 0, 59, 'minute'), hours: field(h, 0, 23, 'hour'), days: field(dow, 0, 6, 'day-of-week', DAY_NAMES), source: raw };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localParts(at: Date, zone: string): { minute: number; hour: number; day: number } {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', weekday: 'short', hour: '2-digit', minute: '2-digit' });
    formatters.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return { minute: Number(parts.minute), hour: Number(parts.hour), day: DAY_NAMES.indexOf(String(parts.weekday).slice(0, 3).toLowerCase()) };
}

/** The first whole minute strictly after `after` that the schedule names (within 8 days), as robfig/cron's Next. */
export function nextScheduled(schedule: WeeklySchedule, after: Date): Date | undefined {
  const start = Math.floor(after.getTime() / 60_000) * 60_000 + 60_000;
  for (let t = start; t < start + 8 * 24 * 60 * 60_000; t += 60_000) {
    const at = new Date(t);
    const p = localParts(at, schedule.zone);
    if (schedule.minutes.has(p.minute) && schedule.hours.has(p.hour) && schedule.days.has(p.day)) return at;
  }
  return undefined;
}
