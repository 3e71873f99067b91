import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DASHBOARD_PATH = join(__dirname, '..', '..', 'deploy', 'grafana', 'wsmigrate-dashboard.json');

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Every PromQL expression of the dashboard, with its panel's title. */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as { panels: Panel[] };
  const out: { panel: string; expr: string }[] = [];
  const visit = (panels: Panel[]) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) out.push({ panel: p.title, expr: t.expr });
      visit(p.panels ?? []);
    }
  };
  visit(dashboard.panels);
  return out;
}

/** Metric names in a query: every exported metric here starts with wsmigrate_ or temporal_. */
export function metricNamesIn(expr: string): string[] {
  return [...new Set(expr.match(/\b(?:wsmigrate|temporal)_[a-zA-Z0-9_]+/g) ?? [])];
}

/**
 * The series names an exposition text offers: every sample's name, and for every declared metric
 * its name (and _bucket/_sum/_count for a histogram), so a metric with no sample yet still counts.
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type) {
      names.add(type[1]);
      if (type[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${type[1]}${s}`);
      if (type[2] === 'counter' && !type[1].endsWith('_total')) names.add(`${type[1]}_total`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}
