import type { CoderClient } from '../adapters/coder';
import { activeVersionDeprecations } from '../adapters/coder/active-version-deprecations';
import { HEALTH_CLASSES, type HealthClass } from '../domain/workspace-health';
import { atRiskLines, scanFleet, type ScanReport } from './fleet-scan';

export interface OrganizationScanRow {
  template: string;
  activeVersion: { id: string; name: string };
  /** Deprecated kubernetes types the active version declares. */
  deprecatedTypes: string[];
  /** False: the active version is on `_v1` and every workspace is on it: nothing to do. */
  needsMigration: boolean;
  counts: Record<HealthClass, number>;
  /** Its workspaces the active version would destroy the migrated volumes of (a rollback). */
  atRisk: number;
  workspaces: ScanReport['workspaces'];
  /** Unclaimed prebuilt workspaces, left to Coder's reconciler (not classified). */
  prebuilt: ScanReport['prebuilt'];
}

export interface OrganizationScanReport {
  organization: string;
  templates: OrganizationScanRow[];
  /** The damaged and unreadable workspaces of every template, together. */
  counts: Record<HealthClass, number>;
  atRisk: number;
}

type OrgScanCoder = Parameters<typeof scanFleet>[0] & Pick<CoderClient, 'templatesOfOrganization' | 'templateVersion' | 'downloadFile' | 'workspacesOfTemplate'>;

/** `scan --org`: each template of the organization, whether its active version still uses deprecated types, and its workspaces by health. Reads only. */
export async function scanOrganization(coder: OrgScanCoder, opts: { organization: string; concurrency?: number; depth?: number }): Promise<OrganizationScanReport> {
  const templates = await coder.templatesOfOrganization(opts.organization);
  const rows: OrganizationScanRow[] = [];
  for (const t of templates) {
    const facts = await activeVersionDeprecations(coder, opts.organization, t);
    const report = await scanFleet(coder, { template: t.name, organization: opts.organization, ...(opts.concurrency ? { concurrency: opts.concurrency } : {}), ...(opts.depth ? { depth: opts.depth } : {}) });
    rows.push({
      template: t.name,
      activeVersion: { id: facts.activeVersionId, name: facts.activeVersionName },
      deprecatedTypes: facts.deprecatedTypes,
      needsMigration: facts.deprecatedTypes.length > 0 || facts.outdatedWorkspaces > 0 || report.counts.unmigrated > 0,
      counts: report.counts,
      atRisk: report.atRisk,
      workspaces: report.workspaces,
      prebuilt: report.prebuilt,
    });
  }
  const counts = Object.fromEntries(HEALTH_CLASSES.map((c) => [c, rows.reduce((n, r) => n + r.counts[c], 0)])) as Record<HealthClass, number>;
  return { organization: opts.organization, templates: rows, counts, atRisk: rows.reduce((n, r) => n + r.atRisk, 0) };
}

/** What the template needs first: a migrated workspace at risk (an old version promoted again) comes before any migration. */
function toDo(t: OrganizationScanRow): string {
  if (t.atRisk > 0) return `promote the migrated version again (${t.atRisk} at risk, below)`;
  if (!t.needsMigration) return 'nothing to do';
  return t.deprecatedTypes.length ? `migrate (${t.deprecatedTypes.join(', ')})` : 'migrate the workspaces (template already _v1)';
}

export function formatOrganizationScan(r: OrganizationScanReport): string[] {
  const lines = [`organization ${r.organization}: ${r.templates.length} template(s), ${r.templates.filter((t) => t.needsMigration).length} to migrate`];
  const table = [
    ['TEMPLATE', 'ACTIVE VERSION', 'TO DO', ...HEALTH_CLASSES.map((c) => c.toUpperCase()), 'AT RISK'],
    ...r.templates.map((t) => [
      t.template,
      t.activeVersion.name,
      toDo(t),
      ...HEALTH_CLASSES.map((c) => String(t.counts[c])),
      String(t.atRisk),
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  for (const row of table) lines.push(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd());
  const bad = r.templates.flatMap((t) => t.workspaces.filter((w) => w.health === 'damaged' || w.health === 'unreadable').map((w) => `  ${t.template}/${w.workspace}: ${w.health}: ${w.reason}`));
  if (bad.length) lines.push('', ...bad);
  const atRisk = r.templates.flatMap((t) => atRiskLines(t.workspaces, `${t.template}/`));
  if (atRisk.length) lines.push('', ...atRisk);
  const prebuilt = r.templates.filter((t) => t.prebuilt.length > 0).map((t) => `  ${t.template}: ${t.prebuilt.length} prebuilt workspace(s) left to Coder's prebuilds reconciler (not classified, never migrated)`);
  if (prebuilt.length) lines.push('', ...prebuilt);
  return lines;
}
