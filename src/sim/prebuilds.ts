/**
 * Prebuilt workspaces (Premium) as Coder keeps them: workspaces owned by the `prebuilds` system user,
 * built and deleted by a reconciler that runs on its own, never by their owner.
 *
 * - The owner: database.PrebuildsSystemUserID `c42fdf75-3097-471c-8c33-fb52454d81c0` (migration
 *   000290_prebuilds, username `prebuilds`); `Workspace.IsPrebuild()` is "owned by it"
 *   (coderd/database/modelmethods.go), the test Coder's own UI makes (site isPrebuiltWorkspace).
 * - The reconciler (enterprise/coderd/prebuilds/reconcile.go ReconcileAll, coderd/prebuilds/preset_snapshot.go
 *   CalculateActions): per preset, the running prebuilds (latest build a succeeded start,
 *   queries/prebuilds.sql GetRunningPrebuiltWorkspaces) of a preset whose version is no longer the active
 *   one are all deleted; for the active version's preset, the missing ones are created and the extra
 *   ones (oldest first) deleted, counting starts still in progress.
 * - Its builds (reconcile.go `provision`): initiator the prebuilds user, no authorization, pinned to the
 *   template's ACTIVE version (`VersionID(template.ActiveVersionID)`) for a create and a delete alike,
 *   with the preset's id. A build already active on the workspace makes wsbuilder answer 409: the
 *   reconciler logs it and tries at its next run.
 * - A prebuild's preset is its latest build's that names one (the workspace_prebuilds view: only the
 *   reconciler's builds carry one), so a start or stop by anyone else keeps the old version's preset,
 *   and the reconciler deletes such a prebuild at its next run once that version is not active.
 * - Without Premium the reconciler is a no-op (coderd/prebuilds/noop.go).
 *
 * Not modelled: claims (a user's new workspace taking a ready prebuild), backoff after failed builds,
 * schedules and TTL expiry.
 */
import { ApiError } from './api-error';
import type { SimDeployment } from './deployment';
import type { BuildRecord, TemplateRecord, User, WorkspaceRecord } from './model';

export const PREBUILDS_USER_ID = 'c42fdf75-3097-471c-8c33-fb52454d81c0';

export interface PrebuildReconcileResult {
  /** Prebuilt workspaces a delete build was queued for. */
  deleted: string[];
  /** Prebuilt workspaces created (their first start queued). */
  created: string[];
  /** Per workspace id: why the reconciler's build was refused (it tries again next run). */
  errors: Record<string, string>;
  /** Set when the reconciler did nothing at all. */
  skipped?: string;
}

export function isPrebuilt(ws: WorkspaceRecord): boolean {
  return ws.ownerId === PREBUILDS_USER_ID;
}

/** The system user (no login, no token), created once. */
export function prebuildsUser(d: SimDeployment): User {
  const existing = d.userById(PREBUILDS_USER_ID);
  if (existing) return existing;
  // The migration that inserts the system user (coderd/database/migrations): username 'prebuilds', name 'Prebuilds Owner'.
  const user: User = { id: PREBUILDS_USER_ID, username: 'prebuilds', name: 'Prebuilds Owner', email: 'prebuilds@system', roles: [], token: '', createdAt: d.now() };
  d.users.push(user);
  return user;
}

/** Which version's preset the prebuilt workspace belongs to: its latest build that names one. */
export function presetOf(d: SimDeployment, ws: WorkspaceRecord): string | undefined {
  for (let i = ws.buildIds.length - 1; i >= 0; i--) {
    const b = d.builds.get(ws.buildIds[i] ?? '');
    if (b?.presetVersionId !== undefined) return b.presetVersionId;
  }
  return undefined;
}

/** prebuilds.GenerateName: "prebuild-" and 9 random bytes in lower-case base32 (15 characters). */
function prebuildName(d: SimDeployment): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let name = 'prebuild-';
  for (let i = 0; i < 15; i++) name += alphabet[d.random.int(alphabet.length)];
  return name;
}

