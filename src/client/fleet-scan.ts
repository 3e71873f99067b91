import { isCoderApiError, type CoderClient, type Workspace } from '../adapters/coder';
import { DEFAULT_HEALTH_DEPTH, readWorkspaceHealth } from '../adapters/coder/read-workspace-health';
import { isTerraformSource, readTar } from '../adapters/template-tar';
import { dormantNote, type DormantNote, type OwnerStanding } from '../domain/dormancy';
import { isPrebuiltWorkspace } from '../domain/prebuilt-workspaces';
import type { LossKind } from '../domain/protected-loss';
import { atRiskNote, migratedProtectedInVersion, rollbackHazards, versionShape, type AtRiskNote, type VersionShape } from '../domain/rollback-risk';
import { templateProtection } from '../domain/template-protection';
import { HEALTH_CLASSES, type HealthClass } from '../domain/workspace-health';

export interface ScanRow {
  workspace: string;
  id: string;
  health: HealthClass;
  reason: string;
  version: string;
  /** `status` is the workspace's (running, stopped, failed…); `job` is the build's own (succeeded, failed, running…). */
  latestBuild: { number: number; transition: string; status: string; job: string };
  /** For `damaged`: what was lost, how, and by which build. */
  damaged?: { since: number; losses: { address: string; kind: LossKind; build: number; at: string }[] };
  /** Set when the workspace is dormant, whatever its health: nobody can start it until it is made active. */
  dormant?: DormantNote;
  /**
   * Set when the template's active version is not this workspace's and would destroy its migrated
   * (`_v1`) protected objects (a rollback), whatever its health: who would fire that build, and what to do.
   */
  atRisk?: AtRiskNote;
}

export interface ScanReport {
  template: string;
  counts: Record<HealthClass, number>;
  /** Workspaces marked atRisk: the active version would destroy their migrated volumes. */
  atRisk: number;
  workspaces: ScanRow[];
  /**
   * Premium's unclaimed prebuilt workspaces, not classified: nobody's data, never migrated by a fleet,
   * replaced by Coder's reconciler on the active version (domain/prebuilt-workspaces.ts).
   */
  prebuilt: { workspace: string; id: string; version: string }[];
}

export interface ScanOptions {
  template: string;
  organization?: string;
  concurrency?: number;
  depth?: number;
  onProgress?: (done: number, total: number) => void;
}

type ScanCoder = Pick<CoderClient, 'workspacesOfTemplate' | 'templateByName' | 'userByName' | 'workspaceBuilds' | 'getWorkspaceBuildState' | 'workspaceBuildLogs' | 'templateVersion' | 'template' | 'downloadFile'>;

/** Runs `fn` over `items` with at most `limit` at a time, keeping the order of the results. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>, onDone: () => void): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
      onDone();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** A name that Coder does not know (template, organization): a typo must not read as "0 workspaces, all fine". */
export class UnknownNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownNameError';
  }
}

/**
 * No workspace matched: either the template has none, or it does not exist (a typo). Coder's
 * `/workspaces?q=template:NAME` answers an empty list for both, so ask for the template itself.
 */
async function requireTemplate(coder: Pick<CoderClient, 'templateByName'>, opts: ScanOptions): Promise<void> {
  // Organization path segments accept a name or `default` (coderd/httpmw/organizationparam.go).
  const org = opts.organization ?? 'default';
  try {
    await coder.templateByName(org, opts.template);
  } catch (err) {
    if (!isCoderApiError(err, 'not-found')) throw err;
    throw new UnknownNameError(
      `no template '${opts.template}' in ${opts.organization ? `organization '${org}' (or no such organization)` : "Coder's default organization"}, and no workspace uses a template of that name; ` +
        `check the spelling (the template's name, not its display name)${opts.organization ? '' : ', or pass --org for another organization'}`,
    );
  }
}

/**
 * The fleet's health, read-only: every workspace of the template classified from its recent builds
 * and states. Only GET requests; what is protected and which versions are _v1 come from the sources.
 */
