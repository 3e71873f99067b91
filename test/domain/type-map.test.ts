import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { areTwins, lookupDeprecated, lookupReplacement, NEVER_TOUCH, TYPE_MAP } from '../../src/domain/type-map';

/** RFC 4180 enough for this file: commas, double-quoted fields, "" inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') {
          field += '"';
          i++;
        } else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') {
        fields.push(field);
        field = '';
      } else field += c;
    }
    fields.push(field);
    rows.push(fields);
  }
  return rows;
}

const [header, ...rows] = parseCsv(readFileSync(join(__dirname, '../../data/kubernetes-type-map.csv'), 'utf8'));
const col = (name: string): number => {
  const i = header.indexOf(name);
  if (i < 0) throw new Error(`data/kubernetes-type-map.csv has no column ${name}`);
  return i;
};

/** "kubernetes_horizontal_pod_autoscaler_v2 (or _v1)" names _v2 first: the map uses that one. */
const firstName = (field: string): string => field.split(/\s+/)[0];
const modeOf = (kind: string): string => (kind.startsWith('data') ? 'data' : 'managed');

describe('TYPE_MAP', () => {
  it('has one row per CSV row, in the same order, with the same mode, names and class', () => {
    const fromCsv = rows.map((r) => ({
      mode: modeOf(r[col('kind')]),
      deprecated: r[col('deprecated')],
      replacement: firstName(r[col('replacement')]),
      compat: r[col('class')],
    }));
    const fromMap = TYPE_MAP.map((m) => ({ mode: m.mode, deprecated: m.deprecated, replacement: m.replacement, compat: m.compat }));
    expect(fromMap).toEqual(fromCsv);
  });

  it('maps the HPA to _v2, the row whose replacement field offers "_v2 (or _v1)"', () => {
    const hpaRow = rows.find((r) => r[col('deprecated')] === 'kubernetes_horizontal_pod_autoscaler');
    expect(hpaRow?.[col('replacement')]).toContain('(or _v1)');
    expect(lookupDeprecated('managed', 'kubernetes_horizontal_pod_autoscaler')?.replacement).toBe('kubernetes_horizontal_pod_autoscaler_v2');
  });

  it('never treats a NEVER_TOUCH name as deprecated, in either mode', () => {
    for (const name of NEVER_TOUCH) {
      expect([name, lookupDeprecated('managed', name), lookupDeprecated('data', name)]).toEqual([name, undefined, undefined]);
    }
  });

  it('maps the irregular daemonset name to kubernetes_daemon_set_v1', () => {
    expect(lookupDeprecated('managed', 'kubernetes_daemonset')?.replacement).toBe('kubernetes_daemon_set_v1');
    expect(lookupDeprecated('managed', 'kubernetes_daemon_set')).toBeUndefined();
    expect(areTwins('managed', 'kubernetes_daemon_set_v1', 'kubernetes_daemonset')).toBe(true);
  });

  it('keeps data and managed lookups apart (data kubernetes_deployment does not exist)', () => {
    expect(lookupDeprecated('data', 'kubernetes_deployment')).toBeUndefined();
    expect(lookupDeprecated('data', 'kubernetes_ingress')?.compat).toBe('DIFFERENT');
    expect(lookupReplacement('data', 'kubernetes_secret_v1')?.deprecated).toBe('kubernetes_secret');
  });
});