function isRunning(b: BuildRecord): boolean {
  return b.transition === 'start' && b.job.status === 'succeeded';
}

function isInProgress(b: BuildRecord): boolean {
  return b.job.status === 'pending' || b.job.status === 'running';
}

/** Seeds `n` running prebuilt workspaces of the template's active version, as the reconciler had made them. */
export async function seedPrebuilds(d: SimDeployment, template: TemplateRecord, n: number): Promise<void> {
  const owner = prebuildsUser(d);
  template.prebuilds = { desiredInstances: n };
  for (let i = 0; i < n; i++) {
    const now = d.now();
    const ws: WorkspaceRecord = { id: d.newId(), name: prebuildName(d), ownerId: owner.id, organizationId: d.org.id, templateId: template.id, createdAt: now, updatedAt: now, lastUsedAt: now, deleted: false, buildIds: [] };
    d.workspaces.set(ws.id, ws);
    // A prebuild's claim is empty until someone claims the workspace.
    const build = await d.seedBuild(ws, template.activeVersionId, 'start', owner, '');
    build.presetVersionId = template.activeVersionId;
  }
}

function provision(d: SimDeployment, ws: WorkspaceRecord, template: TemplateRecord, transition: 'start' | 'delete', presetVersionId: string, result: PrebuildReconcileResult): boolean {
  try {
    d.createBuild(prebuildsUser(d), ws, { transition, templateVersionId: template.activeVersionId, presetVersionId }, true);
    return true;
  } catch (err) {
    result.errors[ws.id] = err instanceof ApiError ? `${err.status} ${err.message}` : err instanceof Error ? err.message : String(err);
    return false;
  }
}

/** One run of the reconciler over every template with prebuilds. */
export function reconcilePrebuilds(d: SimDeployment): PrebuildReconcileResult {
  const result: PrebuildReconcileResult = { deleted: [], created: [], errors: {} };
  if (d.licence !== 'premium') return { ...result, skipped: 'prebuilds need a Premium licence (coderd/prebuilds/noop.go)' };
  for (const template of d.templates.values()) {
    if (!template.prebuilds) continue;
    const prebuilt = [...d.workspaces.values()].filter((ws) => !ws.deleted && ws.templateId === template.id && isPrebuilt(ws));
    const running = prebuilt.filter((ws) => isRunning(d.latestBuild(ws))).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    // Every preset of an inactive version: all its running prebuilds go.
    for (const ws of running.filter((w) => presetOf(d, w) !== template.activeVersionId)) {
      if (provision(d, ws, template, 'delete', presetOf(d, ws) ?? template.activeVersionId, result)) result.deleted.push(ws.id);
    }
    // The active version's preset: as many as desired, counting starts still in progress.
    const active = running.filter((w) => presetOf(d, w) === template.activeVersionId);
    const starting = prebuilt.filter((w) => {
      const latest = d.latestBuild(w);
      return latest.transition === 'start' && isInProgress(latest) && latest.templateVersionId === template.activeVersionId;
    }).length;
    const extraneous = active.length - template.prebuilds.desiredInstances;
    if (extraneous > 0) {
      for (const ws of active.slice(0, extraneous)) if (provision(d, ws, template, 'delete', template.activeVersionId, result)) result.deleted.push(ws.id);
      continue;
    }
    for (let i = 0; i < template.prebuilds.desiredInstances - active.length - starting; i++) {
      const now = d.now();
      const ws: WorkspaceRecord = { id: d.newId(), name: prebuildName(d), ownerId: PREBUILDS_USER_ID, organizationId: template.organizationId, templateId: template.id, createdAt: now, updatedAt: now, lastUsedAt: now, deleted: false, buildIds: [] };
      d.workspaces.set(ws.id, ws);
      if (provision(d, ws, template, 'start', template.activeVersionId, result)) result.created.push(ws.id);
      else d.workspaces.delete(ws.id);
    }
  }
  return result;
}