export async function scanFleet(coder: ScanCoder, opts: ScanOptions): Promise<ScanReport> {
  const extraQuery = opts.organization ? `organization:${opts.organization}` : undefined;
  let listed: Workspace[];
  try {
    listed = await coder.workspacesOfTemplate(opts.template, extraQuery ? { extraQuery } : {});
  } catch (err) {
    // An organization name Coder does not know is a 400 in q (coderd/searchquery/search.go parseOrganization),
    // where an unknown template is an empty list: ask for the template in that organization, which names the typo.
    if (!opts.organization || !isCoderApiError(err, 'bad-request')) throw err;
    await requireTemplate(coder, opts);
    throw err;
  }
  if (listed.length === 0) await requireTemplate(coder, opts);
  const workspaces = listed.filter((w) => !isPrebuiltWorkspace(w));
  const prebuilt = listed
    .filter((w) => isPrebuiltWorkspace(w))
    .map((w) => ({ workspace: `${w.owner_name}/${w.name}`, id: w.id, version: w.latest_build.template_version_name ?? w.latest_build.template_version_id }))
    .sort((a, b) => a.workspace.localeCompare(b.workspace));
  type Source = ReturnType<typeof templateProtection> & { name: string; shape: VersionShape };
  const sources = new Map<string, Promise<Source>>();
  const protectionOf = (versionId: string) => {
    let p = sources.get(versionId);
    if (!p) {
      p = (async () => {
        const version = await coder.templateVersion(versionId);
        const files = (await readTar(await coder.downloadFile(version.job.file_id)))
          .filter((f) => isTerraformSource(f.path))
          .map((f) => ({ path: f.path, content: f.bytes.toString('utf8') }));
        return { ...templateProtection(files), name: version.name, shape: versionShape(files) };
      })();
      sources.set(versionId, p);
    }
    return p;
  };
  const versionIds = [...new Set(workspaces.map((w) => w.latest_build.template_version_id))];
  const activeVersionId = listed[0]?.template_active_version_id;
  // The active version's source is read once per scan: every workspace's rollback risk is judged against it.
  const active = activeVersionId ? await protectionOf(activeVersionId) : undefined;
  const annotated = active?.annotatedAddresses ?? [];
  const v1VersionIds: string[] = [];
  for (const id of versionIds) {
    try {
      if ((await protectionOf(id)).usesV1Types) v1VersionIds.push(id);
    } catch {
      // An unreadable source leaves that version out of the _v1 list; its workspaces then count as unmigrated.
    }
  }
  let done = 0;
  const rows = await mapBounded(
    workspaces,
    Math.max(1, opts.concurrency ?? 8),
    async (ws) => {
      const { row, migratedProtected } = await scanOne(coder, ws, { annotatedAddresses: annotated, v1VersionIds, depth: opts.depth ?? DEFAULT_HEALTH_DEPTH });
      if (!active || !activeVersionId) return row;
      const atRisk = await rollbackRisk(ws, { id: activeVersionId, source: active }, migratedProtected, v1VersionIds, protectionOf, opts.template);
      return atRisk ? { ...row, atRisk } : row;
    },
    () => opts.onProgress?.(++done, workspaces.length),
  );
  rows.sort((a, b) => a.workspace.localeCompare(b.workspace));
  const counts = Object.fromEntries(HEALTH_CLASSES.map((c) => [c, 0])) as Record<HealthClass, number>;
  for (const r of rows) counts[r.health]++;
  return { template: opts.template, counts, atRisk: rows.filter((r) => r.atRisk).length, workspaces: rows, prebuilt };
}

/**
 * A migrated workspace the active version would destroy the volumes of. Its `_v1` entries come from its
 * latest state, or, when that was not read (busy, unreadable), from its version when that is a migrated one.
 */
async function rollbackRisk(
  ws: Workspace,
  active: { id: string; source: { name: string; shape: VersionShape } },
  migratedProtected: string[] | undefined,
  v1VersionIds: readonly string[],
  protectionOf: (versionId: string) => Promise<{ name: string; shape: VersionShape; annotatedAddresses: string[] }>,
  template: string,
): Promise<AtRiskNote | undefined> {
  const versionId = ws.latest_build.template_version_id;
  if (versionId === active.id) return undefined;
  const isMigratedVersion = v1VersionIds.includes(versionId);
  const own = isMigratedVersion ? await protectionOf(versionId) : undefined;
  const held = migratedProtected ?? (own ? migratedProtectedInVersion(own.shape, own.annotatedAddresses) : []);
  const objects = rollbackHazards({ workspaceVersionId: versionId, activeVersionId: active.id, held, active: active.source.shape });
  if (objects.length === 0) return undefined;
  return atRiskNote(objects, {
    template,
    activeVersion: active.source.name,
    migratedVersion: own?.name,
    automaticUpdates: ws.automatic_updates,
    requireActiveVersion: ws.template_require_active_version,
    autostartSchedule: ws.autostart_schedule,
    nextStartAt: ws.next_start_at,
  });
}

/** Whether a dormant workspace's owner is suspended (then only an admin can act); unknown when Coder will not say. */
async function ownerStanding(coder: ScanCoder, ws: Workspace): Promise<OwnerStanding | undefined> {
  try {
    return { name: ws.owner_name, suspended: (await coder.userByName(ws.owner_id)).status === 'suspended' };
  } catch {
    return undefined;
  }
}

