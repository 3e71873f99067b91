import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { areTwins, isPersistentType, lookupDeprecated, lookupReplacement, NEVER_TOUCH, TYPE_MAP } from '../../src/domain/type-map';

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

describe('twins and persistent kinds', () => {
  it.each<[string, 'managed' | 'data', string, string, boolean]>([
    ['deprecated then versioned', 'managed', 'kubernetes_persistent_volume_claim', 'kubernetes_persistent_volume_claim_v1', true],
    ['versioned then deprecated', 'managed', 'kubernetes_persistent_volume_claim_v1', 'kubernetes_persistent_volume_claim', true],
    ['data twins', 'data', 'kubernetes_secret_v1', 'kubernetes_secret', true],
    ['a type with itself', 'managed', 'kubernetes_secret', 'kubernetes_secret', false],
    ['a versioned type with itself', 'managed', 'kubernetes_secret_v1', 'kubernetes_secret_v1', false],
    ['two kinds', 'managed', 'kubernetes_secret', 'kubernetes_config_map_v1', false],
    ['a twin of another kind in reverse', 'managed', 'kubernetes_secret_v1', 'kubernetes_config_map', false],
    ['managed twins asked as data', 'data', 'kubernetes_deployment', 'kubernetes_deployment_v1', false],
    ['an unknown type', 'managed', 'kubernetes_env', 'kubernetes_env_v1', false],
  ])('%s: areTwins(%s, %s, %s) is %s', (_, mode, a, b, expected) => {
    expect(areTwins(mode, a, b)).toBe(expected);
  });

  it('counts PVCs and PVs, under either name, and nothing else as persistent', () => {
    const persistent = TYPE_MAP.flatMap((m) => [m.deprecated, m.replacement]).filter(isPersistentType);
    expect([...new Set(persistent)].sort()).toEqual([
      'kubernetes_persistent_volume',
      'kubernetes_persistent_volume_claim',
      'kubernetes_persistent_volume_claim_v1',
      'kubernetes_persistent_volume_v1',
    ]);
    expect(isPersistentType('kubernetes_persistent_volume_claim_v2')).toBe(false);
  });

  it('keeps the note of an irregular or DIFFERENT mapping, and gives none to a plain one', () => {
    expect(lookupDeprecated('managed', 'kubernetes_cron_job')).toEqual({ mode: 'managed', deprecated: 'kubernetes_cron_job', replacement: 'kubernetes_cron_job_v1', compat: 'DIFFERENT', note: 'batch/v1beta1 vs batch/v1; schema_version 1 vs 0' });
    expect(lookupDeprecated('data', 'kubernetes_ingress')?.note).toBe('v1beta1 schema; attribute paths differ');
    expect(lookupReplacement('managed', 'kubernetes_secret_v1')).toEqual({ mode: 'managed', deprecated: 'kubernetes_secret', replacement: 'kubernetes_secret_v1', compat: 'SAME' });
    expect(lookupReplacement('data', 'kubernetes_deployment_v1')).toBeUndefined();
  });
});