async function scanOne(
  coder: ScanCoder,
  ws: Workspace,
  opts: { annotatedAddresses: string[]; v1VersionIds: string[]; depth: number },
): Promise<{ row: ScanRow; migratedProtected?: string[] }> {
  const latest = ws.latest_build;
  const base = {
    workspace: `${ws.owner_name}/${ws.name}`,
    id: ws.id,
    version: latest.template_version_name ?? latest.template_version_id,
    latestBuild: { number: latest.build_number, transition: latest.transition, status: latest.status, job: latest.job.status },
    ...(ws.dormant_at ? { dormant: dormantNote(ws, await ownerStanding(coder, ws)) } : {}),
  };
  try {
    const h = await readWorkspaceHealth(coder, ws, opts);
    const row: ScanRow = { ...base, health: h.health, reason: h.reason };
    if (h.health === 'damaged') {
      const losses = h.losses.map((l) => ({ address: l.address, kind: l.kind, build: l.build.number, at: l.build.at }));
      row.damaged = { since: losses.length > 0 ? Math.min(...losses.map((l) => l.build)) : latest.build_number, losses };
    }
    return { row, ...(h.migratedProtected ? { migratedProtected: h.migratedProtected } : {}) };
  } catch (err) {
    return { row: { ...base, health: 'unreadable', reason: `could not read its builds: ${(err as Error).message}` } };
  }
}

/** The table an SRE reads: counts first, then one line per workspace. */
export function formatScanReport(r: ScanReport): string[] {
  const counts = HEALTH_CLASSES.map((c) => `${c} ${r.counts[c]}`).join(', ');
  const lines = [`template ${r.template}: ${r.workspaces.length} workspace(s): ${counts}${r.atRisk > 0 ? `; ${r.atRisk} AT RISK` : ''}`];
  const prebuilt = r.prebuilt.length
    ? [`${r.prebuilt.length} prebuilt workspace(s) left to Coder (nobody's data; its prebuilds reconciler replaces them on the active version; a fleet never migrates them): ${r.prebuilt.map((p) => `${p.workspace} (${p.version})`).join(', ')}`]
    : [];
  if (r.workspaces.length === 0) return [...lines, ...prebuilt];
  const table = [
    ['WORKSPACE', 'HEALTH', 'VERSION', 'LATEST BUILD', 'DETAIL'],
    ...r.workspaces.map((w) => [
      w.workspace,
      w.health,
      w.version,
      // The build's job, not the workspace's status: a finished start is "succeeded", not "running".
      `#${w.latestBuild.number} ${w.latestBuild.transition} ${w.latestBuild.job}${w.latestBuild.job === 'succeeded' ? ` (workspace ${w.latestBuild.status})` : ''}`,
      `${w.atRisk ? `AT RISK (active version ${w.atRisk.activeVersion}); ` : ''}${w.dormant ? `DORMANT since ${w.dormant.since}${w.dormant.deletingAt ? `, Coder deletes it at ${w.dormant.deletingAt}` : ''}; ` : ''}${w.damaged ? `since build #${w.damaged.since}: ${w.reason}` : w.reason}`,
    ]),
  ];
  const widths = table[0].slice(0, -1).map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) lines.push(row.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]) : cell)).join('  '));
  return [...lines, ...atRiskLines(r.workspaces), ...dormantLines(r.workspaces), ...prebuilt];
}

/** At-risk workspaces, after the table: what would destroy what, who would fire it, and what to do. */
export function atRiskLines(rows: readonly ScanRow[], prefix = ''): string[] {
  const atRisk = rows.filter((w) => w.atRisk);
  if (atRisk.length === 0) return [];
  return [
    `${atRisk.length} workspace(s) AT RISK: the template's active version would destroy their migrated volumes (run 'wsmigrate scan' after any promotion): ${atRisk.map((w) => `${prefix}${w.workspace}`).join(', ')}.`,
    ...atRisk.flatMap((w) => {
      const n = w.atRisk as AtRiskNote;
      return [
        `  ${prefix}${w.workspace}: ${n.objects.map((o) => o.why).join('; ')}. Fired by ${n.firedBy.join(', or ')}.`,
        `    To do: ${n.action}.`,
      ];
    }),
  ];
}

/** Dormant workspaces, after the table: each needs its owner or an admin before anything can start it. */
function dormantLines(rows: readonly ScanRow[]): string[] {
  const dormant = rows.filter((w) => w.dormant);
  if (dormant.length === 0) return [];
  return [
    `${dormant.length} dormant workspace(s): ${dormant.map((w) => w.workspace).join(', ')}.`,
    ...dormant.map((w) => `  ${w.workspace}: dormant since ${w.dormant?.since}. ${w.dormant?.action}`),
  ];
}
